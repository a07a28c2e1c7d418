"""Where things live in a HeapLab checkout.

The repository root is found once (``--root``, else ``$HEAPLAB_ROOT``, else the nearest directory above
the current one that holds ``labs/`` and ``pyproject.toml``) and every other path derives from it, so the
CLI works from any subdirectory and tests can point it at a temporary tree.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_INVENTORY = Path("playbooks/inventories/local/hosts.yml")
DEFAULT_RUNS_DIR = Path("results/runs")
DEFAULT_SUBMISSIONS_DIR = Path("results/submissions")  # heaplab submit: the zips to hand in
REFERENCE_DIR = Path("results/reference")  # the committed reference series (results/reference/README.md)
PLAYBOOK = Path("playbooks/variant.yml")
STOP_PLAYBOOK = Path("playbooks/stop.yml")
ANSIBLE_CFG = Path("playbooks/ansible.cfg")
DIST_GLOB = "engine/dist/target/heaplab-engine-*-bin.tar.gz"
PUBLISHED_CSV = Path("results/published/published_results.csv")
LABS_DIR = Path("labs")
SPEC_NAME = "experiment.yml"


def find_root(explicit: str | os.PathLike[str] | None = None) -> Path:
    """Return the repository root (see the module docstring for the search order)."""
    if explicit:
        return Path(explicit).resolve()
    env = os.environ.get("HEAPLAB_ROOT")
    if env:
        return Path(env).resolve()
    here = Path.cwd().resolve()
    for candidate in (here, *here.parents):
        if (candidate / LABS_DIR).is_dir() and (candidate / "pyproject.toml").is_file():
            return candidate
    # An installed package used outside a checkout: fall back to the source tree it came from.
    return Path(__file__).resolve().parent.parent


def under(root: Path, value: str | None, default: Path) -> Path:
    """A directory a command was given (``value``), else ``default`` under the checkout ``root``; absolute."""
    path = Path(value) if value else root / default
    return path.resolve()


def find_dist_archive(root: Path) -> Path | None:
    """The newest engine distribution archive, or None when `make engine` has not run."""
    archives = sorted(root.glob(DIST_GLOB), key=lambda p: p.stat().st_mtime)
    return archives[-1] if archives else None
