variable "region" {
  description = "AWS region of the cluster."
  type        = string
  default     = "us-east-1"
}

variable "student" {
  description = "Your name or user id, lower case (tags, and the cluster name hl-<student>)."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]{0,27}$", var.student))
    error_message = "student must be 1 to 28 lower-case letters, digits or dashes."
  }
}

variable "course" {
  description = "The course or lab session (tag Course)."
  type        = string
  default     = "heaplab"
}

variable "ssh_cidr" {
  description = "Your address range, allowed to ssh in: e.g. 203.0.113.7/32 (curl -s https://checkip.amazonaws.com)."
  type        = string
}

variable "ssh_public_key_file" {
  description = "Your ssh public key file; only the public key goes to AWS."
  type        = string
  default     = "~/.ssh/id_ed25519.pub"
}

variable "ssh_private_key_file" {
  description = "The matching private key's path on your machine, written into the inventory (the path, never the key)."
  type        = string
  default     = "~/.ssh/id_ed25519"
}

variable "region_servers" {
  description = "Region-server nodes (lab 10: 3 or 4; the single inventory uses the first one)."
  type        = number
  default     = 3
}

variable "clients" {
  description = "Client nodes that run pe and YCSB."
  type        = number
  default     = 1
}

variable "instance_type" {
  description = "8 vCPU / 16 GiB x86: c6i.2xlarge (default), or c6id.2xlarge with data_disk = \"instance-store\"."
  type        = string
  default     = "c6i.2xlarge"
}

variable "data_disk" {
  description = "\"ebs\" (gp3 per node) or \"instance-store\" (c5d/c6id local NVMe)."
  type        = string
  default     = "ebs"
}

variable "data_volume_size_gb" {
  description = "gp3 data volume per node, GiB."
  type        = number
  default     = 100
}
