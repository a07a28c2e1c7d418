"""Whether the server hosts may make a network namespace, which an Apache HBase 1.x variant needs.

HBase 1.4's standalone server starts its ZooKeeper on the wildcard address, so two of them (or one beside
any other server) on a host would collide. infra/apache-hbase/bin/hbase-lab therefore runs a 1.x server in
a network namespace of its own holding only loopback (``unshare --net``; as a user other than root, inside
a user namespace of that user's: ``unshare --map-root-user --net``), and its clients join it (nsenter).
Before such a variant starts, heaplab asks each region server host, through ansible as heaplab.run.jdk asks
for JDKs, whether that works; where it does not, the variant is ``unavailable`` with one line saying which
host refused and how to allow it. One ansible call, only for runs with a 1.x variant.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

SERVER_HOSTS = "regionservers"
# The launcher's own choice (hbase-lab netns_new), tried with `true` in the namespace.
PROBE = 'if [ "$(id -u)" = 0 ]; then unshare --net true; else unshare --map-root-user --net true; fi'
CHECK_TIMEOUT_S = 120
HOW = (
    "run heaplab as root there, or allow unprivileged user namespaces "
    "(sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces > 0)"
)


def unavailable_why(ansible: str, inventory: Path, env: dict[str, str]) -> str | None:
    """Why no 1.x HBase can run on the inventory's region server hosts (one line), or None."""
    with tempfile.TemporaryDirectory(prefix="heaplab-netns-") as tree:
        cmd = [ansible, "-i", str(inventory), SERVER_HOSTS, "--tree", tree]
        cmd += ["-m", "ansible.builtin.shell", "-a", PROBE]
        try:
            proc = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"cannot ask the server hosts whether they may make a network namespace ({e})"
        answers = {p.name: _read(p) for p in sorted(Path(tree).iterdir())}
    if not answers:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return f"cannot ask the server hosts whether they may make a network namespace: {tail[0]}"
    return why_from_answers(answers)


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {"rc": 1, "msg": "unreadable answer from ansible"}


def why_from_answers(answers: dict[str, dict]) -> str | None:
    """The one line for run.json's ``why`` from ansible's per-host results of PROBE (None: all may)."""
    refused = []
    for host, result in sorted(answers.items()):
        if result.get("rc", 1) == 0 and not result.get("failed"):
            continue
        said = str(result.get("stderr") or result.get("msg") or "refused").strip().splitlines()
        refused.append(f"{host}: {said[-1] if said else 'refused'}")
    if not refused:
        return None
    return (
        "Apache HBase 1.4 runs in a network namespace of its own (its ZooKeeper binds every address), "
        f"which the server host may not make ({'; '.join(refused)}): {HOW}"
    )
