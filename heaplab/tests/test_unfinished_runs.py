"""Runs that did not finish: `heaplab report`, `submit` and `grade` refuse them in one line; a failed run
is still reported (its report says which variant failed and why); and what `heaplab run` prints after an
interrupt (heaplab.run.rerun). The interrupt itself, on a real run, is test_runner's."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.course.submit import submit
from heaplab.run.rerun import hints, resume_command
from heaplab.tests.conftest import reference_series

REFERENCE = reference_series("05-netty-rpc")[-1]
COMMAND = "heaplab run 03-offheap-write --scale ci"


def _set_status(run: Path, status: str, **variant_status: str) -> None:
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest["status"] = status
    for name, value in variant_status.items():
        manifest["variants"][name].update(status=value, error=f"{name} {value} on purpose")
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")


@pytest.mark.parametrize(
    ("status", "why"),
    [
        ("interrupted", "stopped by Ctrl-C or SIGTERM"),
        ("running", "heaplab is still running it, or was killed before it could finish it"),
    ],
)
def test_report_refuses_a_run_that_did_not_end(
    fixture_run: Path, capsys: pytest.CaptureFixture[str], status: str, why: str
) -> None:
    _set_status(fixture_run, status)
    assert main(["report", str(fixture_run)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"heaplab: error: {fixture_run.name} is not complete (status {status}: {why}); run it again with "
        f"`{COMMAND}`; a report needs a run that ended"
    ]
    assert not (fixture_run / "report.md").exists()


def test_report_refuses_an_unfinished_run_named_beside_a_complete_one(
    fixture_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other" / fixture_run.name
    other.parent.mkdir()
    other.symlink_to(fixture_run, target_is_directory=True)
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "run.json").write_text((fixture_run / "run.json").read_text(encoding="utf-8"), encoding="utf-8")
    (copy / "experiment.yml").write_text((fixture_run / "experiment.yml").read_text(encoding="utf-8"))
    _set_status(copy, "interrupted")
    assert main(["report", str(fixture_run), str(copy)]) == 1
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("heaplab: error: copy is not complete (status interrupted")


def test_a_failed_run_is_reported_with_its_failure(
    fixture_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _set_status(fixture_run, "failed", **{"hbase1-onheap": "failed"})
    assert main(["report", str(fixture_run)]) == 0
    report = (fixture_run / "report.md").read_text(encoding="utf-8")
    assert "status: **failed**" in report
    assert "failed: hbase1-onheap failed on purpose" in report


def _zip_with_status(tmp_path: Path, status: str) -> Path:
    """A `heaplab submit` zip of a reference run whose run.json was then edited by hand."""
    notebook = tmp_path / "05-netty-rpc.ipynb"
    notebook.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    done = submit(REFERENCE, notebook, tmp_path / "made")
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    edited = submissions / "ann.zip"
    run_json = f"results/{REFERENCE.name}/run.json"
    with zipfile.ZipFile(done.zip_path) as z, zipfile.ZipFile(edited, "w") as out:
        for name in z.namelist():
            data = z.read(name)
            if name == run_json:
                data = json.dumps({**json.loads(data), "status": status}).encode()
            out.writestr(name, data)
    return submissions


def test_grade_rejects_a_submission_whose_run_did_not_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    submissions = _zip_with_status(tmp_path, "interrupted")
    autograder = tmp_path / "autograder.zip"
    autograder.write_bytes(b"never opened: the submission is rejected first")
    code = main(
        ["grade", str(submissions), "--autograder", str(autograder), "--out", str(tmp_path / "graded")]
    )
    out = capsys.readouterr().out.splitlines()
    assert code == 1, out
    rejected = [line for line in out if line.startswith("ann: ")]
    why = "status interrupted: stopped by Ctrl-C or SIGTERM"
    # (the edited run.json no longer matches the zip's manifest: a flag for review as well)
    assert len(rejected) == 1 and rejected[0].startswith(
        f"ann: 0 / 0 REJECTED: {REFERENCE.name} is not complete ({why})"
    )
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "remaining", "resume"),
    [
        (COMMAND, ["a", "b"], f"{COMMAND} --variant a --variant b"),
        (f"{COMMAND} --variant a --variant=b --report", ["b"], f"{COMMAND} --report --variant b"),
        ("heaplab run all --scale ci", ["a"], None),  # one lab's variants: `all` cannot say it
        (COMMAND, [], None),
    ],
)
def test_the_resume_command_names_the_variants_left(
    command: str, remaining: list[str], resume: str | None
) -> None:
    assert resume_command(command, "03-offheap-write", remaining) == resume


def test_the_hints_after_an_interrupt() -> None:
    variants = {"a": {"status": "complete"}, "b": {"status": "interrupted"}, "c": {"status": "unavailable"}}
    assert hints(COMMAND, "03-offheap-write", variants) == [
        f"to run it again from the start: {COMMAND}",
        f"or only the variants it did not finish (b), as a run of their own: {COMMAND} --variant b",
    ]
