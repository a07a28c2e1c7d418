# One student's HeapLab cluster on AWS. Copy terraform.tfvars.example to terraform.tfvars, fill it in,
# then (from the repository root):
#   infra/terraform/tf -chdir=infra/terraform/student init | plan | apply | destroy
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

module "cluster" {
  source = "../modules/aws-cluster"

  name                 = "hl-${var.student}"
  student              = var.student
  course               = var.course
  region_servers       = var.region_servers
  clients              = var.clients
  instance_type        = var.instance_type
  data_disk            = var.data_disk
  data_volume_size_gb  = var.data_volume_size_gb
  ssh_cidr             = var.ssh_cidr
  ssh_public_key       = file(pathexpand(var.ssh_public_key_file))
  ssh_private_key_file = var.ssh_private_key_file
}
