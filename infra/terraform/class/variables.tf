variable "region" {
  description = "AWS region of every cluster."
  type        = string
  default     = "us-east-1"
}

variable "course" {
  description = "The course (tag Course, and the network's name hl-<course>)."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]{0,27}$", var.course))
    error_message = "course must be 1 to 28 lower-case letters, digits or dashes."
  }
}

variable "roster_file" {
  description = "The class CSV: student,ssh_cidr,ssh_public_key_file[,region_servers,clients,ssh_private_key_file] (roster.csv.example)."
  type        = string
  default     = "roster.csv"

  validation {
    condition     = fileexists(var.roster_file)
    error_message = "roster_file: no such file (copy roster.csv.example to roster.csv and fill it in)."
  }

  validation {
    condition = alltrue([
      for r in csvdecode(file(var.roster_file)) :
      can(regex("^[a-z0-9][a-z0-9-]{0,27}$", r.student)) && fileexists(pathexpand(r.ssh_public_key_file))
    ])
    error_message = "roster: every row needs a student (1 to 28 lower-case letters, digits or dashes) and an existing ssh_public_key_file."
  }

  validation {
    condition = alltrue([
      for r in csvdecode(file(var.roster_file)) :
      can(cidrhost(r.ssh_cidr, 0)) && !contains(["0.0.0.0/0", "::/0"], r.ssh_cidr)
    ])
    error_message = "roster: every ssh_cidr must be the student's own address range (e.g. 203.0.113.7/32), never 0.0.0.0/0 or ::/0."
  }
}

variable "region_servers" {
  description = "Region servers per student, unless the roster says otherwise."
  type        = number
  default     = 1
}

variable "clients" {
  description = "Clients per student, unless the roster says otherwise."
  type        = number
  default     = 1
}

variable "ssh_private_key_file" {
  description = "The private key path written into a student's inventory when the roster gives none (the path on the student's machine)."
  type        = string
  default     = "~/.ssh/id_ed25519"
}

variable "instance_type" {
  description = "8 vCPU / 16 GiB x86 type of every node."
  type        = string
  default     = "c6i.2xlarge"
}

variable "data_disk" {
  description = "\"ebs\" or \"instance-store\"."
  type        = string
  default     = "ebs"
}

variable "data_volume_size_gb" {
  description = "gp3 data volume per node, GiB."
  type        = number
  default     = 100
}
