# The nodes: one master, var.region_servers region servers, var.clients clients, all of one type.

locals {
  tags = {
    Project = "heaplab"
    Course  = var.course
    Student = var.student
    Cluster = var.name
  }

  # In inventory order: the master, the region servers, the clients.
  node_names = concat(
    ["master"],
    [for i in range(var.region_servers) : "rs${i + 1}"],
    [for i in range(var.clients) : "client${i + 1}"],
  )
  node_roles = merge(
    { master = "master" },
    { for i in range(var.region_servers) : "rs${i + 1}" => "regionserver" },
    { for i in range(var.clients) : "client${i + 1}" => "client" },
  )

  ami_id = var.ami_id != "" ? var.ami_id : data.aws_ami.ubuntu[0].id
}

data "aws_ami" "ubuntu" {
  count       = var.ami_id == "" ? 1 : 0
  most_recent = true
  owners      = ["099720109477"] # Canonical

  filter {
    name   = "name"
    values = ["ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-*"]
  }

  filter {
    name   = "virtualization-type"
    values = ["hvm"]
  }
}

resource "aws_key_pair" "student" {
  key_name   = "${var.name}-key"
  public_key = trimspace(var.ssh_public_key)
  tags       = local.tags
}

resource "aws_instance" "node" {
  for_each = local.node_roles

  ami                         = local.ami_id
  instance_type               = var.instance_type
  subnet_id                   = local.subnet_id
  vpc_security_group_ids      = [aws_security_group.cluster.id]
  key_name                    = aws_key_pair.student.key_name
  associate_public_ip_address = true
  tags                        = merge(local.tags, { Name = "${var.name}-${each.key}", Role = each.value })
  volume_tags                 = merge(local.tags, { Name = "${var.name}-${each.key}-root" })

  root_block_device {
    volume_type           = "gp3"
    volume_size           = var.root_volume_size_gb
    encrypted             = true
    delete_on_termination = true
  }

  # IMDSv2 only: instance credentials cannot be read by a plain GET from a process on the node.
  metadata_options {
    http_tokens = "required"
  }
}
