# A class: one HeapLab cluster per student, from a CSV roster, in one shared network (AWS allows five
# VPCs per region by default, so a class cannot have one each). From the repository root:
#   infra/terraform/tf -chdir=infra/terraform/class init | plan | apply | destroy
#   infra/terraform/class/write-inventories.sh      # inventories/<student>.yml for each student

terraform {
  required_version = ">= 1.9"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}

provider "aws" {
  region = var.region
}

locals {
  # Columns: student, ssh_cidr, ssh_public_key_file; optional: region_servers, clients, ssh_private_key_file.
  roster = { for row in csvdecode(file(var.roster_file)) : row.student => row }
}

module "network" {
  source = "../modules/aws-network"

  name = "hl-${var.course}"
  tags = { Project = "heaplab", Course = var.course }
}

module "cluster" {
  source   = "../modules/aws-cluster"
  for_each = local.roster

  name                 = "hl-${each.key}"
  student              = each.key
  course               = var.course
  network              = { vpc_id = module.network.vpc_id, subnet_id = module.network.subnet_id }
  region_servers       = try(tonumber(each.value.region_servers), var.region_servers)
  clients              = try(tonumber(each.value.clients), var.clients)
  instance_type        = var.instance_type
  data_disk            = var.data_disk
  data_volume_size_gb  = var.data_volume_size_gb
  ssh_cidr             = each.value.ssh_cidr
  ssh_public_key       = file(pathexpand(each.value.ssh_public_key_file))
  ssh_private_key_file = try(coalesce(each.value.ssh_private_key_file), var.ssh_private_key_file)
}
