# The cluster's own network, unless it is given one (a class shares one).

module "network" {
  source = "../aws-network"
  count  = var.network == null ? 1 : 0

  name              = var.name
  cidr              = var.vpc_cidr
  availability_zone = var.availability_zone
  tags              = local.tags
}

locals {
  subnet_id = var.network == null ? module.network[0].subnet_id : var.network.subnet_id
  vpc_id    = var.network == null ? module.network[0].vpc_id : var.network.vpc_id
}
