"""One graded submission: what `heaplab grade` found and scored, and what class.html shows of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Graded:
    name: str
    lab: str | None = None
    run: str | None = None
    run_dir: Path | None = None  # the run, unpacked
    student: str | None = None
    seed: str | None = None  # the run's student seed (heaplab run --student)
    rejected: str | None = None  # why the submission was not graded at all
    flags: list[str] = field(default_factory=list)  # integrity findings for the instructor to review
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)  # question -> (score, max)
    claims: dict[str, tuple[float | None, str]] = field(default_factory=dict)  # id -> (quantity, verdict)
    notebook: Path | None = None  # the submitted notebook, unpacked
    unmarked: dict[str, float] = field(default_factory=dict)  # hand-graded question -> its points
    why: dict[str, str] = field(default_factory=dict)  # question short of full marks -> its failed check
    otter_reused: bool = False  # its scores are those `otter run` gave in an earlier grading of the same zip

    @property
    def total(self) -> tuple[float, float]:
        return sum(s for s, _ in self.scores.values()), sum(m for _, m in self.scores.values())
