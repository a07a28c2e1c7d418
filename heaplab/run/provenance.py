"""What a run records about where it came from: git commit and dirty flag, hosts, JDK."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

# What a student changes by following the handouts and that no run reads: the notebooks they answer in
# place. A change there does not make a run's checkout "modified" (heaplab submit refuses those).
NOT_RUN_INPUTS = ("notebooks/*.ipynb",)


def git_state(root: Path) -> dict[str, Any]:
    """{"commit": sha or None, "dirty": bool or None}: dirty when a tracked file other than NOT_RUN_INPUTS
    differs from the commit; None when root is not a git checkout."""
    excluded = [f":(exclude){pattern}" for pattern in NOT_RUN_INPUTS]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "--", ".", *excluded],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}
    return {"commit": commit, "dirty": bool(status.strip())}


def read_hosts(run_dir: Path) -> list[dict[str, Any]]:
    """The playbook's <run>/hosts/<host>.json facts, sorted by name; unreadable files are skipped."""
    hosts = []
    for path in sorted((run_dir / "hosts").glob("*.json")):
        try:
            hosts.append(json.loads(path.read_text(encoding="utf-8")))
        except ValueError:
            continue
    return hosts


def jdk_of(hosts: list[dict[str, Any]]) -> str | None:
    """The JDK version, or all distinct ones joined with "; " when hosts differ."""
    versions = sorted({str(h["jdk"]) for h in hosts if h.get("jdk")})
    return "; ".join(versions) if versions else None
