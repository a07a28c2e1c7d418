"""bin/engine-proc-cpu, the /proc sampler around each measured phase, and bin/engine-phase, which runs it
before and after the phase's command on the local target: the real scripts on this machine's real /proc,
against a real process standing in for the server (a Python process that spends a known amount of CPU:
what is checked is what the samples hold, not how fast anything ran)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from playbooks.tests.support import REPO

BIN = REPO / "engine" / "dist" / "src" / "bin"
SAMPLER = BIN / "engine-proc-cpu"
PHASE = BIN / "engine-phase"
# Spends 0.3 s of CPU (process time, whatever the machine's load), says so on stdout, then, given
# "stay", waits.
BURNER = """import sys, time
t = time.process_time()
while time.process_time() - t < 0.3:
    pass
print("burnt", flush=True)
if sys.argv[1:] == ["stay"]:
    time.sleep(60)
"""


def burner(tmp_path: Path, *args: str) -> list[str]:
    script = tmp_path / "burn.py"
    script.write_text(BURNER)
    return [sys.executable, str(script), *args]


def sample(pid_file: Path, out: Path, at: str, *extra: str) -> dict:
    proc = subprocess.run(
        [str(SAMPLER), str(pid_file), str(out), "load", at, *extra],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == "", proc.stderr
    return json.loads(out.read_text().splitlines()[-1])


def stop(proc: subprocess.Popen) -> None:
    """The process and its children (a shell's burner): its own session's process group."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def start(cmd: list[str]) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None and proc.stdout.readline() == "burnt\n"
    return proc


@pytest.mark.parametrize("through_a_shell", [False, True])
def test_the_samples_hold_the_cpu_the_server_spent(tmp_path: Path, through_a_shell: bool) -> None:
    """The pid file may name a launcher whose child is the JVM (a shell, a namespace wrapper): the sampler
    adds its live descendants."""
    pid_file, out = tmp_path / "regionserver.pid", tmp_path / "proc-cpu.jsonl"
    pid_file.write_text("999999999\n")  # no such process yet
    before = sample(pid_file, out, "before")
    cmd = burner(tmp_path, "stay")
    proc = start(["/bin/sh", "-c", " ".join(cmd) + "; true"] if through_a_shell else cmd)
    try:
        pid_file.write_text(f"{proc.pid}\n")
        after = sample(pid_file, out, "after", "150")
    finally:
        stop(proc)
    assert before["server_cpu_s"] is None and "no process 999999999" in before["error"]
    assert after["pid"] == proc.pid and after["server_cpu_s"] >= 0.29
    assert after["client_cpu_s"] == pytest.approx(150 / after["clk_tck"])
    assert (before["phase"], before["at"], after["at"]) == ("load", "before", "after")
    assert len(after["host_cpu_ticks"]) >= 4 and after["cpus"] >= 1
    assert sum(after["host_cpu_ticks"]) >= sum(before["host_cpu_ticks"])
    assert abs(after["unix_time"] - time.time()) < 60
    loadavg = [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]  # this host's, read after
    assert len(after["loadavg"]) == 3 and all(0 <= x < 10 * os.cpu_count() for x in after["loadavg"])
    assert after["loadavg"][2] == pytest.approx(loadavg[2], abs=1.0)  # the 15-minute figure barely moves


def test_a_missing_pid_file_is_a_sample_that_says_so(tmp_path: Path) -> None:
    line = sample(tmp_path / "none.pid", tmp_path / "s" / "proc-cpu.jsonl", "after")
    assert line["pid"] is None and line["server_cpu_s"] is None
    assert line["error"] == f"no pid file {tmp_path / 'none.pid'}"


@pytest.mark.parametrize(
    "args", [[], ["p", "o", "x", "during"], ["p", "o", "a b", "before"], ["p", "o", "x", "after", "1.5"]]
)
def test_a_wrong_call_is_a_usage_error(args: list[str]) -> None:
    proc = subprocess.run([str(SAMPLER), *args], capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2 and proc.stderr


def test_engine_phase_samples_around_the_command_and_measures_the_client(tmp_path: Path) -> None:
    server = start(burner(tmp_path, "stay"))
    pid_file, samples = tmp_path / "regionserver.pid", tmp_path / "logs" / "proc-cpu.jsonl"
    pid_file.write_text(f"{server.pid}\n")
    # the phase's command: a client that spends 0.3 s of CPU and ends
    client = tmp_path / "launcher"
    client.write_text(f"#!/bin/sh\nexec {' '.join(burner(tmp_path))}\n")
    client.chmod(0o755)
    env = {
        **os.environ,
        "ENGINE_LOG_DIR": str(tmp_path / "client-logs"),
        "ENGINE_PHASE_CPU_PID_FILE": str(pid_file),
        "ENGINE_PHASE_CPU_SAMPLES": str(samples),
        "ENGINE_PHASE_CPU_PHASE": "single_put",
    }
    out = tmp_path / "out"
    cmd = [str(PHASE), str(out / "single_put-localhost"), str(out / "gc.log"), "--", str(client), "pe"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60, check=False)
    finally:
        stop(server)
    assert proc.returncode == 0, proc.stderr
    before, after = (json.loads(x) for x in samples.read_text().splitlines())
    assert (before["at"], after["at"]) == ("before", "after")
    assert before["pid"] == after["pid"] == server.pid
    assert "client_cpu_s" not in before and after["client_cpu_s"] >= 0.29
    assert (out / "single_put-localhost.out").read_text() == "burnt\n"


def test_engine_phase_without_the_cpu_variables_samples_nothing(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "ENGINE_LOG_DIR": str(tmp_path / "logs"),
        "ENGINE_PHASE_CPU_SAMPLES": str(tmp_path / "s"),
    }
    cmd = [str(PHASE), str(tmp_path / "p"), str(tmp_path / "gc.log"), "--", "/bin/true", "pe"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30, check=False)
    assert proc.returncode == 0 and not (tmp_path / "s").exists()
