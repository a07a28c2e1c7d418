"""`heaplab submit RUN --notebook NB` on a copy of a committed reference run (a real local run of lab 05):
the zip holds the notebook at its top, the run unchanged under results/<run>/ and a manifest whose sha256
of every file matches the zip's bytes; the receipt is the zip's sha256. A run that cannot be graded fairly
(not complete, modified checkout, ci scale, secrets check missing or not clean, no run.json) and a file
that is not a notebook are refused with one line and exit 2, leaving no zip behind."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from heaplab.cli import main
from heaplab.course.submit import MANIFEST
from heaplab.runfiles import exercise_sources
from heaplab.tests.conftest import REPO, reference_series

REFERENCE = reference_series("05-netty-rpc")[-1]


@pytest.fixture
def run_and_notebook(tmp_path: Path) -> tuple[Path, Path]:
    run = tmp_path / "runs" / REFERENCE.name
    shutil.copytree(REFERENCE, run)
    # As if made from this checkout: its exercise solution files are what `heaplab run` records now (the
    # reference run measured the files of its own commit; refusing changed ones is test_exercise_sources')
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest[exercise_sources.RUN_FIELD] = exercise_sources.record(REPO, "05-netty-rpc")
    (run / "run.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    notebook = tmp_path / "05-netty-rpc.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return run, notebook


def _submit(tmp_path: Path, run: Path, notebook: Path) -> int:
    out = str(tmp_path / "out")
    return main(["--root", str(REPO), "submit", str(run), "--notebook", str(notebook), "--out", out])


def test_the_zip_holds_notebook_run_and_a_manifest_that_matches_it(
    tmp_path: Path, run_and_notebook: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run, notebook = run_and_notebook
    assert _submit(tmp_path, run, notebook) == 0
    (zip_path,) = (tmp_path / "out").iterdir()
    assert zip_path.name.startswith("05-netty-rpc-anonymous-") and zip_path.suffix == ".zip"
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"submission: {zip_path} (") and out[0].endswith(" files)")
    assert out[1] == f"receipt (sha256): {hashlib.sha256(zip_path.read_bytes()).hexdigest()}"
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        manifest = json.loads(z.read(MANIFEST))
        assert names[0] == "05-netty-rpc.ipynb"
        run_files = sorted(str(p.relative_to(run)) for p in run.rglob("*") if p.is_file())
        in_run = [n for n in names[1:-1] if n.startswith(f"results/{run.name}/")]
        assert sorted(n.removeprefix(f"results/{run.name}/") for n in in_run) == run_files
        # the exercise solution files the run measured, as they are in the repository (unchanged since)
        recorded = json.loads((run / "run.json").read_text(encoding="utf-8"))["exercise_sources"]
        sources = sorted(set(names[1:-1]) - set(in_run))
        assert sources == sorted(exercise_sources.zip_name(r) for r in recorded)
        for rel in recorded:
            assert z.read(exercise_sources.zip_name(rel)) == (REPO / rel).read_bytes()
        assert set(manifest["files"]) == set(names) - {MANIFEST}
        for name, digest in manifest["files"].items():
            assert hashlib.sha256(z.read(name)).hexdigest() == digest, name
        assert z.read(f"results/{run.name}/run.json") == (run / "run.json").read_bytes()
    original = json.loads((REFERENCE / "run.json").read_text(encoding="utf-8"))
    assert manifest["lab"] == "05-netty-rpc" and manifest["scale"] == "local"
    assert manifest["commit"] == original["git"]["commit"]
    assert manifest["spec_sha256"] == original["spec_sha256"] and manifest["hosts"] == ["localhost"]


def _edit_run_json(run: Path, **changes: Any) -> None:
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    for key, value in changes.items():
        if value is None:
            manifest.pop(key, None)
        else:
            manifest[key] = value
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"status": "interrupted"}, "is not complete (status interrupted): submit a run that finished"),
        ({"scale": "ci"}, "is a ci run, which proves the pipeline only: submit a local run"),
        ({"git": {"commit": "abc", "dirty": True}}, "was made from a modified checkout (git dirty: True)"),
        ({"secrets_check": {"clean": False, "findings": [{}]}}, "its secrets check is missing or not clean"),
        ({"secrets_check": None}, "its secrets check is missing or not clean"),
    ],
)
def test_a_run_that_cannot_be_graded_is_refused(
    tmp_path: Path,
    run_and_notebook: tuple[Path, Path],
    capsys: pytest.CaptureFixture[str],
    changes: dict[str, Any],
    message: str,
) -> None:
    run, notebook = run_and_notebook
    _edit_run_json(run, **changes)
    assert _submit(tmp_path, run, notebook) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("heaplab: error: ") and message in err[0], err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_no_run_json_and_no_notebook_are_refused(
    tmp_path: Path, run_and_notebook: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run, notebook = run_and_notebook
    assert _submit(tmp_path, run, run / "report.md") == 2
    assert "is not a notebook file (.ipynb)" in capsys.readouterr().err
    (run / "run.json").unlink()
    assert _submit(tmp_path, run, notebook) == 2
    assert "is not a run directory (no run.json)" in capsys.readouterr().err
