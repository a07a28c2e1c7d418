"""`heaplab predict` (heaplab.runfiles.predictions): a prediction recorded before a run, carried by every
later run.

The runs here are `heaplab run` itself with each variant's playbook replaced by an instant "complete" (as
test_run_options.py does; no ansible, no server): what is tested is the run.json heaplab writes. Grading a
run that carries a prediction, one without and one made after the run, is in test_grading.py.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab import PredictionError, load_run, prediction
from heaplab.cli import main
from heaplab.run import runner
from heaplab.tests.conftest import REPO

LAB = "03-offheap-write"


@pytest.fixture
def lab_root(fake_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The minimal checkout, a questions.yml asking one prediction, and playbooks that complete at once."""
    spec = yaml.safe_load((fake_root / "labs" / LAB / "experiment.yml").read_text(encoding="utf-8"))
    claim = next(c["id"] for c in spec["claims"] if "*" in str(c["expect"]))  # one that compares two variants
    questions = {"auto": [{"id": "q6", "kind": "prediction", "claim": claim, "points": 2}]}
    (fake_root / "labs" / LAB / "questions.yml").write_text(yaml.safe_dump(questions), encoding="utf-8")

    def run_variant(*, entry: dict[str, Any], **_: Any) -> bool:
        entry["status"] = "complete"
        return True

    monkeypatch.setattr(runner, "run_variant", run_variant)
    return fake_root


def _run_json(root: Path) -> dict[str, Any]:
    (run,) = sorted((root / "results/runs").iterdir())
    return json.loads((run / "run.json").read_text(encoding="utf-8"))


def test_the_first_prediction_is_carried_by_every_later_run(
    lab_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(lab_root), "predict", LAB, "q6=0.7"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("q6: 0.7 recorded at ") and f"every run of {LAB} from now on carries it" in out
    assert main(["--root", str(lab_root), "predict", LAB, "q6=0.9"]) == 0  # a second thought, after the fact
    assert "your first prediction stays the one runs carry: 0.7" in capsys.readouterr().out
    lines = (lab_root / "results/predictions" / f"{LAB}.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["value"] for line in lines] == [0.7, 0.9]  # both kept

    assert main(["--root", str(lab_root), "run", LAB, "--scale", "ci"]) == 0
    run = _run_json(lab_root)
    assert run["predictions"]["q6"]["value"] == 0.7
    assert run["predictions"]["q6"]["made"] <= run["start"]


def test_a_run_without_a_prediction_records_none(lab_root: Path) -> None:
    assert main(["--root", str(lab_root), "run", LAB, "--scale", "ci"]) == 0
    assert "predictions" not in _run_json(lab_root)


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("q9=0.5", "'q9' is not a prediction question of this lab (its prediction questions: q6)"),
        ("q6", "'q6': write QUESTION=NUMBER, e.g. q6=0.5"),
        ("q6=half", "'q6=half': 'half' is not a number"),
        ("q6=0", "'q6=0': a predicted ratio is a number above 0"),
        ("q6=-2", "'q6=-2': a predicted ratio is a number above 0"),
        ("q6=nan", "'q6=nan': a predicted ratio is a number above 0"),
    ],
)
def test_a_bad_prediction_is_one_line_and_records_nothing(
    lab_root: Path, capsys: pytest.CaptureFixture[str], arg: str, message: str
) -> None:
    assert main(["--root", str(lab_root), "predict", LAB, arg]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"heaplab: error: {message}"]
    assert not (lab_root / "results/predictions").exists()


def test_a_prediction_leaves_the_checkout_unmodified() -> None:
    """The file is the student's, beside their runs: git ignores it, so `heaplab run --student` and
    `heaplab submit` still see a clean checkout."""
    ignored = subprocess.run(
        ["git", "-C", str(REPO), "check-ignore", "-q", f"results/predictions/{LAB}.jsonl"], check=False
    )
    assert ignored.returncode == 0


def test_a_lab_without_questions_has_nothing_to_predict(
    fake_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(fake_root), "predict", LAB, "q6=0.5"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"heaplab: error: {LAB} has no graded questions (no questions.yml): nothing to predict"
    )


def test_a_notebook_reads_only_a_prediction_made_before_the_run(lab_root: Path) -> None:
    """heaplab.prediction, which the answer's solution calls: the run's number, or one line saying why not."""
    assert main(["--root", str(lab_root), "predict", LAB, "q6=0.7"]) == 0
    assert main(["--root", str(lab_root), "run", LAB, "--scale", "ci"]) == 0
    (run_dir,) = sorted((lab_root / "results/runs").iterdir())
    run = load_run(run_dir)
    assert prediction(run, "q6") == 0.7
    missing = f"no prediction for q9: record one with `heaplab predict {LAB} q9"
    with pytest.raises(PredictionError, match=missing):
        prediction(run, "q9")
    run.manifest["predictions"]["q6"]["made"] = "2099-01-01T00:00:00Z"  # as an edited run.json would say
    with pytest.raises(PredictionError, match="dated 2099-01-01T00:00:00Z, after the run started at"):
        prediction(run, "q6")
