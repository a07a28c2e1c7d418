# The data disk: a gp3 volume per node (data_disk = "ebs"), or the instance's own NVMe disk
# (data_disk = "instance-store", nothing to create). playbooks/roles/data_disk formats and mounts it.

resource "aws_ebs_volume" "data" {
  for_each = var.data_disk == "ebs" ? local.node_roles : {}

  availability_zone = aws_instance.node[each.key].availability_zone
  type              = "gp3"
  size              = var.data_volume_size_gb
  iops              = var.data_volume_iops
  throughput        = var.data_volume_throughput
  encrypted         = true
  tags              = merge(local.tags, { Name = "${var.name}-${each.key}-data" })
}

resource "aws_volume_attachment" "data" {
  for_each = aws_ebs_volume.data

  device_name = "/dev/sdf"
  volume_id   = each.value.id
  instance_id = aws_instance.node[each.key].id
}

locals {
  # On Nitro instances an EBS volume is an NVMe device named after its volume id (without the dash);
  # an instance-store disk by its model, resolved on the node by the data_disk role.
  data_device = {
    for n in local.node_names : n => (
      var.data_disk == "ebs"
      ? "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${replace(aws_ebs_volume.data[n].id, "-", "")}"
      : "/dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_*"
    )
  }
}
