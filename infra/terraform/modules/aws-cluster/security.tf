# ssh only from the student's address range; the engine's ports only between the cluster's own nodes.

resource "aws_security_group" "cluster" {
  name        = "${var.name}-cluster"
  description = "HeapLab ${var.name}: ssh from the student, cluster ports within the group"
  vpc_id      = local.vpc_id
  tags        = merge(local.tags, { Name = "${var.name}-cluster" })
}

resource "aws_vpc_security_group_ingress_rule" "ssh" {
  security_group_id = aws_security_group.cluster.id
  description       = "ssh from the student's address range"
  ip_protocol       = "tcp"
  from_port         = 22
  to_port           = 22
  cidr_ipv4         = strcontains(var.ssh_cidr, ":") ? null : var.ssh_cidr
  cidr_ipv6         = strcontains(var.ssh_cidr, ":") ? var.ssh_cidr : null
  tags              = local.tags
}

resource "aws_vpc_security_group_ingress_rule" "cluster" {
  for_each = toset([for p in var.cluster_ports : tostring(p)])

  security_group_id            = aws_security_group.cluster.id
  description                  = "engine port ${each.value} from the cluster's own nodes"
  ip_protocol                  = "tcp"
  from_port                    = tonumber(each.value)
  to_port                      = tonumber(each.value)
  referenced_security_group_id = aws_security_group.cluster.id
  tags                         = local.tags
}

# Out: apt (the JDK), and nothing else the engine needs; ansible copies the engine over ssh.
resource "aws_vpc_security_group_egress_rule" "all" {
  security_group_id = aws_security_group.cluster.id
  description       = "packages"
  ip_protocol       = "-1"
  cidr_ipv4         = "0.0.0.0/0"
  tags              = local.tags
}
