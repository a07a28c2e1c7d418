# A VPC with one public subnet: nodes get a public address for ssh and apt, and talk to each other on
# their private ones. A class shares one network (AWS allows 5 VPCs per region by default).

terraform {
  required_version = ">= 1.9"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}

variable "name" {
  description = "Prefix of the Name tags."
  type        = string
}

variable "cidr" {
  description = "The VPC's address range; the subnet is its second /20 (4091 addresses: a class of 40 five-node clusters fits many times)."
  type        = string
  default     = "10.42.0.0/16"
}

variable "availability_zone" {
  description = "The subnet's availability zone; empty: AWS picks one."
  type        = string
  default     = ""
}

variable "tags" {
  description = "Tags of every resource."
  type        = map(string)
  default     = {}
}

resource "aws_vpc" "this" {
  cidr_block           = var.cidr
  enable_dns_support   = true
  enable_dns_hostnames = true
  tags                 = merge(var.tags, { Name = "${var.name}-vpc" })
}

resource "aws_internet_gateway" "this" {
  vpc_id = aws_vpc.this.id
  tags   = merge(var.tags, { Name = "${var.name}-igw" })
}

resource "aws_subnet" "public" {
  vpc_id                  = aws_vpc.this.id
  cidr_block              = cidrsubnet(var.cidr, 4, 1)
  availability_zone       = var.availability_zone == "" ? null : var.availability_zone
  map_public_ip_on_launch = true
  tags                    = merge(var.tags, { Name = "${var.name}-public" })
}

resource "aws_route_table" "public" {
  vpc_id = aws_vpc.this.id
  tags   = merge(var.tags, { Name = "${var.name}-public" })

  route {
    cidr_block = "0.0.0.0/0"
    gateway_id = aws_internet_gateway.this.id
  }
}

resource "aws_route_table_association" "public" {
  subnet_id      = aws_subnet.public.id
  route_table_id = aws_route_table.public.id
}

output "subnet_id" {
  description = "The public subnet."
  value       = aws_subnet.public.id
}

output "vpc_id" {
  description = "The VPC."
  value       = aws_vpc.this.id
}
