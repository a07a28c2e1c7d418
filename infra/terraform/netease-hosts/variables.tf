# Only who you are and where: the cluster's sizes are fixed by ../presets.json ("netease-hosts").

variable "region" {
  description = "AWS region of the cluster (the preset's price is us-east-1's)."
  type        = string
  default     = "us-east-1"
}

variable "student" {
  description = "Your name or user id, lower case (tags, and the cluster name hl32-<student>)."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]{0,25}$", var.student))
    error_message = "student must be 1 to 26 lower-case letters, digits or dashes."
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
