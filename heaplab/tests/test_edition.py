"""The student edition (heaplab/course/edition.py, heaplab/course/exercise_tests.py,
heaplab/course/exercise_perf.py,
engine/exercises.yml): solutions out, stubs in, hidden tests gone;
it builds, and a lab's public tests fail on the stubs there and pass on the reference solutions here.

The Maven tests build the engine's core module in a copy of the repository: about a minute on 2 cores."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from heaplab.course.edition import EditionError, build_student_edition, strip_solutions
from heaplab.course.exercise_perf import grade_performance
from heaplab.course.exercise_tests import check_edition, grade_source
from heaplab.lab.exercises import ExercisesError, load_exercises
from heaplab.tests.conftest import REPO

SEEKER = "engine/core/src/main/java/org/heaplab/core/encoding/RowIndexV1Seeker.java"
SLOW = (
    "// BEGIN SOLUTION row-index\n",
    "for (long t = System.nanoTime(); System.nanoTime() - t < 20_000; ) { }\n",
)
SHORT_JMH = ["-wi", "1", "-w", "500ms", "-i", "1", "-r", "500ms", "-f", "1"]  # seconds, not minutes, per run
BUCKET_ENTRY = "engine/core/src/main/java/org/heaplab/core/cache/bucket/BucketEntry.java"

JAVA = """class Seeker {
    boolean seek(byte[] row) {
        // BEGIN SOLUTION seek
        int lo = 0;
        return lo < row.length;
        // END SOLUTION seek
        // STUB seek: throw new UnsupportedOperationException("not implemented: seek");
    }
}
"""


def test_a_solution_becomes_its_stub() -> None:
    out, ids = strip_solutions(JAVA, "Seeker.java")
    assert ids == ["seek"]
    assert "int lo = 0" not in out and "SOLUTION" not in out and "// STUB" not in out
    assert '        throw new UnsupportedOperationException("not implemented: seek");\n' in out
    assert out.startswith("class Seeker {\n    boolean seek(byte[] row) {\n        throw")


@pytest.mark.parametrize(
    ("broken", "says"),
    [
        (JAVA.replace("        // END SOLUTION seek\n", ""), "Seeker.java:3: BEGIN SOLUTION seek has no END"),
        (JAVA.replace("        // STUB seek: ", "        // "), "must be followed by its STUB"),
        (JAVA.replace("// STUB seek:", "// STUB other:"), "must be followed by its STUB"),
        (JAVA.replace("SOLUTION seek\n", "SOLUTION seek\n// BEGIN SOLUTION two\n", 1), "inside seek"),
        (JAVA.replace("        // BEGIN SOLUTION seek\n", ""), "END SOLUTION seek without its BEGIN"),
    ],
)
def test_a_malformed_marker_is_refused_with_its_line(broken: str, says: str) -> None:
    with pytest.raises(EditionError, match=says):
        strip_solutions(broken, "Seeker.java")


def test_a_performance_block_needs_a_benchmark(tmp_path: Path) -> None:
    manifest = tmp_path / "engine" / "exercises.yml"
    manifest.parent.mkdir()
    exercise = {
        "lab": "06-row-index",
        "part": "p",
        "title": "t",
        "solution": ["a.java"],
        "public_tests": ["x.T"],
    }
    manifest.write_text(
        yaml.safe_dump({"exercises": {"e": {**exercise, "performance": {"params": {"a": 1}}}}})
    )
    with pytest.raises(ExercisesError, match="exercise e's performance needs a benchmark"):
        load_exercises(tmp_path)
    manifest.write_text(
        yaml.safe_dump({"exercises": {"e": {**exercise, "performance": {"benchmark": "B.m"}}}})
    )
    assert load_exercises(tmp_path)["e"].performance.benchmark == "B.m"
    assert load_exercises(REPO)["row-index"].performance.params == {
        "encoding": "ROW_INDEX_V1",
        "valueSize": "16",
    }


@pytest.fixture(scope="module")
def edition(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("student") / "edition"
    build_student_edition(REPO, out)
    return out


def test_the_edition_has_stubs_no_solutions_and_no_hidden_tests(edition: Path) -> None:
    exercises = load_exercises(REPO)
    assert {
        "pooled-request-buffers",
        "bucket-refcount",
        "row-index",
        "preassigned-mvcc",
        "chunkmap-flatten",
        "netty-frame-decoder",
        "cell-decoders",
        "read-paths",
        "pooled-response",
    } <= set(exercises)
    assert all(ex.hidden_tests for ex in exercises.values()), "every exercise has hidden tests"
    for ex in exercises.values():
        for rel in ex.solution:
            full, student = (REPO / rel).read_text(), (edition / rel).read_text()
            assert f"BEGIN SOLUTION {ex.id}" in full and "SOLUTION" not in student, rel
            assert f'throw new UnsupportedOperationException("not implemented: labs/{ex.lab}' in student, rel
        for hidden in ex.hidden_tests:
            assert (REPO / hidden).is_file() and not (edition / hidden).exists(), hidden
    seeker = (edition / SEEKER).read_text()
    assert "(lo + hi) >>> 1" not in seeker, "the binary search is the student's to write"
    public = yaml.safe_load((edition / "engine/exercises.yml").read_text())
    assert all("hidden_tests" not in ex for ex in public["exercises"].values())
    leftovers = [p for p in edition.rglob("*.java") if "BEGIN SOLUTION" in p.read_text()]
    assert leftovers == []
    handout = (edition / "labs/04-offheap-read/README.md").read_text()
    assert "### What we measured" in (REPO / "labs/04-offheap-read/README.md").read_text()
    assert "your instructor has the reference runs' results" in handout, "the student edition of the handout"


def test_no_rubric_or_model_answer_is_in_the_edition(edition: Path) -> None:
    """The hand-graded questions' rubrics and model answers are the instructor's: no file of the student
    edition holds one (its questions.yml keeps the prompts)."""
    answers = []
    for questions in sorted(REPO.glob("labs/*/questions.yml")):
        for q in yaml.safe_load(questions.read_text())["manual"]:
            answers += [q["model_answer"], *(r["criterion"] for r in q["rubric"])]
    assert len(answers) >= 2 * len(list(REPO.glob("labs/*/questions.yml")))
    for path in (
        p for p in edition.rglob("*") if p.is_file() and p.suffix in (".yml", ".md", ".ipynb", ".py")
    ):
        text = " ".join(path.read_text(encoding="utf-8", errors="replace").split())
        found = [a[:40] for a in answers if " ".join(a.split()) in text]
        assert found == [], (path, found)
    public = yaml.safe_load((edition / "labs/03-offheap-write/questions.yml").read_text())
    assert public["manual"][0]["prompt"] and "model_answer" not in public["manual"][0]


def test_a_non_empty_directory_is_never_written_into(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(EditionError, match="is not empty"):
        build_student_edition(REPO, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def _check(root: Path, lab: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heaplab", "--root", str(root), "check", lab],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


NEEDS_MAVEN = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs Maven (the engine's build)")


@NEEDS_MAVEN
def test_every_stub_fails_and_grading_catches_a_planted_leak_with_a_hidden_test(tmp_path: Path) -> None:
    """check-edition's proof; then a student's edition graded: every exercise's reference solution put
    back, except that row-index is right but slow (a spin planted in the seek) and bucket-refcount is wrong
    (references taken, but release() never frees a slot). The reference solutions get full marks from
    the public and hidden tests, and so does row-index; its performance grade does not."""
    assert check_edition(REPO, tmp_path / "check") == []
    edition = tmp_path / "check" / "student"
    exercises = load_exercises(REPO)
    for ex in exercises.values():
        if ex.id != "bucket-refcount":
            for rel in ex.solution:
                shutil.copyfile(REPO / rel, edition / rel)
    seeker = edition / SEEKER  # correct, but each seek first spins for 20 us: about 100x the reference's seek
    seeker.write_text(seeker.read_text().replace(SLOW[0], SLOW[0] + SLOW[1], 1))
    entry = edition / BUCKET_ENTRY
    stub = next(line.strip() for line in entry.read_text().splitlines() if "not implemented" in line)
    planted = entry.read_text().replace(stub, "return refCount.getAndIncrement() > 0;", 1)
    entry.write_text(planted.replace(stub, "refCount.decrementAndGet();\n        return false;", 1))
    grades = {g.exercise: g for g in grade_source(REPO, edition, tmp_path / "grade")}
    assert set(grades) == set(exercises)
    full_marks = {e: g.failures for e, g in grades.items() if e != "bucket-refcount" and not g.passed}
    assert full_marks == {}, "the reference solutions must pass their public and hidden tests"
    leak = grades["bucket-refcount"]
    assert leak.submitted and not leak.passed
    hidden = [
        f for f in leak.failures if f.startswith("org.heaplab.core.cache.bucket.BucketRefCountHiddenTest")
    ]
    assert any("the map's was the last: free the slot" in f for f in hidden), leak.failures
    # the performance grade: the planted spin loses most of the marks (a 100x slowdown against 1.2x)
    (perf,) = grade_performance(REPO, tmp_path / "grade", [exercises["row-index"]], SHORT_JMH)
    assert perf.exercise == "row-index" and perf.slowdown > 10 and perf.marks < 0.2, perf.line()


@NEEDS_MAVEN
def test_check_runs_a_labs_public_tests() -> None:
    done = _check(REPO, "06-row-index")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "row-index: ROW_INDEX_V1" in done.stdout
    assert "06-row-index: the public tests pass" in done.stdout


def test_a_lab_without_exercises_is_a_clear_error() -> None:
    done = _check(REPO, "01-tail-latency")
    assert done.returncode == 1
    labs = (
        "03-offheap-write, 04-offheap-read, 05-netty-rpc, 06-row-index, 07-write-pipeline, 08-memstore-memory"
    )
    assert f"01-tail-latency has no exercise; the labs with exercises: {labs}" in done.stderr
