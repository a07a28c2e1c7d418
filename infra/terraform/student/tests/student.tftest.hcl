# The student configuration end to end, offline: it reads the public key from the student's file and
# passes everything through to the module. A mocked AWS provider; nothing is created.

mock_provider "aws" {
  source          = "../tests/mocks"
  override_during = plan
}

variables {
  student             = "bob"
  course              = "hbase-2026"
  ssh_cidr            = "198.51.100.0/24"
  ssh_public_key_file = "../tests/fixtures/student.pub"
}

run "the_example_values" {
  command = plan

  assert {
    condition     = module.cluster.nodes["master"].role == "master" && length(module.cluster.nodes) == 5
    error_message = "five nodes by default"
  }
  assert {
    condition     = yamldecode(output.ansible_inventory).all.vars.ansible_ssh_private_key_file == "~/.ssh/id_ed25519"
    error_message = "the inventory names the default private key path"
  }
  assert {
    condition     = yamldecode(output.ansible_inventory).all.hosts.client1.heaplab_rpc_host == "10.42.16.10"
    error_message = "the inventory carries the private address"
  }
  assert {
    condition     = output.estimated_cost_per_hour > 1.7 && output.estimated_cost_per_hour < 1.8
    error_message = "the default cluster costs about 1.75 USD an hour"
  }
  assert {
    condition = (
      abs(output.estimated_cost_per_hour - jsondecode(file("../presets.json")).presets.student.cost_per_hour) < 0.005 &&
      alltrue([for n in module.cluster.nodes : n.instance_type == jsondecode(file("../presets.json")).presets.student.instance_type]) &&
      length([for n in module.cluster.nodes : n if n.role == "regionserver"]) == jsondecode(file("../presets.json")).presets.student.region_servers &&
      length(module.cluster.nodes) == jsondecode(file("../presets.json")).presets.student.masters + jsondecode(file("../presets.json")).presets.student.region_servers + jsondecode(file("../presets.json")).presets.student.clients
    )
    error_message = "the defaults are the \"student\" preset of ../presets.json (heaplab/presets.py): its type, node counts and cost"
  }
}

run "bigger_cluster_for_lab_10" {
  command = plan

  variables {
    region_servers = 4
    clients        = 2
  }

  assert {
    condition     = keys(yamldecode(output.ansible_inventory).all.children.regionservers.hosts) == ["rs1", "rs2", "rs3", "rs4"] && keys(yamldecode(output.ansible_inventory).all.children.clients.hosts) == ["client1", "client2"]
    error_message = "four region servers, two clients"
  }
}

run "a_student_name_tags_cannot_hold_is_refused" {
  command = plan
  variables {
    student = "Alice Smith"
  }
  expect_failures = [var.student]
}
