"""The per-student seed (heaplab.run.student): what `heaplab run --student` records and what the grader flags.

The seed in a real run (run.json and the pe clients' output) is tested in test_lab01_ci.py; the class of
submissions with a copied run in test_grading.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from heaplab.run.student import (
    COURSE_KEY_ENV,
    TOKEN_ENV,
    StudentError,
    course_tokens,
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


def test_the_record_takes_the_students_token_or_the_course_key() -> None:
    ((_, token),) = course_tokens(KEY, ["ada"])
    assert student_record("ada", {TOKEN_ENV: token}) == {"id": "ada", "seed": token}
    assert student_record("ada", {COURSE_KEY_ENV: KEY}) == {"id": "ada", "seed": student_seed(KEY, "ada")}
    assert seed_problems(student_record("ada", {TOKEN_ENV: token}), KEY) == []
    with pytest.raises(StudentError, match=f"export {TOKEN_ENV}="):
        student_record("ada", {})
    for bad_token in ("abc", "-1", str(2**63), "1" * 20):
        with pytest.raises(StudentError, match="is not a course token"):
            student_record("ada", {TOKEN_ENV: bad_token})
    for bad in ("", "../ada", "a b", "x" * 65):
        with pytest.raises(StudentError, match="use your course id"):
            student_record(bad, {COURSE_KEY_ENV: KEY})


def test_a_borrowed_token_is_flagged() -> None:
    """eve has no key: with ada's token her run carries ada's seed under her own id, which the grader
    catches; with her own token it passes."""
    tokens = dict(course_tokens(KEY, ["ada", "eve"]))
    assert tokens["ada"] != tokens["eve"]
    assert seed_problems(student_record("eve", {TOKEN_ENV: tokens["eve"]}), KEY) == []
    assert seed_problems(student_record("eve", {TOKEN_ENV: tokens["ada"]}), KEY) != []
    with pytest.raises(StudentError, match=re.escape("not a course id: '../x'")):
        course_tokens(KEY, ["ada", "../x"])


def test_the_pe_clients_get_the_seed_only_with_a_student() -> None:
    assert seed_jvm_flag(None) == []
    assert seed_jvm_flag({"id": "ada", "seed": "17"}) == ["-Dheaplab.pe.seed=17"]


def test_a_seed_that_is_not_the_ids_is_flagged() -> None:
    assert seed_problems({"id": "ada", "seed": student_seed(KEY, "ada")}, KEY) == []
    assert seed_problems({"id": "eve", "seed": student_seed(KEY, "ada")}, KEY) == [
        "the run's seed is not eve's under the course key (typed in, another student's token, or another "
        "course)"
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


def test_run_without_a_token_is_one_clean_line(fake_root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in (COURSE_KEY_ENV, TOKEN_ENV)}
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
        f"heaplab: error: --student needs your course token: export {TOKEN_ENV}=<the token your instructor "
        "gave you>"
    )
    assert not (fake_root / "results/runs").exists()


def test_course_tokens_prints_one_line_per_student(tmp_path: Path) -> None:
    ids = tmp_path / "ids.txt"
    ids.write_text("ada\n\nbob\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in (COURSE_KEY_ENV, TOKEN_ENV)}
    cmd = [sys.executable, "-m", "heaplab", "course", "tokens", str(ids)]
    p = subprocess.run(
        cmd, check=False, capture_output=True, text=True, env={**env, COURSE_KEY_ENV: KEY}, timeout=60
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == [
        "id,token",
        f"ada,{student_seed(KEY, 'ada')}",
        f"bob,{student_seed(KEY, 'bob')}",
    ]
    p = subprocess.run(cmd, check=False, capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert (
        p.stderr.strip()
        == f"heaplab: error: course tokens needs the course key: export {COURSE_KEY_ENV}=<your secret>"
    )
