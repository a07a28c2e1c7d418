output "ansible_inventories" {
  description = "Each student's whole-cluster inventory (write-inventories.sh writes them to files)."
  value       = { for s, c in module.cluster : s => c.ansible_inventory }
}

output "ansible_inventories_single" {
  description = "Each student's single-region-server inventory (labs 01-09, 11)."
  value       = { for s, c in module.cluster : s => c.ansible_inventory_single }
}

output "ssh_commands" {
  description = "Each student's ssh commands."
  value       = { for s, c in module.cluster : s => c.ssh_commands }
}

output "cost_per_hour_by_student" {
  description = "USD per hour of each student's cluster (on-demand list prices; an estimate)."
  value       = { for s, c in module.cluster : s => c.estimated_cost_per_hour }
}

output "estimated_cost_per_hour" {
  description = "USD per hour of the whole class while the nodes exist. Destroy when the session ends."
  value       = sum(concat([0], [for c in module.cluster : c.estimated_cost_per_hour]))
}
