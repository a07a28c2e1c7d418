"""Running the exercises' JUnit tests (engine/exercises.yml, heaplab/course/edition.py): `heaplab check LAB`
for a student, `heaplab course check-edition` and `grade-source` for the instructor. Maven builds the modules
the tests need and runs just those classes; the verdicts come from the fresh surefire reports."""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

from heaplab.course.edition import EditionError, build_student_edition, tracked_files
from heaplab.lab.exercises import MANIFEST, Exercise, junit_class_of, load_exercises


def engine_module_of(root: Path, test_class: str) -> str:
    """The engine module (core, rpc, ...) whose src/test/java holds the JUnit class ``test_class``."""
    rel = Path(*test_class.split(".")).with_suffix(".java")
    found = [p.parts[-len(rel.parts) - 4] for p in (root / "engine").glob(f"*/src/test/java/{rel}")]
    if len(found) != 1:
        raise EditionError(f"{MANIFEST}: public test {test_class} is in {len(found)} engine modules, not one")
    return found[0]


def maven_test_command(root: Path, classes: list[str]) -> list[str]:
    """The Maven command that builds the engine modules the JUnit ``classes`` (fully qualified) need, then
    runs just those classes."""
    modules = sorted({engine_module_of(root, t) for t in classes})
    return [
        "mvn", "-B", "-q", "-f", str(root / "engine" / "pom.xml"), "-pl", ",".join(modules), "-am", "test",
        "-Dtest=" + ",".join(t.rsplit(".", 1)[1] for t in classes),
        "-Dsurefire.failIfNoSpecifiedTests=false",
    ]  # fmt: skip


def check_command(root: Path, exercises: list[Exercise]) -> list[str]:
    """What `heaplab check LAB` runs: the exercises' public tests."""
    return maven_test_command(root, [t for ex in exercises for t in ex.public_tests])


def run_maven(root: Path, command: list[str], what: str, timeout_s: float) -> None:
    """Runs a Maven ``command`` on the checkout at ``root``; EditionError (naming ``what``) when it fails."""
    try:
        subprocess.run(command, capture_output=True, text=True, check=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        raise EditionError(f"{what} did not finish within {timeout_s:g} s in {root}") from e
    except OSError as e:
        raise EditionError(f"cannot run mvn: {e.strerror} (install Maven 3.8+ and a JDK 17+)") from e
    except subprocess.CalledProcessError as e:
        raise EditionError(
            f"{what}: the engine does not build in {root}:\n{(e.stdout + e.stderr)[-3000:]}"
        ) from e


def run_tests(root: Path, classes: list[str], timeout_s: float = 1800) -> dict[str, list[str]]:
    """Runs the JUnit ``classes`` (fully qualified) in the checkout at ``root`` with Maven, and returns each
    class's failure and error messages from its fresh surefire report (an empty list: it passed)."""
    started = time.time()
    # a build failure raises; test failures are ignored here and read from the reports
    run_maven(
        root, [*maven_test_command(root, classes), "-Dmaven.test.failure.ignore=true"], "the tests", timeout_s
    )
    results = {}
    for t in classes:
        report = root / "engine" / engine_module_of(root, t) / "target" / "surefire-reports" / f"TEST-{t}.xml"
        if not report.is_file() or report.stat().st_mtime < started - 1:
            raise EditionError(f"{t} did not run in {root} (no fresh {report.name})")
        suite = ElementTree.parse(report).getroot()  # noqa: S314 (our own build wrote it)
        results[t] = [
            f"{case.get('name')}: {problem.get('message') or problem.get('type')}"
            for case in suite.iter("testcase")
            for problem in (*case.iter("failure"), *case.iter("error"))
        ]
    return results


def check_edition(root: Path, work: Path) -> list[str]:
    """What is wrong with the two editions (nothing: an empty list). The student edition is written to
    ``work``/student and must build, and every exercise's public test classes must fail there, on a stub
    (a failure that says "not implemented"); here, in the full edition, its public and hidden tests pass."""
    edition = build_student_edition(root, work / "student")
    problems = []
    public = sorted({t for ex in edition.exercises.values() for t in ex.public_tests})
    hidden = sorted({junit_class_of(h) for h in edition.hidden_left_out})
    for t, failures in run_tests(root, public + hidden).items():
        problems += [f"full edition: {t}: {f}" for f in failures]
    for t, failures in run_tests(edition.out, public).items():
        if not failures:
            problems.append(f"student edition: {t} passes without the solution")
        elif not any("not implemented" in f for f in failures):  # it fails, but never reaches a stub
            problems += [f"student edition: {t}: {f}" for f in failures]
    return problems


@dataclass(frozen=True)
class ExerciseGrade:
    exercise: str
    submitted: bool
    failures: tuple[str, ...]  # "<test class>: <test>: <message>", public and hidden tests alike

    @property
    def passed(self) -> bool:
        return self.submitted and not self.failures


def grade_source(root: Path, submission: Path, work: Path, timeout_s: float = 900) -> list[ExerciseGrade]:
    """Grades a student's source: the exercise files found in ``submission`` (a student edition, or any
    directory holding them at their repository paths) go into a copy of this checkout's engine made in
    ``work``, whose public and hidden tests then run within ``timeout_s``. Only the solution files are
    taken from the submission: its tests, if any, are not used."""
    exercises = load_exercises(root)
    if work.exists() and any(work.iterdir()):
        raise EditionError(f"{work} is not empty: give a new directory to grade in")
    for rel in tracked_files(root):
        if rel.startswith("engine/") and (root / rel).is_file():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / rel, work / rel)
    submitted = []
    for ex in exercises.values():
        if all((submission / f).is_file() for f in ex.solution):
            for f in ex.solution:
                shutil.copyfile(submission / f, work / f)
            submitted.append(ex)
    classes = sorted({t for ex in submitted for t in _tests_of(ex)})
    results = run_tests(work, classes, timeout_s) if classes else {}
    grades = []
    for ex in exercises.values():
        mine = _tests_of(ex)
        failures = tuple(f"{t}: {f}" for t in mine for f in results.get(t, []))
        grades.append(ExerciseGrade(ex.id, ex in submitted, failures))
    return grades


def _tests_of(ex: Exercise) -> tuple[str, ...]:
    """An exercise's public and hidden JUnit classes."""
    return (*ex.public_tests, *map(junit_class_of, ex.hidden_tests))
