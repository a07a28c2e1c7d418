# NOT VALIDATED OFFLINE. The articles' own cloud: Alibaba Cloud ecs.c6.2xlarge (8 vCPU, 16 GiB) with a
# cloud_essd PL1 data disk. The aliyun/alicloud provider is not in this repository's offline provider
# mirror, so only `terraform fmt` runs on this file in `make test`: validate it yourself with
# `terraform init && terraform validate` online before relying on it. See README.md.

terraform {
  required_version = ">= 1.9"

  required_providers {
    alicloud = {
      source  = "aliyun/alicloud"
      version = "~> 1.230"
    }
  }
}

provider "alicloud" {
  region = var.region
}

variable "region" {
  description = "Alibaba Cloud region."
  type        = string
  default     = "cn-hangzhou"
}

variable "student" {
  description = "Your name, lower case (tags, names)."
  type        = string
}

variable "ssh_cidr" {
  description = "Your address range for ssh, e.g. 203.0.113.7/32; never 0.0.0.0/0."
  type        = string

  validation {
    condition     = can(cidrhost(var.ssh_cidr, 0)) && var.ssh_cidr != "0.0.0.0/0"
    error_message = "ssh_cidr must be your own address range, not 0.0.0.0/0."
  }
}

variable "ssh_public_key_file" {
  description = "Your ssh public key file."
  type        = string
  default     = "~/.ssh/id_ed25519.pub"
}

variable "nodes" {
  description = "Node names and roles: a master, region servers, clients."
  type        = map(string)
  default     = { master = "master", rs1 = "regionserver", rs2 = "regionserver", rs3 = "regionserver", client1 = "client" }
}

data "alicloud_zones" "available" {
  available_instance_type = "ecs.c6.2xlarge"
  available_disk_category = "cloud_essd"
}

data "alicloud_images" "ubuntu" {
  name_regex  = "^ubuntu_22_04_x64"
  owners      = "system"
  most_recent = true
}

resource "alicloud_vpc" "this" {
  vpc_name   = "hl-${var.student}"
  cidr_block = "10.42.0.0/16"
}

resource "alicloud_vswitch" "this" {
  vpc_id       = alicloud_vpc.this.id
  cidr_block   = "10.42.16.0/20"
  zone_id      = data.alicloud_zones.available.zones[0].id
  vswitch_name = "hl-${var.student}"
}

resource "alicloud_security_group" "this" {
  security_group_name = "hl-${var.student}"
  vpc_id              = alicloud_vpc.this.id
}

resource "alicloud_security_group_rule" "ssh" {
  type              = "ingress"
  ip_protocol       = "tcp"
  port_range        = "22/22"
  cidr_ip           = var.ssh_cidr
  security_group_id = alicloud_security_group.this.id
}

resource "alicloud_security_group_rule" "cluster" {
  type                     = "ingress"
  ip_protocol              = "tcp"
  port_range               = "16000/16030"
  source_security_group_id = alicloud_security_group.this.id
  security_group_id        = alicloud_security_group.this.id
}

resource "alicloud_ecs_key_pair" "this" {
  key_pair_name = "hl-${var.student}"
  public_key    = trimspace(file(pathexpand(var.ssh_public_key_file)))
}

resource "alicloud_instance" "node" {
  for_each = var.nodes

  instance_name              = "hl-${var.student}-${each.key}"
  instance_type              = "ecs.c6.2xlarge"
  image_id                   = data.alicloud_images.ubuntu.images[0].id
  vswitch_id                 = alicloud_vswitch.this.id
  security_groups            = [alicloud_security_group.this.id]
  key_name                   = alicloud_ecs_key_pair.this.key_pair_name
  internet_max_bandwidth_out = 10
  system_disk_category       = "cloud_essd"
  system_disk_size           = 40
  tags                       = { Project = "heaplab", Student = var.student, Role = each.value }

  data_disks {
    category          = "cloud_essd"
    performance_level = "PL1"
    size              = 100
  }
}

output "nodes" {
  description = "Each node's public and private address (write an inventory in the format of playbooks/inventories/terraform/example.yml)."
  value       = { for n, i in alicloud_instance.node : n => { public_ip = i.public_ip, private_ip = i.private_ip } }
}
