# One HeapLab cluster on AWS: a master, region servers and clients, all of one instance type: the articles'
# 8-vCPU / 16 GiB node, or the NetEase report's 32-vCPU hosts (../../netease-hosts).

variable "name" {
  description = "The cluster's name: prefix of every resource's Name tag and of the key pair (letters, digits, dashes)."
  type        = string

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9-]{0,30}$", var.name))
    error_message = "name must be 1 to 31 lower-case letters, digits or dashes, starting with a letter or digit."
  }
}

variable "student" {
  description = "Who the cluster belongs to (tag Student)."
  type        = string
}

variable "course" {
  description = "The course or lab session (tag Course)."
  type        = string
  default     = "heaplab"
}

variable "region_servers" {
  description = "How many region-server nodes (the off-heap article: 1; the NetEase report: 4)."
  type        = number
  default     = 3

  validation {
    condition     = var.region_servers >= 1 && var.region_servers <= 16 && floor(var.region_servers) == var.region_servers
    error_message = "region_servers must be a whole number from 1 to 16."
  }
}

variable "clients" {
  description = "How many client nodes that run pe and YCSB (the NetEase report needed 6 for 4 region servers)."
  type        = number
  default     = 1

  validation {
    condition     = var.clients >= 1 && var.clients <= 16 && floor(var.clients) == var.clients
    error_message = "clients must be a whole number from 1 to 16."
  }
}

variable "instance_type" {
  description = "An x86 type of every node: 8 vCPU / 16 GiB, the articles' node (c6i.2xlarge by default; c5d/c6id.2xlarge have a local NVMe disk, data_disk = \"instance-store\"), or 32 vCPU / 128 GiB, the NetEase report's hosts (m6i.8xlarge in netease-hosts; m5d/m6id.8xlarge have a local NVMe disk)."
  type        = string
  default     = "c6i.2xlarge"

  validation {
    condition = contains([
      "c5.2xlarge", "c5a.2xlarge", "c5d.2xlarge", "c6i.2xlarge", "c6a.2xlarge", "c6id.2xlarge", "c7i.2xlarge", "c7a.2xlarge",
      "m5.8xlarge", "m5d.8xlarge", "m6i.8xlarge", "m6a.8xlarge", "m6id.8xlarge", "m7i.8xlarge",
    ], var.instance_type)
    error_message = "instance_type must be an x86 8 vCPU / 16 GiB type (c5, c5a, c5d, c6i, c6a, c6id, c7i or c7a .2xlarge) or a 32 vCPU / 128 GiB one (m5, m5d, m6i, m6a, m6id or m7i .8xlarge); Graviton types need an arm64 image: not offered."
  }
}

variable "data_disk" {
  description = "Where the engine's data lives: \"ebs\" (a gp3 volume per node) or \"instance-store\" (the local NVMe disk of c5d/c6id.2xlarge, m5d/m6id.8xlarge)."
  type        = string
  default     = "ebs"

  validation {
    condition     = contains(["ebs", "instance-store"], var.data_disk)
    error_message = "data_disk must be \"ebs\" or \"instance-store\"."
  }

  validation {
    condition     = var.data_disk != "instance-store" || contains(["c5d.2xlarge", "c6id.2xlarge", "m5d.8xlarge", "m6id.8xlarge"], var.instance_type)
    error_message = "data_disk = \"instance-store\" needs an instance type with a local NVMe disk: c5d.2xlarge, c6id.2xlarge, m5d.8xlarge or m6id.8xlarge."
  }
}

variable "data_volume_size_gb" {
  description = "Size of each node's gp3 data volume (GiB), when data_disk is \"ebs\"."
  type        = number
  default     = 100

  validation {
    condition     = var.data_volume_size_gb >= 20 && var.data_volume_size_gb <= 16384
    error_message = "data_volume_size_gb must be between 20 and 16384 GiB."
  }
}

variable "data_volume_iops" {
  description = "gp3 IOPS of the data volume (3000 is gp3's free baseline)."
  type        = number
  default     = 3000
}

variable "data_volume_throughput" {
  description = "gp3 throughput of the data volume in MB/s (125 is gp3's free baseline)."
  type        = number
  default     = 125
}

variable "root_volume_size_gb" {
  description = "Size of each node's gp3 root volume (GiB): the OS, the JDK and the engine."
  type        = number
  default     = 20
}

variable "ssh_cidr" {
  description = "The address range allowed to ssh in: yours, e.g. 203.0.113.7/32. Never the whole internet."
  type        = string

  validation {
    condition     = can(cidrhost(var.ssh_cidr, 0)) && !contains(["0.0.0.0/0", "::/0"], var.ssh_cidr)
    error_message = "ssh_cidr must be a CIDR of your own address range (e.g. 203.0.113.7/32), not 0.0.0.0/0 or ::/0."
  }
}

variable "ssh_public_key" {
  description = "The student's ssh PUBLIC key (the content of e.g. ~/.ssh/id_ed25519.pub). The private key never leaves the student's machine."
  type        = string

  validation {
    condition     = can(regex("^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256|ecdsa-sha2-nistp384|ecdsa-sha2-nistp521) [A-Za-z0-9+/=]+", trimspace(var.ssh_public_key)))
    error_message = "ssh_public_key must be an OpenSSH public key line (ssh-ed25519 AAAA..., ssh-rsa AAAA...), not a private key."
  }
}

variable "ssh_private_key_file" {
  description = "PATH of the matching private key on the student's machine, written into the ansible inventory (the path only, never the key)."
  type        = string
  default     = "~/.ssh/id_ed25519"
}

variable "cluster_ports" {
  description = "TCP ports the nodes open to each other only: hbase.master.port, hbase.regionserver.port and their info ports."
  type        = list(number)
  default     = [16000, 16010, 16020, 16030]
}

variable "ami_id" {
  description = "An Ubuntu 22.04 amd64 image id; empty: the newest one Canonical publishes in the region."
  type        = string
  default     = ""
}

variable "network" {
  description = "An existing VPC and public subnet to use (a class shares one); null: the module makes its own. An object, not two strings, so that whether to make a network is known before the class's network exists."
  type = object({
    vpc_id    = string
    subnet_id = string
  })
  default = null
}

variable "vpc_cidr" {
  description = "Address range of the VPC the module makes (when network is null)."
  type        = string
  default     = "10.42.0.0/16"
}

variable "availability_zone" {
  description = "Availability zone of the subnet the module makes; empty: AWS picks one."
  type        = string
  default     = ""
}

variable "price_per_hour" {
  description = "On-demand Linux price per hour (USD) by instance type, for the cost estimate. us-east-1 list prices as known in 2025: check https://aws.amazon.com/ec2/pricing/on-demand/ for your region."
  type        = map(number)
  default = {
    "c5.2xlarge"   = 0.34
    "c5a.2xlarge"  = 0.308
    "c5d.2xlarge"  = 0.384
    "c6i.2xlarge"  = 0.34
    "c6a.2xlarge"  = 0.306
    "c6id.2xlarge" = 0.4032
    "c7i.2xlarge"  = 0.357
    "c7a.2xlarge"  = 0.41056
    "m5.8xlarge"   = 1.536
    "m5d.8xlarge"  = 1.808
    "m6i.8xlarge"  = 1.536
    "m6a.8xlarge"  = 1.3824
    "m6id.8xlarge" = 1.8984
    "m7i.8xlarge"  = 1.6128
  }
}

variable "gp3_price_per_gb_month" {
  description = "gp3 storage price per GiB-month (USD; us-east-1 list price 0.08). IOPS and throughput above the free baseline cost extra and are not counted."
  type        = number
  default     = 0.08
}
