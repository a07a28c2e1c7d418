"""heaplab.runfiles.exercise_sources: the code a run measured, recorded in run.json, packed by `heaplab
submit` and checked by the grader. The run is a copy of a committed reference run of lab 05 (a real local run)
whose run.json gets the record `heaplab run` now writes (the reference run predates it); the "checkout" is a
temporary folder holding the lab's solution files, as a student's repository would."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from heaplab.course.submit import SubmitError, submit
from heaplab.lab.exercises import load_exercises
from heaplab.run.runner import _exercise_sources
from heaplab.runfiles import exercise_sources
from heaplab.tests.conftest import REPO, reference_series

LAB = "05-netty-rpc"
REFERENCE = reference_series("05-netty-rpc")[-1]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_record_names_every_solution_file_of_the_labs_exercises_with_its_digest() -> None:
    recorded = exercise_sources.record(REPO, LAB)
    expected = {f for ex in load_exercises(REPO).values() if ex.lab == LAB for f in ex.solution}
    assert set(recorded) == expected and len(expected) >= 2  # netty-frame-decoder and pooled-response
    for rel, digest in recorded.items():
        assert digest == _sha(REPO / rel)
    assert exercise_sources.record(REPO, "01-tail-latency") == {}  # a lab without exercises


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A student's checkout: the lab's solution files and the exercise list, nothing else."""
    root = tmp_path / "checkout"
    for rel in [*exercise_sources.lab_solution_files(REPO, LAB), "engine/exercises.yml"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, root / rel)
    return root


def _run_made_in(checkout: Path, tmp_path: Path) -> Path:
    run = tmp_path / "runs" / REFERENCE.name
    shutil.copytree(REFERENCE, run)
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest[exercise_sources.RUN_FIELD] = exercise_sources.record(checkout, LAB)
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def _notebook(tmp_path: Path) -> Path:
    notebook = tmp_path / f"{LAB}.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return notebook


def test_submit_packs_the_code_the_run_measured_and_the_grader_finds_nothing_wrong(
    tmp_path: Path, checkout: Path
) -> None:
    run = _run_made_in(checkout, tmp_path)
    done = submit(run, _notebook(tmp_path), tmp_path / "out", root=checkout)
    recorded = json.loads((run / "run.json").read_text(encoding="utf-8"))[exercise_sources.RUN_FIELD]
    with zipfile.ZipFile(done.zip_path) as z:
        names = z.namelist()
        for rel in recorded:
            assert z.read(f"source/{rel}") == (checkout / rel).read_bytes()
        z.extractall(tmp_path / "unpacked")
    assert sorted(n for n in names if n.startswith("source/")) == sorted(f"source/{r}" for r in recorded)
    assert exercise_sources.source_problems(tmp_path / "unpacked", names, recorded) == []


def test_submit_refuses_code_changed_since_the_run(tmp_path: Path, checkout: Path) -> None:
    run = _run_made_in(checkout, tmp_path)
    changed = exercise_sources.lab_solution_files(REPO, LAB)[0]
    (checkout / changed).write_text((checkout / changed).read_text() + "\n// a later edit\n")
    with pytest.raises(SubmitError, match=f"{changed} changed since this run measured it"):
        submit(run, _notebook(tmp_path), tmp_path / "out", root=checkout)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_the_grader_flags_code_the_run_did_not_measure(tmp_path: Path, checkout: Path) -> None:
    recorded = exercise_sources.record(checkout, LAB)
    first, *rest = sorted(recorded)
    unpacked = tmp_path / "unpacked"
    for rel in recorded:
        (unpacked / "source" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(checkout / rel, unpacked / "source" / rel)
    (unpacked / "source" / first).write_text("class Swapped {}\n")  # swapped after the run
    extra = "engine/core/src/main/java/org/heaplab/core/Other.java"  # not an exercise file
    names = [f"source/{rel}" for rel in recorded] + [f"source/{extra}"]
    problems = exercise_sources.source_problems(unpacked, names, recorded)
    assert problems == [
        f"source/{extra}: not a solution file of this lab's exercises",
        f"source/{first}: not the code the run measured (sha256 differs from run.json)",
    ]
    missing = exercise_sources.source_problems(unpacked, [f"source/{first}"], recorded)
    assert [p for p in missing if "the zip lacks it" in p] == [
        f"source/{rel}: the run measured it, but the zip lacks it" for rel in rest
    ]
    unrecorded = exercise_sources.source_problems(unpacked, names, None)
    assert unrecorded == [
        "source/ is in the zip but the run records no exercise sources (run.json exercise_sources)"
    ]
    assert exercise_sources.source_problems(unpacked, ["results/x/run.json"], recorded) == []


def test_a_run_records_the_code_only_for_a_lab_with_exercises(tmp_path: Path) -> None:
    assert _exercise_sources(REPO, LAB) == {exercise_sources.RUN_FIELD: exercise_sources.record(REPO, LAB)}
    assert _exercise_sources(REPO, "01-tail-latency") == {}
    assert _exercise_sources(tmp_path, LAB) == {}  # a checkout without engine/exercises.yml
