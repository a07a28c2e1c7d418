"""One run at a time on one inventory's hosts (heaplab.run.run_lock): a second `heaplab run` on the same
inventory stops before it creates anything, naming the run that holds the hosts; the lock goes with the
process that held it, even when that process is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from heaplab.run import run_lock
from heaplab.run.options import RunSetupError

REPO = Path(__file__).resolve().parents[2]


def _inventory(tmp_path: Path) -> Path:
    inv = tmp_path / "hosts.yml"
    inv.write_text("all:\n  hosts:\n    localhost: {ansible_connection: local}\n")
    return inv


def _second_run(inventory: Path, runs: Path) -> subprocess.CompletedProcess[str]:
    """A real `heaplab run` in its own process, on the given inventory."""
    return subprocess.run(
        [sys.executable, "-m", "heaplab", "run", "03-offheap-write", "--scale", "ci",
         "--inventory", str(inventory), "--runs-dir", str(runs)],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_a_second_run_on_the_same_hosts_stops_before_it_starts(tmp_path: Path) -> None:
    inv, runs = _inventory(tmp_path), tmp_path / "runs"
    with run_lock.held(inv, "heaplab run 01-tail-latency --scale local"):
        proc = _second_run(inv, runs)
    assert proc.returncode == 1, proc.stderr
    assert "another heaplab run is using the hosts" in proc.stderr
    assert f"pid {os.getpid()}, `heaplab run 01-tail-latency --scale local`" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not runs.exists() or not any(runs.iterdir())  # no run directory made


def test_the_lock_is_reentered_by_its_holder_and_free_after(tmp_path: Path) -> None:
    inv, runs = _inventory(tmp_path), tmp_path / "runs"
    with run_lock.held(inv, "the series"):
        with run_lock.held(inv, "one run of it"):  # a series' run inside the series' hold
            pass
        proc = _second_run(inv, runs)  # still held after the inner block
        assert "another heaplab run" in proc.stderr and "`the series`" in proc.stderr
    with run_lock.held(inv, "the next run"):  # released when the block ended
        assert run_lock.lock_path(inv).read_text().startswith(f"pid {os.getpid()}, `the next run`")


def test_other_inventories_are_not_held_up(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = _inventory(tmp_path / "a"), _inventory(tmp_path / "b")
    with run_lock.held(a, "a"), run_lock.held(b, "b"):
        assert run_lock.lock_path(a) != run_lock.lock_path(b)


def test_a_killed_holder_leaves_the_hosts_free(tmp_path: Path) -> None:
    inv = _inventory(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from heaplab.run import run_lock\n"
         f"with run_lock.held(Path({str(inv)!r}), 'killed run'):\n"
         "    print('held', flush=True); time.sleep(600)"],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(RunSetupError, match=rf"pid {holder.pid}, `killed run`"), run_lock.held(inv, "no"):
            pass
        os.kill(holder.pid, signal.SIGKILL)  # no finally runs: the kernel drops the flock
        holder.wait(timeout=30)
        deadline = time.monotonic() + 10
        with run_lock.held(inv, "after the kill"):
            assert time.monotonic() < deadline
    finally:
        if holder.poll() is None:
            holder.kill()
