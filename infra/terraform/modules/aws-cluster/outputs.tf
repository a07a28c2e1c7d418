locals {
  region_server_names = [for n in local.node_names : n if local.node_roles[n] == "regionserver"]
  client_names        = [for n in local.node_names : n if local.node_roles[n] == "client"]

  node_addresses = {
    for n, i in aws_instance.node : n => { public_ip = i.public_ip, private_ip = i.private_ip }
  }

  # What both inventories share: the template fills in hosts and groups from the rest.
  inventory_template = "${path.module}/templates/inventory.yml.tftpl"
  inventory_common = {
    name     = var.name
    key_file = var.ssh_private_key_file
    nodes    = local.node_addresses
    devices  = local.data_device
  }

  # Every node runs all the time it exists: instance hours plus its volumes' GB-months spread over 730 hours.
  gb_per_node   = var.root_volume_size_gb + (var.data_disk == "ebs" ? var.data_volume_size_gb : 0)
  cost_per_node = lookup(var.price_per_hour, var.instance_type, 0) + local.gb_per_node * var.gp3_price_per_gb_month / 730
}

output "nodes" {
  description = "Each node's role, instance type, addresses and instance id."
  value = {
    for n, i in aws_instance.node : n => {
      role          = local.node_roles[n]
      instance_type = i.instance_type
      public_ip     = i.public_ip
      private_ip    = i.private_ip
      instance_id   = i.id
    }
  }
}

output "ssh_commands" {
  description = "How to log in to each node."
  value       = { for n, i in aws_instance.node : n => "ssh -i ${var.ssh_private_key_file} ubuntu@${i.public_ip}" }
}

output "ansible_inventory" {
  description = "The ansible inventory of the whole cluster (master, region servers, clients) for heaplab run --inventory and playbooks/provision.yml."
  value = templatefile(local.inventory_template, merge(local.inventory_common, {
    output        = "ansible_inventory"
    hosts         = local.node_names
    masters       = ["master"]
    regionservers = local.region_server_names
    clients       = local.client_names
  }))
}

output "ansible_inventory_single" {
  description = "One standalone region server (rs1) and one client (client1), no master: the off-heap article's setup, for labs 01-09 and 11."
  value = templatefile(local.inventory_template, merge(local.inventory_common, {
    output        = "ansible_inventory_single"
    hosts         = ["rs1", "client1"]
    masters       = []
    regionservers = ["rs1"]
    clients       = ["client1"]
  }))
}

output "estimated_cost_per_hour" {
  description = "USD per hour while the cluster exists: on-demand instance prices (var.price_per_hour) plus gp3 storage. An estimate: check the AWS price list for your region."
  value       = length(local.node_names) * local.cost_per_node
}

output "instance_price_known" {
  description = "False when var.price_per_hour has no price for the instance type (the estimate then counts storage only)."
  value       = contains(keys(var.price_per_hour), var.instance_type)
}
