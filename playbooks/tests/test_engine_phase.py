"""bin/engine-phase, the one step the engine_workload role runs per foreground phase: the real script, run
against a small launcher written here (a shell script standing in for bin/engine or bin/hbase-lab, which
would start a JVM: what is checked is what the wrapper does with the files, the exit code and stderr)."""

import os
import subprocess
from pathlib import Path

import pytest

from playbooks.tests.support import REPO

SCRIPT = REPO / "engine" / "dist" / "src" / "bin" / "engine-phase"

# The stand-in launcher: `launcher <tool> [args]` writes a GC log named after the tool into ENGINE_LOG_DIR
# (as bin/engine does) and, with FAKE_PROFILE="<event>...", a profiled launcher's flame graphs; prints its
# args, and ends as FAKE_RC says after FAKE_ERR_LINES lines of stderr.
LAUNCHER = """#!/bin/sh
tool="$1"; shift
[ -n "$FAKE_GC" ] && printf 'gc of %s\\n' "$tool" > "$ENGINE_LOG_DIR/gc-$tool.log"
if [ -n "$FAKE_PROFILE" ]; then  # as bin/engine-profiler leaves them at the JVM's exit
  for event in $FAKE_PROFILE; do echo "$event graph" > "$ENGINE_LOG_DIR/profile-$tool-$event.html"; done
  echo "cpu=ctimer" > "$ENGINE_LOG_DIR/profile-$tool.mode"
fi
echo "ran $tool $*"
i=1
while [ "$i" -le "${FAKE_ERR_LINES:-0}" ]; do echo "err line $i" >&2; i=$((i + 1)); done
exit "${FAKE_RC:-0}"
"""


def run_phase(tmp_path: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    launcher = tmp_path / "launcher"
    launcher.write_text(LAUNCHER)
    launcher.chmod(0o755)
    out = tmp_path / "client" / "out"
    cmd = [str(SCRIPT), str(out / "load-localhost"), str(out / "gc-load-localhost.log"), "--", str(launcher)]
    environ = {**os.environ, "ENGINE_LOG_DIR": str(tmp_path / "logs" / "load"), **env}
    proc = subprocess.run([*cmd, *args], capture_output=True, text=True, env=environ, timeout=30, check=False)
    return proc, out


def test_a_phase_leaves_its_stdout_and_gc_log_and_no_empty_stderr(tmp_path: Path) -> None:
    proc, out = run_phase(tmp_path, "pe", "--rows=10", "sequentialWrite", "2", FAKE_GC="1")
    assert proc.returncode == 0, proc.stderr
    assert (out / "load-localhost.out").read_text() == "ran pe --rows=10 sequentialWrite 2\n"
    assert not (out / "load-localhost.err").exists()
    assert (out / "gc-load-localhost.log").read_text() == "gc of pe\n"
    assert (tmp_path / "logs" / "load").is_dir()
    assert proc.stdout == "" and proc.stderr == ""


def test_without_a_gc_log_nothing_is_copied(tmp_path: Path) -> None:
    proc, out = run_phase(tmp_path, "admin", "flush", "TestTable")
    assert proc.returncode == 0
    assert not (out / "gc-load-localhost.log").exists()
    assert not list(out.glob("profile-*")), "no profiled launcher, no flame graph"


def test_a_profiled_phase_keeps_its_flame_graphs_under_the_phase_name(tmp_path: Path) -> None:
    proc, out = run_phase(tmp_path, "pe", "randomRead", "1", FAKE_PROFILE="cpu alloc")
    assert proc.returncode == 0, proc.stderr
    kept = {p.name: p.read_text() for p in out.glob("profile-*")}
    assert kept == {
        "profile-load-localhost-cpu.html": "cpu graph\n",
        "profile-load-localhost-alloc.html": "alloc graph\n",
        "profile-load-localhost.mode": "cpu=ctimer\n",
    }


def test_a_failed_phase_keeps_its_exit_code_and_repeats_its_stderr_tail(tmp_path: Path) -> None:
    env = {"FAKE_RC": "3", "FAKE_ERR_LINES": "25", "ENGINE_PHASE_TAIL": "4"}
    proc, out = run_phase(tmp_path, "pe", "randomRead", "1", **env)
    assert proc.returncode == 3
    assert (out / "load-localhost.err").read_text().count("\n") == 25
    assert proc.stderr.splitlines() == [f"err line {i}" for i in range(22, 26)]


def test_stderr_of_a_successful_phase_is_kept_but_not_repeated(tmp_path: Path) -> None:
    proc, out = run_phase(tmp_path, "pe", "randomRead", "1", FAKE_ERR_LINES="2")
    assert proc.returncode == 0
    assert (out / "load-localhost.err").read_text() == "err line 1\nerr line 2\n"
    assert proc.stderr == ""


@pytest.mark.parametrize("args", [[], ["a", "b", "--"], ["a", "b", "x", "launcher", "pe"]])
def test_a_wrong_call_is_a_usage_error(args: list[str]) -> None:
    proc = subprocess.run([str(SCRIPT), *args], capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("Usage: bin/engine-phase")


def test_without_engine_log_dir_it_says_so(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ENGINE_LOG_DIR"}
    cmd = [str(SCRIPT), str(tmp_path / "p"), str(tmp_path / "gc.log"), "--", "/bin/true", "pe"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=30, check=False)
    assert proc.returncode == 2
    assert "ENGINE_LOG_DIR is not set" in proc.stderr
