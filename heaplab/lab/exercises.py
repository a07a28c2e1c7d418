"""A lab's exercises: engine/exercises.yml, the engine code a student writes for a lab, with the tests that
grade it (heaplab.course.edition builds the student's copy without the solutions)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

MANIFEST = Path("engine/exercises.yml")


class ExercisesError(Exception):
    """A malformed manifest, or a lab without exercises: one line for the user."""


@dataclass(frozen=True)
class Performance:
    """The JMH benchmark that times an exercise's code (heaplab/course/exercise_perf.py)."""

    benchmark: str  # JMH include pattern, a regex on "Class.method"
    params: dict[str, str]


@dataclass(frozen=True)
class Exercise:
    id: str
    lab: str
    part: str
    title: str
    solution: tuple[str, ...]  # files holding the solution, relative to the repository
    public_tests: tuple[str, ...]  # JUnit classes (fully qualified) a student runs
    hidden_tests: tuple[str, ...]  # test files the student edition leaves out
    performance: Performance | None = None  # None: graded on correctness only


def load_exercises(root: Path) -> dict[str, Exercise]:
    path = root / MANIFEST
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as e:
        raise ExercisesError(f"{MANIFEST}: {e.strerror}") from e
    out = {}
    for ex_id, fields in (raw.get("exercises") or {}).items():
        missing = {"lab", "part", "title", "solution", "public_tests"} - set(fields or {})
        if missing:
            raise ExercisesError(f"{MANIFEST}: exercise {ex_id} lacks {', '.join(sorted(missing))}")
        out[ex_id] = Exercise(
            id=ex_id,
            lab=fields["lab"],
            part=str(fields["part"]),
            title=fields["title"],
            solution=tuple(fields["solution"]),
            public_tests=tuple(fields["public_tests"]),
            hidden_tests=tuple(fields.get("hidden_tests") or ()),
            performance=_performance(fields.get("performance"), ex_id),
        )
    return out


def _performance(raw: dict | None, ex_id: str) -> Performance | None:
    if not raw:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("benchmark"), str):
        raise ExercisesError(f"{MANIFEST}: exercise {ex_id}'s performance needs a benchmark")
    return Performance(raw["benchmark"], {str(k): str(v) for k, v in (raw.get("params") or {}).items()})


def exercises_of_lab(root: Path, lab: str) -> list[Exercise]:
    exercises = load_exercises(root)
    mine = [ex for ex in exercises.values() if ex.lab == lab]
    if not mine:
        labs = sorted({ex.lab for ex in exercises.values()})
        raise ExercisesError(f"{lab} has no exercise; the labs with exercises: {', '.join(labs)}")
    return mine


def junit_class_of(test_file: str) -> str:
    """engine/core/src/test/java/org/x/FooTest.java -> org.x.FooTest"""
    parts = Path(test_file).with_suffix("").parts
    return ".".join(parts[parts.index("java") + 1 :])
