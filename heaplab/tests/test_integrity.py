"""The grader's checks on a submission (heaplab.course.integrity), on copies of committed reference runs (real
local runs): an untouched run recomputes to exactly what its claims.json recorded and its latency logs add
up to their clients' summaries; an edited .hlog does not; a zip whose bytes changed after `heaplab
submit`, or that gained a file, fails its manifest; code in a submission is named."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from heaplab.course.integrity import code_files, manifest_problems, recomputation_mismatches
from heaplab.course.submit import MANIFEST, submit
from heaplab.runfiles.hlog import read_total
from heaplab.tests.conftest import REPO, reference_series

LAB01 = reference_series("01-tail-latency")[-1]


def _copy(tmp_path: Path, run: Path) -> Path:
    dest = tmp_path / run.name
    shutil.copytree(run, dest)
    return dest


def test_an_untouched_run_recomputes_to_its_claims(tmp_path: Path) -> None:
    assert recomputation_mismatches(_copy(tmp_path, LAB01)) == []


def test_an_edited_hlog_is_caught(tmp_path: Path) -> None:
    run = _copy(tmp_path, LAB01)
    hlog = run / "hbase1-onheap/client/get-localhost.hlog"
    lines = hlog.read_text(encoding="utf-8").splitlines(keepends=True)
    header = [line for line in lines if line.startswith(("#", '"'))]
    intervals = [line for line in lines if not line.startswith(("#", '"'))]
    # drop the slowest second: the P99.9 falls, as a student hiding a spike would want
    slowest = max(intervals, key=lambda line: float(line.split(",")[2]))
    hlog.write_text("".join(header + [i for i in intervals if i is not slowest]), encoding="utf-8")
    summary = json.loads((run / "hbase1-onheap/client/get-localhost.json").read_text(encoding="utf-8"))
    left = read_total([hlog])
    assert left.get_total_count() < summary["operations"]
    found = recomputation_mismatches(run)
    name = "hbase1-onheap/client/get-localhost.hlog"
    assert f"{name}: {left.get_total_count()} operations, its summary {summary['operations']}" in found
    said_max = summary["latency_us"]["max"]
    assert f"{name}: max {left.get_max_value():.1f} us, its summary {said_max:.1f} us" in found
    # and the claims that read that log no longer recompute to what the report recorded
    assert any(line.startswith("spikes-are-gc: hbase1-onheap tail_gc_lift was ") for line in found), found


def test_a_run_never_reported_is_named(tmp_path: Path) -> None:
    run = _copy(tmp_path, LAB01)
    (run / "claims.json").unlink()
    assert recomputation_mismatches(run) == [
        "no claims.json: the run was never reported (heaplab run --report)"
    ]


def _submitted(tmp_path: Path) -> Path:
    notebook = tmp_path / "01-tail-latency.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return submit(_copy(tmp_path, LAB01), notebook, tmp_path / "out").zip_path


def _rewrite(zip_path: Path, change: dict[str, bytes]) -> None:
    """The zip with some entries replaced or added, as a student editing it by hand would leave it."""
    with zipfile.ZipFile(zip_path) as z:
        entries = {name: z.read(name) for name in z.namelist()}
    entries.update(change)
    with zipfile.ZipFile(zip_path, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)


def test_the_manifest_holds_for_an_untouched_zip_and_not_after_an_edit(tmp_path: Path) -> None:
    zip_path = _submitted(tmp_path)
    with zipfile.ZipFile(zip_path) as z:
        assert manifest_problems(z) == []
        run_json = next(n for n in z.namelist() if n.endswith("/run.json"))
    _rewrite(zip_path, {run_json: b"{}", "notes.txt": b"hello"})
    with zipfile.ZipFile(zip_path) as z:
        assert manifest_problems(z) == ["not in the manifest: notes.txt", f"changed after submit: {run_json}"]


def test_a_zip_without_a_manifest(tmp_path: Path) -> None:
    zip_path = tmp_path / "hand-made.zip"
    with zipfile.ZipFile(zip_path, "w") as z:
        z.writestr("01-tail-latency.ipynb", "{}")
    with zipfile.ZipFile(zip_path) as z:
        assert manifest_problems(z) == [f"no {MANIFEST}: not made by `heaplab submit`"]


def test_code_in_a_submission_is_named() -> None:
    names = [
        "01-tail-latency.ipynb",
        "heaplab/__init__.py",
        "heaplab/analysis/metrics.py",
        "results/run/server.log",
        "lib/__pycache__/x.cpython-311.pyc",
        "otter_shadow.pth",
    ]
    assert code_files(names) == [
        "heaplab/__init__.py",
        "heaplab/analysis/metrics.py",
        "lib/__pycache__/x.cpython-311.pyc",
        "otter_shadow.pth",
    ]


@pytest.mark.parametrize(
    "run",
    sorted(p for p in (REPO / "results/reference").iterdir() if (p / "claims.json").is_file()),
    ids=lambda p: p.name,
)
def test_every_reference_run_agrees_with_itself(run: Path) -> None:
    """The committed runs are unedited and today's loaders recompute what their reports recorded."""
    assert recomputation_mismatches(run) == []
