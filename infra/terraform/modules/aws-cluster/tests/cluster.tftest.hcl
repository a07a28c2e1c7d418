# Offline checks of the cluster module: a mocked AWS provider, so nothing is created and no account is
# needed. `command = plan` with override_during = plan gives the computed attributes (addresses, ids)
# the mock values of infra/terraform/tests/mocks/aws.tfmock.hcl, so the outputs built from them can be
# asserted.

mock_provider "aws" {
  source          = "../../tests/mocks"
  override_during = plan
}

variables {
  name                 = "hl-alice"
  student              = "alice"
  course               = "hbase-2026"
  ssh_cidr             = "203.0.113.7/32"
  ssh_public_key       = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILgqexaFOknQJj40KIA1UJYWZxjlpsY30p5/knjeXj2t heaplab-test-only"
  ssh_private_key_file = "~/.ssh/alice_ed25519"
}

run "default_cluster" {
  command = plan

  assert {
    condition     = keys(aws_instance.node) == ["client1", "master", "rs1", "rs2", "rs3"]
    error_message = "the default cluster is a master, three region servers and one client"
  }
  assert {
    condition     = alltrue([for i in aws_instance.node : i.instance_type == "c6i.2xlarge"])
    error_message = "every node is a c6i.2xlarge (8 vCPU, 16 GiB) by default"
  }
  assert {
    condition     = [for n in ["master", "rs1", "client1"] : aws_instance.node[n].tags.Role] == ["master", "regionserver", "client"]
    error_message = "each node is tagged with its role"
  }
  assert {
    condition     = alltrue([for i in aws_instance.node : i.root_block_device[0].volume_type == "gp3" && i.root_block_device[0].volume_size == 20 && i.root_block_device[0].encrypted])
    error_message = "root volumes are encrypted 20 GiB gp3"
  }
  assert {
    condition     = alltrue([for i in aws_instance.node : i.metadata_options[0].http_tokens == "required"])
    error_message = "instances require IMDSv2"
  }
  assert {
    condition     = length(aws_ebs_volume.data) == 5 && length(aws_volume_attachment.data) == 5
    error_message = "every node gets a data volume, attached"
  }
  assert {
    condition     = alltrue([for v in aws_ebs_volume.data : v.type == "gp3" && v.size == 100 && v.iops == 3000 && v.throughput == 125 && v.encrypted])
    error_message = "data volumes are encrypted 100 GiB gp3 at 3000 IOPS and 125 MB/s"
  }
  assert {
    condition     = aws_vpc_security_group_ingress_rule.ssh.cidr_ipv4 == "203.0.113.7/32" && aws_vpc_security_group_ingress_rule.ssh.from_port == 22 && aws_vpc_security_group_ingress_rule.ssh.to_port == 22 && aws_vpc_security_group_ingress_rule.ssh.referenced_security_group_id == null
    error_message = "ssh is open to the student's range only"
  }
  assert {
    condition     = keys(aws_vpc_security_group_ingress_rule.cluster) == ["16000", "16010", "16020", "16030"]
    error_message = "the cluster ports are the master's and region server's RPC and info ports"
  }
  assert {
    condition     = alltrue([for r in aws_vpc_security_group_ingress_rule.cluster : r.referenced_security_group_id == "sg-0123456789abcdef0" && r.cidr_ipv4 == null && r.cidr_ipv6 == null && r.from_port == r.to_port])
    error_message = "cluster ports are open only to the group itself, one port per rule, never to an address range"
  }
  assert {
    condition     = aws_key_pair.student.public_key == var.ssh_public_key && aws_key_pair.student.key_name == "hl-alice-key"
    error_message = "the key pair holds the student's public key"
  }
  assert {
    condition     = aws_instance.node["rs1"].tags == tomap({ Project = "heaplab", Course = "hbase-2026", Student = "alice", Cluster = "hl-alice", Name = "hl-alice-rs1", Role = "regionserver" })
    error_message = "instances carry the project, course, student and cluster tags"
  }
  assert {
    condition     = alltrue([for v in aws_ebs_volume.data : v.tags.Student == "alice" && v.tags.Course == "hbase-2026"]) && module.network[0].vpc_id == "vpc-0123456789abcdef0"
    error_message = "volumes are tagged per student; the module made its own network"
  }
  assert {
    condition     = abs(output.estimated_cost_per_hour - 5 * (0.34 + 120 * 0.08 / 730)) < 1e-9 && output.instance_price_known
    error_message = "cost = 5 nodes x (c6i.2xlarge's 0.34 USD/h + 120 GiB of gp3 at 0.08 per GiB-month / 730 h)"
  }
  assert {
    condition     = output.ssh_commands["rs2"] == "ssh -i ~/.ssh/alice_ed25519 ubuntu@192.0.2.10"
    error_message = "ssh commands use the key path and the public address"
  }
}

run "the_inventory_terraform_writes" {
  command = plan

  assert {
    condition     = keys(yamldecode(output.ansible_inventory).all.children) == ["clients", "masters", "regionservers"]
    error_message = "the inventory has the three groups heaplab's playbooks use"
  }
  assert {
    condition = (
      keys(yamldecode(output.ansible_inventory).all.children.masters.hosts) == ["master"] &&
      keys(yamldecode(output.ansible_inventory).all.children.regionservers.hosts) == ["rs1", "rs2", "rs3"] &&
      keys(yamldecode(output.ansible_inventory).all.children.clients.hosts) == ["client1"]
    )
    error_message = "master, region servers and clients land in their groups"
  }
  assert {
    condition = yamldecode(output.ansible_inventory).all.hosts.rs1 == {
      ansible_host        = "192.0.2.10"
      heaplab_rpc_host    = "10.42.16.10"
      heaplab_base_dir    = "/data/heaplab"
      heaplab_data_device = "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0a1b2c3d4e5f60001"
    }
    error_message = "a host is reached on its public address, serves on its private one, keeps its data on the data volume"
  }
  assert {
    condition = (
      yamldecode(output.ansible_inventory).all.vars.ansible_user == "ubuntu" &&
      yamldecode(output.ansible_inventory).all.vars.ansible_ssh_private_key_file == "~/.ssh/alice_ed25519" &&
      yamldecode(output.ansible_inventory).all.vars.heaplab_supervisor == "systemd" &&
      yamldecode(output.ansible_inventory).all.vars.heaplab_os_tuning == "apply" &&
      yamldecode(output.ansible_inventory).all.vars.heaplab_data_mount == "/data"
    )
    error_message = "the cluster-wide vars: ubuntu, the key's path, systemd units, OS settings applied, /data"
  }
  assert {
    condition     = !strcontains(output.ansible_inventory, "PRIVATE KEY") && !strcontains(output.ansible_inventory, "AAAAC3NzaC1lZDI1NTE5")
    error_message = "the inventory names the key's path and holds no key material"
  }
  assert {
    condition = (
      !contains(keys(yamldecode(output.ansible_inventory_single).all.children), "masters") &&
      keys(yamldecode(output.ansible_inventory_single).all.hosts) == ["client1", "rs1"] &&
      keys(yamldecode(output.ansible_inventory_single).all.children.regionservers.hosts) == ["rs1"]
    )
    error_message = "the single inventory is one standalone region server and one client, no master"
  }
}

run "local_nvme_instead_of_gp3" {
  command = plan

  variables {
    instance_type  = "c6id.2xlarge"
    data_disk      = "instance-store"
    region_servers = 1
  }

  assert {
    condition     = length(aws_ebs_volume.data) == 0 && alltrue([for i in aws_instance.node : i.instance_type == "c6id.2xlarge"]) && length(aws_instance.node) == 3
    error_message = "instance-store: no EBS data volume, c6id nodes"
  }
  assert {
    condition     = yamldecode(output.ansible_inventory).all.hosts.rs1.heaplab_data_device == "/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_*"
    error_message = "the data device is the instance's NVMe disk, resolved on the node"
  }
  assert {
    condition     = abs(output.estimated_cost_per_hour - 3 * (0.4032 + 20 * 0.08 / 730)) < 1e-9
    error_message = "cost counts c6id's price and the root volumes only"
  }
}

run "a_class_shares_a_given_subnet" {
  command = plan

  variables {
    network = { vpc_id = "vpc-0feedbeef0000000", subnet_id = "subnet-0feedbeef0000000" }
  }

  assert {
    condition     = length(module.network) == 0 && alltrue([for i in aws_instance.node : i.subnet_id == "subnet-0feedbeef0000000"])
    error_message = "given a network, the module makes none of its own"
  }
  assert {
    condition     = aws_security_group.cluster.vpc_id == "vpc-0feedbeef0000000"
    error_message = "the security group lives in the given subnet's VPC"
  }
}

run "ssh_from_anywhere_is_refused" {
  command = plan
  variables {
    ssh_cidr = "0.0.0.0/0"
  }
  expect_failures = [var.ssh_cidr]
}

run "a_malformed_cidr_is_refused" {
  command = plan
  variables {
    ssh_cidr = "my-laptop"
  }
  expect_failures = [var.ssh_cidr]
}

run "instance_store_needs_a_local_nvme_type" {
  command = plan
  variables {
    data_disk = "instance-store"
  }
  expect_failures = [var.data_disk]
}

run "only_8_vcpu_16_gib_x86_types" {
  command = plan
  variables {
    instance_type = "c7g.2xlarge"
  }
  expect_failures = [var.instance_type]
}

run "a_key_that_is_not_a_public_key_is_refused" {
  command = plan
  variables {
    ssh_public_key = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB"
  }
  expect_failures = [var.ssh_public_key]
}
