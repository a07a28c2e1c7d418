#!/usr/bin/python
"""The engine_config role's one step on the host: an empty working directory with the variant's files.

Removing the previous run's directory, creating the new directories and writing each configuration file
were a module run each (a template task is two: a stat, then the copy), about 0.4 s apiece on a small
machine, for every variant of every run. The role renders the files on the controller (the template
lookup) and hands them here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ansible.module_utils.basic import AnsibleModule

DOCUMENTATION = r"""
module: engine_config_workdir
short_description: Empty a working directory, create its subdirectories and write its files
description:
  - Removes I(path) with everything in it, creates the directories of I(dirs) below it, then writes each
    file of I(files) through a temporary file and a rename. Always reports a change.
options:
  path:
    description: The working directory (absolute). The role checks it before calling this.
    type: path
    required: true
  data_dir:
    description: A directory outside I(path) (the region server's own data disk or mount) whose contents are
      removed, the directory itself kept (a mount point cannot be removed), and created when missing.
    type: str
    default: ""
  dirs:
    description: Directories to create below I(path) (relative paths), mode 0755.
    type: list
    elements: str
    default: []
  files:
    description: The files, each a dict with C(path) (absolute, below I(path)) and C(content) (text);
      mode 0644.
    type: list
    elements: dict
    default: []
"""

RETURN = r"""
written:
  description: The files written.
  type: list
  returned: always
"""


def write(path: Path, content: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(content, encoding="utf-8")
    tmp.chmod(0o644)
    tmp.replace(path)


def empty(directory: Path) -> None:
    """Remove what ``directory`` holds, keep the directory (a mount point); create it when missing."""
    directory.mkdir(mode=0o755, parents=True, exist_ok=True)
    for entry in directory.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "path": {"type": "path", "required": True},
            "data_dir": {"type": "str", "default": ""},
            "dirs": {"type": "list", "elements": "str", "default": []},
            "files": {"type": "list", "elements": "dict", "default": []},
        },
        supports_check_mode=True,
    )
    root = Path(module.params["path"])
    files = []
    for entry in module.params["files"]:
        name, content = entry.get("path"), entry.get("content")
        if not isinstance(name, str) or not isinstance(content, str) or root not in Path(name).parents:
            module.fail_json(msg=f"each file needs a 'path' below {root} and a text 'content', got {entry!r}")
        files.append((Path(name), content))
    if module.check_mode:
        module.exit_json(changed=True, written=[str(p) for p, _ in files])
    try:
        if root.exists():
            shutil.rmtree(root)
        if module.params["data_dir"]:
            empty(Path(module.params["data_dir"]))
        for d in module.params["dirs"]:
            (root / d).mkdir(mode=0o755, parents=True, exist_ok=True)
        for path, content in files:
            write(path, content)
    except OSError as e:
        module.fail_json(msg=f"cannot prepare {root}: {e}")
    module.exit_json(changed=True, written=[str(p) for p, _ in files])


if __name__ == "__main__":
    main()
