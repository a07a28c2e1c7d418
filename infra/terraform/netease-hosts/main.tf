# The NetEase report's hosts (lab 10, "HBase benchmark report"): 4 region servers of 32 vCPU / 128 GiB,
# the size its latency claims need (`needs: {cores: 32, memory_gb: 64}`), with a master and 2 YCSB clients
# of the same type. The sizes are the "netease-hosts" entry of ../presets.json, which heaplab reads too
# (heaplab/presets.py): change them there. About 11 USD an hour while it exists. From the repository root:
#   infra/terraform/tf -chdir=infra/terraform/netease-hosts init | plan | apply | destroy
# AWS credentials come from your environment (aws configure, AWS_PROFILE, ...), never from a file here.

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
  preset = jsondecode(file("${path.module}/../presets.json")).presets["netease-hosts"]
}

module "cluster" {
  source = "../modules/aws-cluster"

  name                 = "hl32-${var.student}"
  student              = var.student
  course               = var.course
  region_servers       = local.preset.region_servers
  clients              = local.preset.clients
  instance_type        = local.preset.instance_type
  data_disk            = "ebs"
  data_volume_size_gb  = local.preset.data_volume_size_gb
  root_volume_size_gb  = local.preset.root_volume_size_gb
  ssh_cidr             = var.ssh_cidr
  ssh_public_key       = file(pathexpand(var.ssh_public_key_file))
  ssh_private_key_file = var.ssh_private_key_file
}
