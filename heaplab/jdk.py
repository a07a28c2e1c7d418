"""The JDK a variant's servers will run, checked before the variant starts (the variant key ``jdk:``).

A variant that says ``jdk: 21`` needs JDK 21 or newer on every server host (region servers and the
master): generational ZGC, for one, came with JDK 21.  Before such a variant starts, heaplab asks each
server host which JDK the playbook would start it with, the same way the playbook picks it
(playbooks/variant.yml: ``<heaplab_java_home>/bin/java`` when the inventory, or ``heaplab run --java-home``,
sets heaplab_java_home, else ``java`` on the host's PATH).  It asks through ansible itself
(``ansible <inventory> regionservers:masters -m command -a "<java> -version" --tree DIR``), so the local
target is checked locally and a remote host over the inventory's own connection: one code path, about a
second, run once per ``heaplab run`` and only when a variant has ``jdk:``.

A JDK too old (or no java at all) makes the variant ``unavailable`` in run.json, with a ``why`` that says
which host runs which JDK and how to point heaplab at a newer one; the other variants run as usual.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SERVER_HOSTS = "regionservers:masters"
# The java the playbook starts the servers with (playbooks/variant.yml, host_facts_java).
JAVA_OF_HOST = "{{ (heaplab_java_home ~ '/bin/java') if heaplab_java_home | default('') else 'java' }}"
JVM_DIR = Path("/usr/lib/jvm")  # where Debian/Ubuntu packages (and Temurin's) install JDKs
CHECK_TIMEOUT_S = 120

_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?[^"]*"')


def feature_version(text: str) -> int | None:
    """The feature version from ``java -version`` output: "17.0.15" -> 17, "25" -> 25, "1.8.0_292" -> 8."""
    m = _VERSION.search(text)
    if m is None:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


@dataclass(frozen=True)
class HostJdk:
    host: str
    feature: int | None  # None: java did not run or printed no version
    text: str  # java -version's first line, or why it could not be asked


def server_jdks(ansible: str, inventory: Path, env: dict[str, str], java_home: str | None) -> list[HostJdk]:
    """``java -version`` on every server host, through ``ansible`` with the run's inventory and config."""
    with tempfile.TemporaryDirectory(prefix="heaplab-jdk-") as tree:
        cmd = [ansible, "-i", str(inventory), SERVER_HOSTS, "--tree", tree, "-m", "ansible.builtin.command"]
        cmd += ["-a", f"{JAVA_OF_HOST} -version"]
        if java_home:
            cmd += ["-e", json.dumps({"heaplab_java_home": java_home})]
        try:
            proc = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return [HostJdk("?", None, f"cannot ask the server hosts for their JDK ({e})")]
        found = [_host_jdk(p) for p in sorted(Path(tree).iterdir())]
    if not found:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return [HostJdk("?", None, f"cannot ask the server hosts for their JDK: {tail[0]}")]
    return found


def _host_jdk(path: Path) -> HostJdk:
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return HostJdk(path.name, None, "unreadable answer from ansible")
    out = f"{result.get('stderr', '')}\n{result.get('stdout', '')}".strip()
    feature = feature_version(out)
    if feature is None:
        return HostJdk(path.name, None, str(result.get("msg") or out or "no java -version output"))
    return HostJdk(path.name, feature, next(line for line in out.splitlines() if "version" in line).strip())


def too_old(need: int, jdks: list[HostJdk], java_home: str | None) -> str | None:
    """Why the variant cannot run on these hosts' JDKs (one line for run.json's ``why``), or None."""
    bad = [j for j in jdks if j.feature is None or j.feature < need]
    if not bad:
        return None
    found = "; ".join(f"{j.host}: {j.text}" for j in bad)
    which = f"--java-home {java_home}" if java_home else "the servers' java (heaplab_java_home, else PATH)"
    newer = ", ".join(str(p) for p in local_jdks(need)) or f"any JDK {need}+"
    return (
        f"needs JDK {need}+ on the servers, {which} gives {found}; point it at a newer JDK with "
        f"`heaplab run ... --java-home <JDK {need}+ home>` (installed here: {newer}) or set "
        f"heaplab_java_home for the server hosts in the inventory"
    )


def local_jdks(need: int) -> list[Path]:
    """JDK homes under /usr/lib/jvm on this machine whose ``release`` file says version ``need`` or newer."""
    homes = []
    for release in sorted(JVM_DIR.glob("*/release")) if JVM_DIR.is_dir() else []:
        try:
            text = release.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        m = re.search(r'JAVA_VERSION="([^"]+)"', text)
        feature = feature_version(f'version "{m.group(1)}"') if m else None
        if feature is not None and feature >= need and not release.parent.is_symlink():
            homes.append(release.parent)
    return homes


def lowest(jdks: list[HostJdk]) -> int | None:
    """The oldest feature version among the server hosts (None when any is unknown)."""
    features = [j.feature for j in jdks]
    return None if not features or None in features else min(f for f in features if f is not None)


def generational_zgc(flags: list[str], feature: int | None) -> list[str]:
    """Server flags for generational ZGC on this JDK: JDK 21 and 22 need -XX:+ZGenerational next to
    -XX:+UseZGC (their default ZGC is the single-generation one); from JDK 23 ZGC is generational by
    default and the flag is deprecated (24: ignored with a warning), so it is not added."""
    if feature is None or "-XX:+UseZGC" not in flags or any("ZGenerational" in f for f in flags):
        return flags
    return [*flags, "-XX:+ZGenerational"] if feature < 23 else flags
