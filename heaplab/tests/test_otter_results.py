"""The otter scores kept between gradings (heaplab.course.otter_results): reused only for the same
submission bytes, autograder bytes, heaplab code and otter version. The zips here are plain files: the
store reads their bytes only (test_grading.py grades a real submission twice with the real otter)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heaplab.course.otter_results import OtterResults

SCORES = {"q1": (1.0, 1.0), "q2": (0.0, 2.0)}
WHY = {"q2": "AssertionError: q2_p999_ms is not the run's P99.9"}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "ada.zip").write_bytes(b"ada's submission")
    (tmp_path / "autograder.zip").write_bytes(b"the autograder")
    return tmp_path / "ada.zip", tmp_path / "autograder.zip"


def test_the_same_zip_and_autograder_get_the_kept_scores(tmp_path: Path, files: tuple[Path, Path]) -> None:
    zip_path, autograder = files
    kept = OtterResults(tmp_path / "otter-results", autograder)
    assert kept.get(zip_path) is None
    kept.put(zip_path, SCORES, WHY)
    again = OtterResults(tmp_path / "otter-results", autograder)  # the next `heaplab grade`
    assert again.get(zip_path) == (SCORES, WHY)
    assert not list((tmp_path / "otter-results").glob("*.tmp"))


def test_a_changed_zip_or_autograder_is_graded_again(tmp_path: Path, files: tuple[Path, Path]) -> None:
    zip_path, autograder = files
    OtterResults(tmp_path / "otter-results", autograder).put(zip_path, SCORES, WHY)
    zip_path.write_bytes(b"ada's submission, handed in again")
    assert OtterResults(tmp_path / "otter-results", autograder).get(zip_path) is None
    zip_path.write_bytes(b"ada's submission")
    autograder.write_bytes(b"the autograder, with a new hidden test")
    assert OtterResults(tmp_path / "otter-results", autograder).get(zip_path) is None


def test_other_code_or_a_damaged_file_is_not_reused(tmp_path: Path, files: tuple[Path, Path]) -> None:
    zip_path, autograder = files
    kept = OtterResults(tmp_path / "otter-results", autograder)
    kept.put(zip_path, SCORES, WHY)
    (record,) = (tmp_path / "otter-results").glob("*.json")
    data = json.loads(record.read_text(encoding="utf-8"))
    data["made_by"]["heaplab"] = "0" * 64  # graded by an older heaplab: its hidden tests may differ
    record.write_text(json.dumps(data), encoding="utf-8")
    assert kept.get(zip_path) is None
    record.write_text('{"submission": ', encoding="utf-8")  # a half-written file of another tool
    assert kept.get(zip_path) is None
