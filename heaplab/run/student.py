"""A course's per-student seed: `heaplab run --student ID` and the grader's check of it.

The seed is the HMAC-SHA256 of the course key and the student's id (its first 63 bits, as a decimal string
so that Java's Long.getLong reads it). It is recorded in run.json (`student: {id, seed}`) and seeds the
engine's PE clients (-Dheaplab.pe.seed, the pe output says so), so each student's rows and values are their
own.

The course key is the instructor's alone (HEAPLAB_COURSE_KEY, never given out). Each student gets their
own seed as a **token** (`heaplab course tokens` prints one per id) and runs with it in
HEAPLAB_STUDENT_TOKEN: a student can make runs for their own id only, since the token of another id
cannot be derived without the key. (A run may still be made with the key itself, as the instructor's
own check runs are.)

What the grader can tell from it: a run made for another student (its id or seed is not the submitter's),
one run handed in twice, and a seed that is not the key's for its id (typed in, or borrowed with another
student's token). What it cannot: two students who swap machines or tokens by agreement; spot reruns
catch that.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Mapping
from typing import Any

COURSE_KEY_ENV = "HEAPLAB_COURSE_KEY"  # the instructor's secret
TOKEN_ENV = "HEAPLAB_STUDENT_TOKEN"  # noqa: S105 (a variable name): one student's seed, from the instructor
SEED_PROPERTY = "heaplab.pe.seed"  # the engine's PeClient.SEED_PROPERTY
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
_TOKEN = re.compile(r"[0-9]{1,19}")


class StudentError(ValueError):
    """`--student` cannot be used as given; one line for the user."""


def student_seed(course_key: str, student_id: str) -> str:
    digest = hmac.new(course_key.encode(), student_id.encode(), hashlib.sha256).digest()
    return str(int.from_bytes(digest[:8], "big") >> 1)  # 63 bits: a positive Java long


def student_record(student_id: str, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """run.json's `student` for `heaplab run --student ID`: the seed is the student's token, or derived
    from the course key when that is set instead (the instructor's runs)."""
    env = os.environ if environ is None else environ
    if not _ID.fullmatch(student_id):
        raise StudentError(
            f"--student {student_id!r}: use your course id (letters, digits, . _ @ -; at most 64 characters)"
        )
    token, key = env.get(TOKEN_ENV, "").strip(), env.get(COURSE_KEY_ENV, "")
    if token:
        if not _TOKEN.fullmatch(token) or int(token) >= 1 << 63:
            raise StudentError(
                f"${TOKEN_ENV} is not a course token (digits only, as your instructor gave it)"
            )
        return {"id": student_id, "seed": token}
    if key:
        return {"id": student_id, "seed": student_seed(key, student_id)}
    raise StudentError(
        f"--student needs your course token: export {TOKEN_ENV}=<the token your instructor gave you>"
    )


def course_tokens(course_key: str, student_ids: list[str]) -> list[tuple[str, str]]:
    """(id, token) for each student: what `heaplab course tokens` prints for the instructor to hand out."""
    bad = [i for i in student_ids if not _ID.fullmatch(i)]
    if bad:
        raise StudentError(f"not a course id: {bad[0]!r} (letters, digits, . _ @ -; at most 64 characters)")
    return [(i, student_seed(course_key, i)) for i in student_ids]


def seed_jvm_flag(student: Mapping[str, Any] | None) -> list[str]:
    """The client JVM flag that seeds the PE clients, or nothing for a run without a student."""
    return [f"-D{SEED_PROPERTY}={student['seed']}"] if student else []


def seed_problems(student: Any, course_key: str) -> list[str]:
    """What is wrong with a submitted run's `student` record, checked against the course key."""
    if not isinstance(student, Mapping) or not student.get("id"):
        return ["the run has no student seed (made without `heaplab run --student`)"]
    if str(student.get("seed")) != student_seed(course_key, str(student["id"])):
        return [
            f"the run's seed is not {student['id']}'s under the course key (typed in, another student's "
            "token, or another course)"
        ]
    return []


def shared_runs(runs: Mapping[str, tuple[str | None, str | None]]) -> dict[str, list[str]]:
    """Submissions that hand in the same run or one student's seed: {submission: [the others]}.

    ``runs`` maps each submission to (its run's name, its run's seed); a run's name holds its start time
    to the second, so two students' runs share one only when one run was copied.
    """
    by_key: dict[tuple[str, str], list[str]] = {}
    for name, (run, seed) in runs.items():
        for key in (("run", run), ("seed", seed)):
            if key[1]:
                by_key.setdefault(key, []).append(name)
    shared: dict[str, list[str]] = {}
    for names in by_key.values():
        for name in names:
            others = [n for n in names if n != name and n not in shared.get(name, [])]
            if others:
                shared.setdefault(name, []).extend(others)
    return shared
