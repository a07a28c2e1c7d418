output "ansible_inventory" {
  description = "terraform output -raw ansible_inventory > cluster.yml: the whole cluster (lab 10, cluster runs)."
  value       = module.cluster.ansible_inventory
}

output "ansible_inventory_single" {
  description = "terraform output -raw ansible_inventory_single > single.yml: one region server and one client (labs 01-09, 11 on the big hosts)."
  value       = module.cluster.ansible_inventory_single
}

output "ssh_commands" {
  description = "How to log in to each node."
  value       = module.cluster.ssh_commands
}

output "nodes" {
  description = "Each node's role, addresses and instance id."
  value       = module.cluster.nodes
}

output "estimated_cost_per_hour" {
  description = "USD per hour while the nodes exist (on-demand list prices; an estimate). Destroy when done."
  value       = module.cluster.estimated_cost_per_hour
}
