"""`heaplab run` end to end against a FAKE ansible-playbook placed first on PATH.

This is a unit test of the orchestration only (run directory, ansible-vars.json, run.json, logs, exit
codes, Ctrl-C); the real end-to-end ci run through the playbooks and the engine is the lead's test.
"""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from heaplab.playbook import Progress, run_playbook
from heaplab.spec import parse_spec

FAKE = Path(__file__).with_name("fake_ansible_playbook.py")


@pytest.fixture
def fake_path(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "fakebin"
    bin_dir.mkdir()
    script = bin_dir / "ansible-playbook"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def _git_init(root: Path) -> str:
    def git(*a: str) -> str:
        return subprocess.run(["git", "-C", str(root), *a], check=True, capture_output=True, text=True).stdout

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fixture")
    return git("rev-parse", "HEAD").strip()


def _run(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heaplab", "run", "03-offheap-write", "--scale", "ci", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HEAPLAB_ROOT": str(root), **env},
        timeout=120,
        check=False,
    )


def _only_run(root: Path) -> Path:
    (run,) = (root / "results/runs").iterdir()
    return run


def test_run_writes_the_run_directory(fake_root: Path, fake_path: dict[str, str]) -> None:
    commit = _git_init(fake_root)
    p = _run(fake_root, fake_path)
    assert p.returncode == 0, p.stderr
    run = _only_run(fake_root)
    assert run.name.startswith("03-offheap-write-ci-") and run.name.endswith("Z")
    assert f"run directory: {run}" in p.stdout
    assert "[hbase1-onheap] phase single_put started" in p.stdout
    assert "[hbase1-onheap] phase single_put ended" in p.stdout
    assert "phase failed started" not in p.stdout  # "Fail when the phase failed" is no phase "failed"
    assert "ARGV" not in p.stdout  # condensed view; the full output is in the log

    spec_file = fake_root / "labs/03-offheap-write/experiment.yml"
    assert (run / "experiment.yml").read_bytes() == spec_file.read_bytes()
    spec = parse_spec(yaml.safe_load(spec_file.read_text()))
    params = spec.params("ci")
    m = json.loads((run / "run.json").read_text())
    assert m["format"] == 1 and m["status"] == "complete" and m["scale"] == "ci"
    assert m["scale_params"] == params
    assert m["git"] == {"commit": commit, "dirty": False}
    assert m["jdk"] == "17.0.13" and m["hosts"][0]["cpu_model"] == "Fake CPU"
    assert m["command"] == "heaplab run 03-offheap-write --scale ci"
    assert m["start"] <= m["end"]
    for name, v in spec.variants.items():
        entry = m["variants"][name]
        assert entry["status"] == "complete" and entry["profile"] == v.profile
        assert entry["server_jvm_flags"] == spec.server_jvm_flags(v, params)
        vars_ = json.loads((run / name / "ansible-vars.json").read_text())
        assert vars_["heaplab_run_dir"] == str(run) and vars_["heaplab_variant"] == name
        assert vars_["heaplab_dist_archive"].endswith("heaplab-engine-0.1.0-bin.tar.gz")
        assert vars_["heaplab_server_jvm_flags"][:2] == [f"-Xms{params['heap']}", f"-Xmx{params['heap']}"]
        assert vars_["heaplab_client_jvm_flags"][0] == f"-Xmx{params['client_heap']}"
        assert vars_["heaplab_site"] == spec.site
        assert vars_["heaplab_measured_phase"] == "single_put"
        assert [ph["record"] for ph in vars_["heaplab_phases"]] == [False, False, True]
        assert f"--rows={params['total_rows']}" in vars_["heaplab_phases"][0]["args"]
        log = (run / name / "ansible.log").read_text()
        assert f"ANSIBLE_CONFIG={fake_root / 'playbooks/ansible.cfg'}" in log
        assert f"ARGV -i {fake_root / 'playbooks/inventories/local/hosts.yml'} " in log
        assert f"-e @{run / name / 'ansible-vars.json'}" in log


def test_failed_variant_is_recorded_and_the_run_goes_on(fake_root: Path, fake_path: dict[str, str]) -> None:
    p = _run(fake_root, {**fake_path, "FAKE_ANSIBLE_FAIL": "hbase1-onheap"})
    assert p.returncode == 1
    m = json.loads((_only_run(fake_root) / "run.json").read_text())
    assert m["status"] == "failed"
    failed = m["variants"]["hbase1-onheap"]
    assert failed["status"] == "failed" and "exited with 2" in failed["error"]
    assert "engine-daemon start failed" in failed["error"]
    assert failed["log"] == "hbase1-onheap/ansible.log"
    assert m["variants"]["hbase2-offheap"]["status"] == "complete"  # the next variant still ran
    assert "fatal: [localhost]" in p.stdout
    assert m["git"]["commit"] is None  # not a git checkout


def test_unavailable_variant_is_recorded_with_why(fake_root: Path, fake_path: dict[str, str]) -> None:
    spec = fake_root / "labs/03-offheap-write/experiment.yml"
    raw = yaml.safe_load(spec.read_text())
    raw["variants"]["hbase2-offheap"]["available"] = False
    spec.write_text(yaml.safe_dump(raw))
    assert _run(fake_root, fake_path).returncode == 0
    run = _only_run(fake_root)
    entry = json.loads((run / "run.json").read_text())["variants"]["hbase2-offheap"]
    assert entry["status"] == "unavailable" and entry["why"] == raw["variants"]["hbase2-offheap"]["why"]
    assert not (run / "hbase2-offheap").exists()


def test_ctrl_c_marks_the_run_interrupted(fake_root: Path, fake_path: dict[str, str], tmp_path: Path) -> None:
    marker = tmp_path / "ansible-started"
    proc = subprocess.Popen(
        [sys.executable, "-m", "heaplab", "run", "03-offheap-write", "--scale", "ci"],
        env={**os.environ, "HEAPLAB_ROOT": str(fake_root), **fake_path, "FAKE_ANSIBLE_HANG": str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists(), proc.communicate(timeout=10)
    running = json.loads((_only_run(fake_root) / "run.json").read_text())
    assert running["status"] == "running" and running["end"] is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    m = json.loads((_only_run(fake_root) / "run.json").read_text())
    assert m["status"] == "interrupted" and m["end"] is not None
    assert {v["status"] for v in m["variants"].values()} == {"interrupted"}
    assert "interrupted" in out


def test_progress_view_and_heartbeat(tmp_path: Path) -> None:
    lines: list[str] = []
    script = (
        "import time\n"
        "print('TASK [engine_workload : Run phase single_put] ***', flush=True)\n"
        "time.sleep(0.6)\n"
        "print('changed: [localhost]')\n"
        "print('TASK [engine_workload : Save the phase\\'s stdout] ***')\n"
    )
    code = run_playbook(
        [sys.executable, "-c", script],
        env={},
        log_path=tmp_path / "a.log",
        variant="v",
        out=lines.append,
        heartbeat_s=0.1,
    )
    assert code == 0
    assert lines[0] == "[v] phase single_put started"
    assert any("still running: engine_workload : Run phase single_put" in x for x in lines)
    assert any(x.startswith("[v] phase single_put ended") for x in lines)
    assert not any("changed:" in x for x in lines)
    assert "changed: [localhost]" in (tmp_path / "a.log").read_text()


def test_progress_ignores_non_phase_tasks_and_shows_failure_msgs() -> None:
    out: list[str] = []
    p = Progress(out.append, "v", ["create", "single_put"])
    for line in (
        "TASK [engine_workload : Fail when the phase failed] *",
        "TASK [engine_workload : Check the phases] *",
        "TASK [x : Name the phase's files] *",
        "TASK [x : Run the phases in order; the first failing phase fails with its stderr tail.] *",
        "TASK [x : Validating arguments against arg spec 'main' - Run the phases] *",
        "fatal: [localhost]: FAILED! => ",
        "    changed: false",
        "    msg: |-",
        "        Variant v failed at phase single_put:",
        "        ERROR: server not running",
        "",
    ):
        p.line(line)
    p.finish()
    assert not any("phase " in x and ("started" in x or "ended" in x) for x in out)
    assert not any("Validating arguments" in x for x in out)
    assert "[v]     ERROR: server not running" in out
    assert p.failures == ["Variant v failed at phase single_put: ERROR: server not running"]
