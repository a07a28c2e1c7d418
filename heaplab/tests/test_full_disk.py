"""A disk that fills up during a real run ends it with one line naming the disk, its free space and what
was being written; the servers are stopped, the run is never marked complete, and run.json and the report
agree.

1. The data disk: the region server's hbase.rootdir on an 8 MB tmpfs (the inventory's heaplab_data_dir),
   while a pe phase writes about 60 MB: the WAL write fails with ENOSPC mid-phase. The engine logs one
   `ERROR ... no space left on device: ...; <mount> (tmpfs) has N bytes free of M` line, the client fails
   (one retry: the spec sets hbase.client.retries.number), the playbook stops the server and records the
   free space (disk-<host>.json), and heaplab says `[variant] FAILED: no space left on device on <mount>
   (tmpfs, host localhost): ...`; run.json says failed, the report shows the failure and no metrics.
2. The results disk: --runs-dir on a 96 kB tmpfs, which holds run.json and the spec but not the variant's
   collected files: the variant fails naming that disk, heaplab prints no traceback, and run.json never
   says complete (failed, or still running when even its last write found no room), so report and submit
   refuse it or show the failure.

Needs root for `mount -t tmpfs` (skips saying so otherwise, or when mount is refused); every tmpfs is
unmounted in the fixture's teardown.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from heaplab.tests.conftest import LabRoot

LAB = "91-full-disk"
VARIANT = "onheap"
RUN_TIMEOUT_S = 420
SPEC = f"""\
lab: {LAB}
title: A disk that fills up in the middle of a write phase
reproduces:
  - {{doc: "none", experiment: fill}}
variants:
  {VARIANT}:
    profile: hbase1-onheap
    server_jvm: ["-XX:+UseG1GC"]
    client_jvm: ["-XX:+UseG1GC"]
scales:
  ci: {{heap: 128m, client_heap: 128m, threads: 2, rows: 60000, regions: 2}}
site:
  hbase.regionserver.port: "{{port}}"
  hbase.regionserver.handler.count: "4"
  hbase.client.retries.number: "1"
phases:
  - {{name: create, tool: admin, args: "create TestTable --presplit={{regions}} --rows={{total_rows}}"}}
  - {{name: fill, tool: pe, measure: fill,
     args: "--nomapred --oneCon=true --valueSize=500 --rows={{rows}} --autoFlush=true --presplit={{regions}}
       randomWrite {{threads}}"}}
claims: []
"""


@contextlib.contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted on ``path`` for the block, always unmounted after it."""
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (mount -t tmpfs)")
    path.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        if subprocess.run(["umount", str(path)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "--lazy", str(path)], check=False)  # a failed test's process holds it
        assert not path.is_mount(), f"{path} is still mounted"


def _heaplab(lab: LabRoot, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heaplab", *args],
        capture_output=True,
        text=True,
        cwd=lab.root,
        env={**os.environ, "HEAPLAB_ROOT": str(lab.root), "PYTHONUNBUFFERED": "1"},
        timeout=RUN_TIMEOUT_S,
        check=False,
    )


def _run(lab: LabRoot, *extra: str) -> subprocess.CompletedProcess[str]:
    return _heaplab(lab, "run", LAB, "--scale", "ci", "--inventory", str(lab.inventory), *extra)


def _with_host_var(lab: LabRoot, **host_vars: str) -> None:
    inventory = yaml.safe_load(lab.inventory.read_text(encoding="utf-8"))
    for host in inventory["all"]["hosts"].values():
        host.update(host_vars)
    lab.inventory.write_text(yaml.safe_dump(inventory), encoding="utf-8")


def _listening(port: int) -> bool:
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                    return True
    return False


def _output(p: subprocess.CompletedProcess[str]) -> str:
    return f"--- stdout ---\n{p.stdout[-6000:]}\n--- stderr ---\n{p.stderr[-3000:]}"


def test_a_full_data_disk_fails_the_variant_in_one_line(lab_root, tmp_path: Path) -> None:
    lab = lab_root(SPEC, lab=LAB)
    with tmpfs(tmp_path / "data", "8m") as data:
        _with_host_var(lab, heaplab_data_dir=str(data))
        proc = _run(lab)
        assert proc.returncode == 1, _output(proc)
        assert "Traceback" not in proc.stdout + proc.stderr
        assert lab.leftover_processes() == [], "a server or client outlived the failed variant"
        assert not _listening(lab.port), "something still listens on the run's port"
        (run,) = lab.runs_dir.iterdir()
    m = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert m["status"] == "failed" and m["variants"][VARIANT]["status"] == "failed", _output(proc)
    error = m["variants"][VARIANT]["error"]
    assert error.startswith(f"no space left on device on {data} (tmpfs, host localhost): "), error
    assert " free of 8.4 MB; the region server's WAL in phase fill failed writing " in error, error
    assert f"{data}/WALs/" in error and error.endswith(f"; see {VARIANT}/ansible.log"), error
    assert f"[{VARIANT}] FAILED: {error}\n" in proc.stdout
    # the playbook measured the disk on the host, and the engine logged the full disk once, not per call
    (disk,) = json.loads((run / VARIANT / "disk-localhost.json").read_text(encoding="utf-8"))["disks"][:1]
    assert disk["mount"] == str(data) and disk["type"] == "tmpfs" and disk["size_bytes"] == 8 * 1024 * 1024
    log = (run / VARIANT / "server/localhost/server.log").read_text(encoding="utf-8")
    full = [line for line in log.splitlines() if " ERROR [" in line and "no space left on device: " in line]
    assert full and f"{data} (tmpfs) has " in full[0], log[-3000:]
    # the report shows the failure and measures nothing of the failed variant
    report = _heaplab(lab, "report", str(run))
    assert report.returncode == 0, _output(report)
    text = (run / "report.md").read_text(encoding="utf-8")
    assert "status: **failed**" in text and "no space left on device on" in text


def test_a_full_results_disk_never_leaves_a_complete_run(lab_root, tmp_path: Path) -> None:
    lab = lab_root(SPEC.replace("rows: 60000", "rows: 2000"), lab=LAB)
    with tmpfs(tmp_path / "runs", "96k") as runs:
        proc = _run(lab, "--runs-dir", str(runs))
        assert proc.returncode == 1, _output(proc)
        assert "Traceback" not in proc.stdout + proc.stderr
        assert f"no space left on device on {runs} (tmpfs)" in proc.stdout + proc.stderr, _output(proc)
        assert lab.leftover_processes() == [] and not _listening(lab.port)
        (run,) = runs.iterdir()
        m = json.loads((run / "run.json").read_text(encoding="utf-8"))
        assert m["status"] in ("failed", "running") and m["variants"][VARIANT]["status"] != "complete", m
        report = _heaplab(lab, "report", str(run))
        if m["status"] == "running":  # its last write found no room either: not complete, refused
            (line,) = report.stderr.strip().splitlines()
            assert report.returncode == 1 and "is not complete (status running" in line, _output(report)
        else:
            assert m["variants"][VARIANT]["error"].startswith(f"no space left on device on {runs} (tmpfs)")
