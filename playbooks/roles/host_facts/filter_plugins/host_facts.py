"""Filters that reduce gathered facts to the fields of a HeapLab host record."""

import os


def host_facts_cpu_model(processor):
    """The model name from ansible_facts.processor.

    On x86 the list repeats [index, vendor, model] per logical CPU; on ARM it is
    [index, model] or only the model. The model is the first entry that is
    neither an index nor a bare vendor id.
    """
    vendors = {"GenuineIntel", "AuthenticAMD", "HygonGenuine", "CentaurHauls"}
    for entry in processor or []:
        text = str(entry).strip()
        if text and not text.isdigit() and text not in vendors:
            return text
    return "unknown"


def host_facts_filesystem(mounts, devices, path):
    """The filesystem holding path: the mount with the longest prefix of path.

    path need not exist yet. rotational comes from the block device (sysfs); virtual
    disks (virtio) often report rotational whatever the backing media, so it is a hint.
    """
    path = os.path.normpath(path or "/")
    best = None
    for mount in mounts or []:
        point = mount.get("mount", "")
        prefix = point.rstrip("/") + "/"
        if (path == point or (path + "/").startswith(prefix)) and (
            best is None or len(point) > len(best["mount"])
        ):
            best = mount
    if best is None:
        return {"mount": None, "device": None, "type": None, "size_bytes": None, "rotational": None}
    device = best.get("device", "")
    name = device.rsplit("/", 1)[-1]
    rotational = None
    for dev_name, dev in (devices or {}).items():
        if name == dev_name or name in (dev.get("partitions") or {}):
            rotational = dev.get("rotational") == "1"
            break
    return {
        "mount": best.get("mount"),
        "device": device,
        "type": best.get("fstype"),
        "size_bytes": best.get("size_total"),
        "rotational": rotational,
    }


class FilterModule:
    """Host record filters."""

    def filters(self):
        return {
            "host_facts_cpu_model": host_facts_cpu_model,
            "host_facts_filesystem": host_facts_filesystem,
        }
