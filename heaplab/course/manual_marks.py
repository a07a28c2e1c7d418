"""The hand-graded questions of a class (questions.yml's `manual`): every submission's answer exported for
marking beside the rubric, and the marks merged back into the class sheet.

`heaplab grade` writes ``manual.csv`` (one row per submission and question: the answer as the student
wrote it, the points, an empty ``score``) and ``rubrics.md`` (each question's rubric and model answer).
The instructor fills ``score`` and grades again with ``--marks manual.csv``: each mark becomes that
question's score in class.csv and class.html, and stays in the manual.csv written again; a question
without a mark is listed as unmarked.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

MANUAL_CSV = "manual.csv"
RUBRICS = "rubrics.md"
FIELDS = ["submission", "student", "lab", "question", "points", "score", "answer"]
PLACEHOLDERS = ("_Type your answer here, replacing this text._", "_Your answer here._")


class MarksError(ValueError):
    """The marks file cannot be merged; one line saying which row and why."""


@dataclass(frozen=True)
class Manual:
    """One hand-graded question of a lab."""

    lab: str
    id: str
    points: float
    prompt: str
    rubric: str  # markdown: criteria and model answer


def _prompt_of(cell: Any, question: str) -> bool:
    """Whether a cell is the question's prompt: markdown that starts, after otter's ``<!-- BEGIN QUESTION
    -->`` marker, with ``**<id>**``."""
    if cell.cell_type != "markdown":
        return False
    text = re.sub(r"<!--.*?-->", "", cell.source, flags=re.S).lstrip()
    return text.startswith(f"**{question}**")


def answer_of(notebook: Path, question: str) -> str:
    """The student's answer to a manual question: the markdown cell after the question's prompt, or ""
    when it is missing or still the placeholder."""
    try:
        cells = nbformat.read(notebook, as_version=4).cells
    except (OSError, ValueError):
        return ""
    for i, cell in enumerate(cells[:-1]):
        if _prompt_of(cell, question):
            answer = cells[i + 1]
            text = answer.source.strip() if answer.cell_type == "markdown" else ""
            return "" if text in PLACEHOLDERS else text
    return ""


def write_sheet(rows: list[dict[str, Any]], questions: list[Manual], out: Path) -> Path:
    """manual.csv (``rows``: submission, student, lab, question, points, score, answer; a mark already
    given stays in its score) and rubrics.md."""
    out.mkdir(parents=True, exist_ok=True)
    sheet = out / MANUAL_CSV
    with sheet.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for row in rows:
            w.writerow({"score": "", **row})
    lines = ["# Hand-graded questions: rubrics and model answers (instructor only)", ""]
    for q in questions:
        lines += [f"## {q.lab} {q.id} ({q.points:g} points)", "", q.prompt, "", q.rubric, ""]
    (out / RUBRICS).write_text("\n".join(lines), encoding="utf-8")
    return sheet


def read_marks(path: Path, points: dict[tuple[str, str], float]) -> dict[tuple[str, str], float]:
    """{(submission, question): score} from a filled manual.csv; ``points`` holds each (submission,
    question) of this grading and its maximum. Blank scores are skipped (unmarked); anything else that is
    not a number from 0 to the question's points is an error naming the row."""
    try:
        with path.open(newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise MarksError(f"--marks {path}: {e.strerror}") from None
    marks: dict[tuple[str, str], float] = {}
    for n, row in enumerate(rows, start=2):  # line 1 is the header
        key = (row.get("submission") or "", row.get("question") or "")
        score = (row.get("score") or "").strip()
        if not score:
            continue
        if key not in points:
            raise MarksError(f"{path}:{n}: no submission {key[0]!r} with a manual question {key[1]!r} here")
        try:
            value = float(score)
        except ValueError:
            raise MarksError(f"{path}:{n}: score {score!r} is not a number") from None
        if not 0 <= value <= points[key]:
            raise MarksError(f"{path}:{n}: score {value:g} is outside 0..{points[key]:g}")
        marks[key] = value
    return marks
