"""The student edition: the repository without the exercises' solutions (`heaplab course student-edition`).

engine/exercises.yml lists the exercises: the lab and Part whose handout asks for it, the source files that
hold its solution, the public tests a student runs, the hidden tests only the instructor keeps. In those
source files each solution sits between two markers and is followed by the stub that replaces it:

    // BEGIN SOLUTION row-index
    ... the reference code ...
    // END SOLUTION row-index
    // STUB row-index: throw new UnsupportedOperationException("not implemented: ...");

In this (the full) edition the stub is a comment. The student edition drops the lines from BEGIN to END and
uncomments the stub, so a solution must run to the end of its method body (nothing may follow a stub that
throws). The hidden tests are left out, and so is their list in the edition's exercises.yml; the handouts
are their student editions (heaplab/course/handouts.py: no "What we measured")."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

from heaplab.course.handouts import student_edition as student_handout
from heaplab.lab.exercises import MANIFEST, Exercise, ExercisesError, load_exercises

_BEGIN = re.compile(r"^\s*// BEGIN SOLUTION (\S+)\s*$")
_END = re.compile(r"^\s*// END SOLUTION (\S+)\s*$")
_STUB = re.compile(r"^(\s*)// STUB (\S+): (.*)$")


class EditionError(ExercisesError):
    """A malformed marker, or an output directory that is not empty: one line for the user."""


def strip_solutions(text: str, where: str) -> tuple[str, list[str]]:
    """``text`` with every solution block removed and its stub uncommented, and the ids found, in order.

    Raises EditionError, naming ``where`` and the line, for a block without its END, a nested BEGIN, an END
    without a BEGIN, or a block not followed by its STUB line.
    """
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    ids: list[str] = []
    open_id: str | None = None
    opened_at = 0
    expect_stub: str | None = None
    for n, line in enumerate(lines, 1):
        begin, end, stub = _BEGIN.match(line), _END.match(line), _STUB.match(line)
        if expect_stub is not None:
            if not stub or stub.group(2) != expect_stub:
                raise EditionError(f"{where}:{n}: the solution {expect_stub} must be followed by its STUB")
            out.append(f"{stub.group(1)}{stub.group(3)}\n")
            expect_stub = None
            continue
        if begin:
            if open_id is not None:
                raise EditionError(f"{where}:{n}: BEGIN SOLUTION inside {open_id} (line {opened_at})")
            open_id, opened_at = begin.group(1), n
            ids.append(open_id)
        elif end:
            if open_id != end.group(1):
                raise EditionError(f"{where}:{n}: END SOLUTION {end.group(1)} without its BEGIN")
            open_id, expect_stub = None, end.group(1)
        elif open_id is None:
            out.append(line)
    if open_id is not None:
        raise EditionError(f"{where}:{opened_at}: BEGIN SOLUTION {open_id} has no END")
    if expect_stub is not None:
        raise EditionError(f"{where}: the solution {expect_stub} must be followed by its STUB")
    return "".join(out), ids


def tracked_files(root: Path) -> list[str]:
    """The repository's tracked files (what a clone has), relative to ``root``."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True, text=True
        )
    except (OSError, subprocess.CalledProcessError) as e:
        raise EditionError(f"{root} is not a git checkout (the edition copies its tracked files)") from e
    return [p for p in done.stdout.split("\0") if p]


@dataclass(frozen=True)
class Edition:
    out: Path
    exercises: dict[str, Exercise]
    files: int  # files written
    hidden_left_out: tuple[str, ...]


def build_student_edition(root: Path, out: Path) -> Edition:
    """Writes the student edition of the checkout at ``root`` into ``out`` (which must be empty or absent)."""
    exercises = load_exercises(root)
    if out.exists() and any(out.iterdir()):
        raise EditionError(f"{out} is not empty: give a new directory for the student edition")
    hidden = {h for ex in exercises.values() for h in ex.hidden_tests}
    declared: dict[str, list[str]] = {}
    for ex in exercises.values():
        for f in ex.solution:
            declared.setdefault(f, []).append(ex.id)
    seen: dict[str, list[str]] = {}
    written = 0
    for rel in tracked_files(root):
        src = root / rel
        if rel in hidden or not src.is_file():
            continue  # a hidden test, or a tracked file deleted in the working tree
        dst = out / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if rel == str(MANIFEST):
            dst.write_text(_public_manifest(src), encoding="utf-8")
        elif re.fullmatch(r"labs/[^/]+/README\.md", rel):  # the handouts: without "What we measured"
            dst.write_text(student_handout(src.read_text(encoding="utf-8")), encoding="utf-8")
        elif re.fullmatch(r"labs/[^/]+/questions\.yml", rel):  # without the rubrics and model answers
            dst.write_text(_public_questions(src), encoding="utf-8")
        elif rel.endswith(".java") and "BEGIN SOLUTION" in (text := src.read_text(encoding="utf-8")):
            stripped, ids = strip_solutions(text, rel)
            seen[rel] = ids
            dst.write_text(stripped, encoding="utf-8")
        else:
            shutil.copy2(src, dst)
        written += 1
    _check_markers_match(exercises, declared, seen)
    return Edition(out, exercises, written, tuple(sorted(hidden)))


def _public_questions(src: Path) -> str:
    raw = yaml.safe_load(src.read_text(encoding="utf-8")) or {}
    for q in raw.get("manual") or []:
        q.pop("rubric", None)
        q.pop("model_answer", None)
    return "# The student edition's graded questions (rubrics and model answers are the instructor's).\n" + (
        yaml.safe_dump(raw, sort_keys=False, width=100)
    )


def _public_manifest(src: Path) -> str:
    raw = yaml.safe_load(src.read_text(encoding="utf-8")) or {}
    for fields in (raw.get("exercises") or {}).values():
        fields.pop("hidden_tests", None)
    return "# The student edition's exercises (hidden tests are the instructor's).\n" + yaml.safe_dump(
        raw, sort_keys=False, allow_unicode=True
    )


def _check_markers_match(
    exercises: dict[str, Exercise], declared: dict[str, list[str]], seen: dict[str, list[str]]
) -> None:
    """Every exercise's markers are in the files the manifest names, and no file has markers it does not."""
    for rel, ids in seen.items():
        for ex_id in ids:
            if ex_id not in exercises:
                raise EditionError(f"{rel}: solution {ex_id} is not an exercise of {MANIFEST}")
            if rel not in exercises[ex_id].solution:
                raise EditionError(f"{rel}: solution {ex_id} is in a file its exercise does not list")
    for rel, ids in declared.items():
        for ex_id in ids:
            if ex_id not in seen.get(rel, []):
                raise EditionError(f"{MANIFEST}: exercise {ex_id} names {rel}, which has no solution {ex_id}")
