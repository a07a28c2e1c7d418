"""The per-student seed (heaplab.student): what `heaplab run --student` records and what the grader flags.

The seed in a real run (run.json and the pe clients' output) is tested in test_lab01_ci.py; the class of
submissions with a copied run in test_grading.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from heaplab.student import (
    COURSE_KEY_ENV,
    StudentError,
    seed_jvm_flag,
    seed_problems,
    shared_runs,
    student_record,
    student_seed,
)

KEY = "course-key"


def test_the_seed_is_the_students_own_and_fits_a_java_long() -> None:
    ada, bob = student_seed(KEY, "ada"), student_seed(KEY, "bob")
    assert ada == student_seed(KEY, "ada") and ada != bob
    assert ada != student_seed("another course", "ada")
    assert all(0 <= int(s) < 2**63 for s in (ada, bob))


def test_the_record_needs_the_course_key_and_a_plain_id() -> None:
    assert student_record("ada", {COURSE_KEY_ENV: KEY}) == {"id": "ada", "seed": student_seed(KEY, "ada")}
    with pytest.raises(StudentError, match=f"export {COURSE_KEY_ENV}="):
        student_record("ada", {})
    for bad in ("", "../ada", "a b", "x" * 65):
        with pytest.raises(StudentError, match="use your course id"):
            student_record(bad, {COURSE_KEY_ENV: KEY})


def test_the_pe_clients_get_the_seed_only_with_a_student() -> None:
    assert seed_jvm_flag(None) == []
    assert seed_jvm_flag({"id": "ada", "seed": "17"}) == ["-Dheaplab.pe.seed=17"]


def test_a_seed_that_is_not_the_ids_is_flagged() -> None:
    assert seed_problems({"id": "ada", "seed": student_seed(KEY, "ada")}, KEY) == []
    assert seed_problems({"id": "eve", "seed": student_seed(KEY, "ada")}, KEY) == [
        "the run's seed is not eve's under the course key (typed in, or another course)"
    ]
    assert seed_problems({"id": "ada", "seed": "12345"}, KEY) != []
    assert seed_problems(None, KEY) == ["the run has no student seed (made without `heaplab run --student`)"]


def test_runs_and_seeds_handed_in_twice() -> None:
    runs = {
        "ada": ("01-local-20261125T120222Z", "1"),
        "eve": ("01-local-20261125T120222Z", "1"),  # ada's run, copied
        "cy": ("01-local-20261125T115452Z", "3"),
        "dan": ("01-local-20261125T130000Z", "3"),  # another run with cy's seed
        "fay": ("01-local-20261125T140000Z", None),  # no seed: nothing to compare
        "gus": ("01-local-20261125T150000Z", None),
    }
    assert shared_runs(runs) == {"ada": ["eve"], "eve": ["ada"], "cy": ["dan"], "dan": ["cy"]}


def test_run_without_the_course_key_is_one_clean_line(fake_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != COURSE_KEY_ENV}
    p = subprocess.run(
        [sys.executable, "-m", "heaplab", "run", "03-offheap-write", "--scale", "ci", "--student", "ada"],
        capture_output=True,
        text=True,
        env={**env, "HEAPLAB_ROOT": str(fake_root)},
        timeout=120,
        check=False,
    )
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip() == (
        f"heaplab: error: --student needs the course key: export {COURSE_KEY_ENV}=<your instructor's key>"
    )
    assert not (fake_root / "results/runs").exists()
