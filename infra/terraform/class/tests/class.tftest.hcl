# The class configuration, offline: a roster of two students becomes two clusters in one shared network,
# each with its own key pair, firewall and inventory. A mocked AWS provider; nothing is created.

mock_provider "aws" {
  source          = "../tests/mocks"
  override_during = plan
}

variables {
  course      = "hbase-2026"
  roster_file = "tests/roster.csv"
}

run "two_students" {
  command = plan

  assert {
    condition     = keys(module.cluster) == ["alice", "bob"]
    error_message = "one cluster per roster row"
  }
  assert {
    condition = (
      length(module.cluster["alice"].nodes) == 3 &&
      keys(yamldecode(output.ansible_inventories["bob"]).all.children.regionservers.hosts) == ["rs1", "rs2", "rs3"] &&
      keys(yamldecode(output.ansible_inventories["bob"]).all.children.clients.hosts) == ["client1", "client2"]
    )
    error_message = "alice gets the class default (1 region server, 1 client), bob the roster's 3 and 2"
  }
  assert {
    condition     = yamldecode(output.ansible_inventories["alice"]).all.vars.ansible_ssh_private_key_file == "~/.ssh/id_ed25519"
    error_message = "an inventory names the private key's path only"
  }
  assert {
    condition     = abs(output.estimated_cost_per_hour - (output.cost_per_hour_by_student["alice"] + output.cost_per_hour_by_student["bob"])) < 1e-9 && abs(output.cost_per_hour_by_student["bob"] - 6 * (0.34 + 120 * 0.08 / 730)) < 1e-9
    error_message = "the class's cost is the sum of its clusters'"
  }
  assert {
    condition     = module.network.subnet_id == "subnet-0123456789abcdef0"
    error_message = "the class has one network"
  }
}

run "an_open_ssh_range_in_the_roster_is_refused" {
  command = plan

  variables {
    roster_file = "tests/roster-open.csv"
  }

  expect_failures = [var.roster_file]
}
