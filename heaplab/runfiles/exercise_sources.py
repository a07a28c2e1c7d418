"""A student's own code, from the run it was measured in to the grader (docs/grading.md).

When a lab has exercises (engine/exercises.yml), ``heaplab run`` records in run.json the sha256 of each of
their solution files as the checkout held them (``exercise_sources``): the run measured that code.
``heaplab submit`` packs those files under ``source/<repository path>`` and refuses if one has changed
since the run; ``heaplab grade --source`` checks them against the run's record, then runs the exercises'
public and hidden tests on them (heaplab.course.exercise_tests.grade_source) and scores each exercise.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath

from heaplab.lab.exercises import MANIFEST, ExercisesError, load_exercises

SOURCE_DIR = "source"  # where a submission zip holds the student's solution files
RUN_FIELD = "exercise_sources"  # run.json: {repository path: sha256}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lab_solution_files(root: Path, lab: str) -> list[str]:
    """The solution files of ``lab``'s exercises, sorted; none when the checkout lists no exercises."""
    if not (root / MANIFEST).is_file():
        return []
    try:
        exercises = load_exercises(root)
    except ExercisesError:
        return []  # a broken manifest is check-edition's to report, not a reason to stop a run
    return sorted({f for ex in exercises.values() if ex.lab == lab for f in ex.solution})


def record(root: Path, lab: str) -> dict[str, str]:
    """run.json's ``exercise_sources``: each solution file of ``lab`` and its sha256 in the checkout."""
    return {f: _sha256(root / f) for f in lab_solution_files(root, lab) if (root / f).is_file()}


def changed_since_run(root: Path, recorded: dict[str, str]) -> list[str]:
    """The recorded files that are missing or different in the checkout now."""
    return [
        f for f, digest in sorted(recorded.items()) if not (root / f).is_file() or _sha256(root / f) != digest
    ]


def zip_name(rel: str) -> str:
    return f"{SOURCE_DIR}/{rel}"


def source_problems(unpacked: Path, names: list[str], recorded: dict[str, str] | None) -> list[str]:
    """What is wrong with the ``source/`` files of an unpacked submission, one line each: a file the run
    did not record, a recorded file left out, a file that is not the code the run measured."""
    shipped = sorted(
        PurePosixPath(n).relative_to(SOURCE_DIR).as_posix()
        for n in names
        if PurePosixPath(n).parts[:1] == (SOURCE_DIR,) and not n.endswith("/")
    )
    if not shipped:
        return []
    if recorded is None:
        return [f"{SOURCE_DIR}/ is in the zip but the run records no exercise sources (run.json {RUN_FIELD})"]
    out = [
        f"{SOURCE_DIR}/{f}: not a solution file of this lab's exercises" for f in shipped if f not in recorded
    ]
    out += [
        f"{SOURCE_DIR}/{f}: the run measured it, but the zip lacks it" for f in recorded if f not in shipped
    ]
    out += [
        f"{SOURCE_DIR}/{f}: not the code the run measured (sha256 differs from run.json)"
        for f in shipped
        if f in recorded and _sha256(unpacked / SOURCE_DIR / f) != recorded[f]
    ]
    return out
