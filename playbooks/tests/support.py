"""Helpers of the playbook tests: paths, the ansible environment, a variant runner, process checks."""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest

PLAYBOOKS = Path(__file__).resolve().parents[1]
REPO = PLAYBOOKS.parent
VENV_BIN = REPO / ".venv" / "bin"
LOCAL_INVENTORY = PLAYBOOKS / "inventories" / "local" / "hosts.yml"

# Global kernel settings os_settings' report mode must leave alone (net.core.* is per network namespace,
# so not here), and the files its apply mode writes.
KERNEL_FILES = (
    "/proc/sys/vm/swappiness",
    "/proc/sys/kernel/perf_event_paranoid",
    "/proc/sys/kernel/kptr_restrict",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/kernel/mm/transparent_hugepage/defrag",
)
WRITTEN_BY_APPLY = (
    "/etc/sysctl.d/60-heaplab.conf",
    "/etc/sysctl.d/61-heaplab-profiler.conf",
    "/etc/security/limits.d/60-heaplab.conf",
    "/etc/tmpfiles.d/60-heaplab-thp.conf",
)


def tool(name):
    """An ansible tool from the repo's venv (the versions the lint profile was checked with)."""
    path = VENV_BIN / name
    if not path.exists():
        pytest.skip(f"{path} is missing: create the venv first (make setup)")
    return str(path)


def kernel_state():
    """Each kernel setting and apply-mode file: its content, or None where this machine has none."""
    return {
        path: (Path(path).read_text() if Path(path).exists() else None)
        for path in KERNEL_FILES + WRITTEN_BY_APPLY
    }


def jdk_from_dpkg():
    """Whether the openjdk role's package is installed (then the role is a no-op and may run here)."""
    if shutil.which("dpkg-query") is None:
        return False
    done = subprocess.run(
        ["dpkg-query", "--show", "--showformat=${Status}", "openjdk-17-jdk-headless"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout == "install ok installed"


def run_tool(name, *args, timeout=120, check=False):
    """An ansible tool of the venv run in playbooks/ with the playbooks' configuration; output as text."""
    return subprocess.run(
        [tool(name), *map(str, args)],
        cwd=PLAYBOOKS,
        env=ansible_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
    )


def ansible_env():
    env = dict(os.environ)
    env["ANSIBLE_CONFIG"] = str(PLAYBOOKS / "ansible.cfg")
    env["ANSIBLE_NOCOLOR"] = "1"
    env["ANSIBLE_FORCE_COLOR"] = "0"
    # The venv's bin first, as heaplab runs it; ansible itself warns when PATH holds it twice.
    env["PATH"] = f"{VENV_BIN}:{env.get('PATH', '')}"
    return env


def engine_archive():
    """The real engine distribution; skips (saying why) when it has not been built."""
    archives = sorted((REPO / "engine" / "dist" / "target").glob("heaplab-engine-*-bin.tar.gz"))
    if not archives:
        pytest.skip(
            "no engine distribution at engine/dist/target/heaplab-engine-*-bin.tar.gz: "
            "build it with `cd engine && mvn -B -q install -DskipTests` to run this test"
        )
    return archives[-1]


def free_port():
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def processes_mentioning(text):
    """PIDs whose command line contains text (a test's own temporary base dir)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline and entry.name != str(os.getpid()):
            found.append((int(entry.name), cmdline))
    return found


def kill_processes_mentioning(text):
    for pid, _ in processes_mentioning(text):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class VariantRun:
    """One ansible-playbook run of variant.yml against the local inventory, in temporary directories.

    base_dir is the host's heaplab_base_dir (engine, current/ working directory); a second run may
    reuse the base directory of a first one.
    """

    def __init__(self, tmp_path, archive, base_dir=None):
        self.base_dir = base_dir or tmp_path / "base"
        self.run_dir = tmp_path / "run"
        self.archive = archive
        self.port = free_port()
        self.variant = "hbase1-onheap"
        self.host = "localhost"
        self.vars = {
            "heaplab_dist_archive": str(archive),
            "heaplab_run_dir": str(self.run_dir),
            "heaplab_variant": self.variant,
            "heaplab_profile": "hbase1-onheap",
            # Small heaps: the suite runs on 2 cores; -Xms differs from -Xmx so both show in the GC log.
            "heaplab_server_jvm_flags": ["-Xms64m", "-Xmx128m", "-XX:+UseG1GC"],
            "heaplab_client_jvm_flags": ["-Xmx128m", "-XX:+UseG1GC"],
            "heaplab_site": {
                "hbase.regionserver.port": str(self.port),
                "hbase.regionserver.handler.count": 4,
            },
            "heaplab_phases": [
                {"name": "create", "tool": "admin", "args": "create TestTable", "record": False},
                {
                    "name": "single_put",
                    "tool": "pe",
                    "record": True,
                    "args": "--nomapred --oneCon=true --valueSize=100 --rows=200 --autoFlush=true"
                    " randomWrite 2",
                },
            ],
            # Extra vars beat inventory host vars: the test never touches the user's ~/heaplab.
            "heaplab_base_dir": str(self.base_dir),
        }
        self.result = None

    @property
    def variant_dir(self):
        return self.run_dir / self.variant

    def run(self, timeout=600, path_first=None):
        """ansible-playbook variant.yml; ``path_first``: a directory put first on PATH (a host's shims)."""
        vars_file = self.run_dir / self.variant / "ansible-vars.json"
        vars_file.parent.mkdir(parents=True, exist_ok=True)
        vars_file.write_text(json.dumps(self.vars))
        env = ansible_env()
        if path_first is not None:
            env["PATH"] = f"{path_first}:{env['PATH']}"
        self.result = subprocess.run(
            [
                tool("ansible-playbook"),
                "-i",
                str(LOCAL_INVENTORY),
                str(PLAYBOOKS / "variant.yml"),
                "-e",
                f"@{vars_file}",
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return self.result

    def flat_stdout(self):
        """ansible's stdout with the YAML callback's line wrapping and quote doubling undone."""
        return " ".join(self.result.stdout.split()).replace("''", "'")

    def task_output(self, task):
        """What ansible printed for TASK [<task>] (up to the next task), or None when it did not run."""
        marker = f"TASK [{task}]"
        if marker not in self.result.stdout:
            return None
        return self.result.stdout.split(marker, 1)[1].split("TASK [", 1)[0]

    def output(self):
        return f"--- stdout ---\n{self.result.stdout[-6000:]}\n--- stderr ---\n{self.result.stderr[-3000:]}"

    def leftover_processes(self):
        return processes_mentioning(str(self.base_dir))
