"""CLI errors: one clear line on stderr, a non-zero exit, never a traceback (run as a real process)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from heaplab.cli import main
from heaplab.run import runner


def heaplab(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heaplab", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "HEAPLAB_ROOT": str(root), **(env or {})},
        timeout=120,
        check=False,
    )


def _one_clean_line(p: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert lines[0].startswith("heaplab: error: ")
    return lines[0]


def test_labs_lists_titles(fake_root: Path) -> None:
    p = heaplab(fake_root, "labs")
    assert p.returncode == 0
    assert p.stdout.startswith("03-offheap-write") and "End-to-end off-heap write path" in p.stdout


def test_unknown_lab(fake_root: Path) -> None:
    p = heaplab(fake_root, "run", "99-nope", "--scale", "ci")
    assert p.returncode == 2
    assert "unknown lab '99-nope'; valid labs: 03-offheap-write" in _one_clean_line(p)


def test_unknown_scale(fake_root: Path) -> None:
    p = heaplab(fake_root, "run", "03-offheap-write", "--scale", "huge")
    assert p.returncode == 2
    assert "valid scales: ci, local, paper" in _one_clean_line(p)


@pytest.mark.parametrize(("jobs", "why"), [("0", "0 is below 1"), ("two", "'two' is not a whole number")])
def test_grading_jobs_must_be_a_count(fake_root: Path, jobs: str, why: str) -> None:
    p = heaplab(fake_root, "grade", "submissions", "--autograder", "a.zip", "--jobs", jobs)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines()[-1] == f"heaplab grade: error: argument --jobs: {why}"


def test_missing_engine_distribution(fake_root: Path) -> None:
    for archive in (fake_root / "engine/dist/target").glob("*.tar.gz"):
        archive.unlink()
    p = heaplab(fake_root, "run", "all", "--scale", "ci")
    assert p.returncode == 1
    line = _one_clean_line(p)
    assert "engine distribution not found" in line and "run `make engine`" in line
    assert not (fake_root / "results/runs").exists()


def test_missing_ansible_playbook(
    fake_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(runner.shutil, "which", lambda _name: None)
    monkeypatch.setattr(runner.sys, "executable", str(fake_root / "nowhere/python"))
    assert main(["--root", str(fake_root), "run", "03-offheap-write", "--scale", "ci"]) == 1
    assert "ansible-playbook not found" in capsys.readouterr().err


def test_bad_spec_is_one_line(fake_root: Path) -> None:
    spec = fake_root / "labs/03-offheap-write/experiment.yml"
    spec.write_text(spec.read_text().replace("tool: pe", "tool: hammer", 1))
    p = heaplab(fake_root, "run", "03-offheap-write", "--scale", "ci")
    assert p.returncode == 2
    assert "unknown tool 'hammer'" in _one_clean_line(p)


def test_unknown_variant_names_the_labs_variants(fake_root: Path) -> None:
    p = heaplab(fake_root, "run", "03-offheap-write", "--scale", "ci", "--variant", "nope")
    assert p.returncode == 2
    line = _one_clean_line(p)
    assert "03-offheap-write has no variant 'nope'; its variants: hbase1-onheap, hbase2-offheap" in line
    assert not (fake_root / "results/runs").exists()


def test_variant_needs_one_lab(fake_root: Path) -> None:
    p = heaplab(fake_root, "run", "all", "--scale", "ci", "--variant", "hbase1-onheap")
    assert p.returncode == 2
    assert "--variant selects variants of one lab: name the lab, not 'all'" in _one_clean_line(p)


def test_unselected_variants_are_recorded_unavailable_with_the_selection() -> None:
    entries = {
        "a": {"available": True, "status": "pending"},
        "b": {"available": True, "status": "pending"},
        "c": {"available": False, "status": "unavailable", "why": "needs X"},
    }
    runner.mark_unselected(entries, ("a",))
    assert entries["a"] == {"available": True, "status": "pending"}
    assert entries["b"] == {"available": False, "status": "unavailable", "why": "not selected (--variant a)"}
    assert entries["c"]["why"] == "needs X"  # an unavailable variant keeps its own reason
    runner.mark_unselected(entries, ())
    assert entries["a"]["available"]


def test_scale_defaults_to_local(fake_root: Path) -> None:
    spec = fake_root / "labs/03-offheap-write/experiment.yml"
    raw = yaml.safe_load(spec.read_text(encoding="utf-8"))
    del raw["scales"]["local"]
    spec.write_text(yaml.safe_dump(raw), encoding="utf-8")
    p = heaplab(fake_root, "run", "03-offheap-write")
    assert p.returncode == 2
    assert "unknown scale 'local' for lab 03-offheap-write; valid scales: ci, paper" in _one_clean_line(p)
