# The NetEase report's hosts, offline: what the configuration plans agrees with its entry in
# ../presets.json, the registry heaplab reads (heaplab/presets.py) to say where a claim that needs 32
# cores becomes measurable. A mocked AWS provider; nothing is created.

mock_provider "aws" {
  source          = "../tests/mocks"
  override_during = plan
}

variables {
  student             = "carol"
  course              = "hbase-2026"
  ssh_cidr            = "198.51.100.0/24"
  ssh_public_key_file = "../tests/fixtures/student.pub"
}

run "the_preset_is_what_terraform_plans" {
  command = plan

  assert {
    condition     = keys(module.cluster.nodes) == ["client1", "client2", "master", "rs1", "rs2", "rs3", "rs4"]
    error_message = "a master, 4 region servers and 2 clients (the preset's masters, region_servers, clients)"
  }
  assert {
    condition = (
      length(module.cluster.nodes) == jsondecode(file("../presets.json")).presets["netease-hosts"].masters + jsondecode(file("../presets.json")).presets["netease-hosts"].region_servers + jsondecode(file("../presets.json")).presets["netease-hosts"].clients &&
      length([for n in module.cluster.nodes : n if n.role == "regionserver"]) == jsondecode(file("../presets.json")).presets["netease-hosts"].region_servers
    )
    error_message = "the node counts are presets.json's"
  }
  assert {
    condition     = alltrue([for n in module.cluster.nodes : n.instance_type == jsondecode(file("../presets.json")).presets["netease-hosts"].instance_type]) && module.cluster.nodes["master"].instance_type == "m6i.8xlarge"
    error_message = "every node, master and clients included, is the preset's m6i.8xlarge (32 vCPU, 128 GiB): heaplab judges a claim's needs on the smallest host of a run"
  }
  assert {
    condition     = output.estimated_cost_per_hour > 11.1 && output.estimated_cost_per_hour < 11.2 && module.cluster.instance_price_known
    error_message = "7 x m6i.8xlarge (1.536 USD/h) with 520 GiB of gp3 each: about 11.15 USD an hour"
  }
  assert {
    condition     = abs(output.estimated_cost_per_hour - jsondecode(file("../presets.json")).presets["netease-hosts"].cost_per_hour) < 0.005
    error_message = "presets.json's cost_per_hour is the cost terraform estimates"
  }
  assert {
    condition = (
      keys(yamldecode(output.ansible_inventory).all.children.regionservers.hosts) == ["rs1", "rs2", "rs3", "rs4"] &&
      keys(yamldecode(output.ansible_inventory).all.children.clients.hosts) == ["client1", "client2"] &&
      keys(yamldecode(output.ansible_inventory).all.children.masters.hosts) == ["master"]
    )
    error_message = "the inventory lab 10 runs on: one master, four region servers, two clients"
  }
  assert {
    condition     = startswith(yamldecode(output.ansible_inventory).all.hosts.rs4.heaplab_data_device, "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_")
    error_message = "the data lives on the gp3 volume"
  }
}

run "each_node_has_the_presets_data_volume" {
  command = plan

  # The module alone, given the preset's sizes as the configuration passes them (main.tf): the volumes are
  # the module's resources, which a test of the configuration cannot read.
  module {
    source = "../modules/aws-cluster"
  }

  variables {
    name                 = "hl32-carol"
    ssh_public_key       = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILgqexaFOknQJj40KIA1UJYWZxjlpsY30p5/knjeXj2t heaplab-test-only"
    region_servers       = jsondecode(file("../presets.json")).presets["netease-hosts"].region_servers
    clients              = jsondecode(file("../presets.json")).presets["netease-hosts"].clients
    instance_type        = jsondecode(file("../presets.json")).presets["netease-hosts"].instance_type
    data_volume_size_gb  = jsondecode(file("../presets.json")).presets["netease-hosts"].data_volume_size_gb
    root_volume_size_gb  = jsondecode(file("../presets.json")).presets["netease-hosts"].root_volume_size_gb
    ssh_private_key_file = "~/.ssh/id_ed25519"
  }

  assert {
    condition     = length(aws_ebs_volume.data) == 7 && alltrue([for v in aws_ebs_volume.data : v.type == "gp3" && v.size == 500 && v.encrypted])
    error_message = "each node has a 500 GiB encrypted gp3 data volume (SSD): 1e9 rows of about 500 bytes are about 150 GB per region server"
  }
  assert {
    condition     = alltrue([for i in aws_instance.node : i.root_block_device[0].volume_size == 20])
    error_message = "root volumes of 20 GiB, as the cost in presets.json counts them"
  }
}

run "a_student_name_too_long_for_the_cluster_name_is_refused" {
  command = plan
  variables {
    student = "a-student-name-of-27-chars0"
  }
  expect_failures = [var.student]
}
