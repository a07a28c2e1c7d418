#!/usr/bin/python
"""The file system under each of some paths and its free space, for a variant that failed (a full disk is
then named in one line by heaplab.disk_full). Read only; the answer travels in the module's result."""

from __future__ import annotations

import os
from pathlib import Path

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: disk_space
short_description: The file system holding each path and its free space (statvfs)
description:
  - For each of I(paths), the nearest existing directory's mount point, device, type, size and the bytes
    an unprivileged process may still write (f_bavail). Never changes anything.
options:
  paths:
    description: Absolute paths (missing ones are measured at their nearest existing parent).
    type: list
    elements: str
    required: true
"""

RETURN = r"""
disks:
  description: One entry per path, in order, with path, mount, device, type, size_bytes, free_bytes.
  type: list
  returned: always
"""


def _existing(path: str) -> Path:
    where = Path(path)
    while not where.exists() and where != where.parent:
        where = where.parent
    return where


def _mount_point(path: Path) -> str:
    point = path.resolve()
    while not point.is_mount() and point != point.parent:
        point = point.parent
    return str(point)


def _mounts() -> dict[str, tuple[str, str]]:
    """mount point -> (device, type), the last mount on each point winning (as the kernel shows it)."""
    found = {}
    try:
        lines = Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines()
    except OSError:
        return found
    for line in lines:
        fields = line.split()
        if len(fields) >= 3:
            found[fields[1].replace("\\040", " ")] = (fields[0], fields[2])
    return found


def measure(path: str, mounts: dict[str, tuple[str, str]]) -> dict:
    where = _existing(path)
    st = os.statvfs(where)
    mount = _mount_point(where)
    device, fstype = mounts.get(mount, ("", ""))
    return {
        "path": path,
        "mount": mount,
        "device": device,
        "type": fstype,
        "size_bytes": st.f_blocks * st.f_frsize,
        "free_bytes": st.f_bavail * st.f_frsize,
    }


def main() -> None:
    module = AnsibleModule(
        argument_spec={"paths": {"type": "list", "elements": "str", "required": True}},
        supports_check_mode=True,
    )
    mounts = _mounts()
    try:
        disks = [measure(p, mounts) for p in module.params["paths"]]
    except OSError as e:
        module.fail_json(msg=f"cannot measure the free space: {e}")
    module.exit_json(changed=False, disks=disks)


if __name__ == "__main__":
    main()
