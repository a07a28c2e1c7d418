"""A student's predictions, made before the runs that test them.

`heaplab predict LAB QID=NUMBER` appends one line to results/predictions/<lab>.jsonl (ignored by git, like
the runs): the question, the number and when it was made. Every run of the lab started afterwards records,
in run.json's ``predictions``, the first prediction made for each question (a second `predict` of the same
question is kept in the file but does not replace the first: a prediction is what one thought before
seeing a result). A question of kind ``prediction`` (heaplab.course.questions) asks for one, and its hidden
test checks that the run handed in carries it, made before the run started.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

FOLDER = Path("results/predictions")


class PredictionError(ValueError):
    """A prediction that cannot be recorded; one line saying why."""


def path_of(root: Path, lab: str) -> Path:
    return root / FOLDER / f"{lab}.jsonl"


def parse_prediction(text: str, questions: list[str]) -> tuple[str, float]:
    """``q6=0.5`` as (question, value); the question must be one of ``questions`` (the lab's prediction
    questions) and the value a ratio above 0."""
    qid, sep, value = text.partition("=")
    if not sep:
        raise PredictionError(
            f"{text!r}: write QUESTION=NUMBER, e.g. {questions[0] if questions else 'q6'}=0.5"
        )
    if qid not in questions:
        asks = ", ".join(questions) if questions else "none"
        raise PredictionError(
            f"{qid!r} is not a prediction question of this lab (its prediction questions: {asks})"
        )
    try:
        number = float(value)
    except ValueError:
        raise PredictionError(f"{text!r}: {value!r} is not a number") from None
    if not math.isfinite(number) or number <= 0:
        raise PredictionError(f"{text!r}: a predicted ratio is a number above 0")
    return qid, number


def record(root: Path, lab: str, qid: str, value: float, now: datetime | None = None) -> dict[str, Any]:
    """Append one prediction to the lab's file; returns the line written."""
    made = (now or datetime.now(timezone.utc)).isoformat(timespec="seconds").replace("+00:00", "Z")
    line = {"question": qid, "value": value, "made": made}
    path = path_of(root, lab)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    return line


def prediction(run: Any, qid: str) -> float:
    """The number predicted for ``qid`` that ``run`` (a heaplab.Run) carries, for a notebook's answer.
    Refuses, saying why, a run that carries none and one whose prediction is dated after the run started:
    that is not a prediction (the runner records only those made before it starts, so only an edited
    run.json holds one)."""
    made = run.predictions.get(qid)
    if made is None:
        raise PredictionError(
            f"this run carries no prediction for {qid}: record one with `heaplab predict "
            f"{run.lab} {qid}=<number>`, then run the lab again"
        )
    if _instant(made["made"]) > _instant(run.started):
        raise PredictionError(
            f"the prediction for {qid} is dated {made['made']}, after the run started at "
            f"{run.started}: a prediction is made before the run"
        )
    return float(made["value"])


def _instant(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def for_run(root: Path, lab: str) -> dict[str, dict[str, Any]]:
    """The first prediction of each question of the lab, {question: {value, made}}, for run.json; a line
    that does not parse (a hand edit, a half-written line) is left out."""
    path = path_of(root, lab)
    if not path.is_file():
        return {}
    first: dict[str, dict[str, Any]] = {}
    for raw in path.read_text(encoding="utf-8").splitlines():
        try:
            line = json.loads(raw)
            qid, value, made = str(line["question"]), float(line["value"]), str(line["made"])
        except (ValueError, KeyError, TypeError):
            continue
        first.setdefault(qid, {"value": value, "made": made})
    return first
