"""The course's commands: a student's `heaplab predict`, `submit` and `check`, the instructor's `course`
and `grade` (heaplab.cli parses their arguments)."""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from heaplab.course.build import CourseError, build_lab, graded_labs
from heaplab.course.edition import EditionError, build_student_edition
from heaplab.course.exercise_perf import grade_performance
from heaplab.course.exercise_tests import check_command, check_edition, grade_source
from heaplab.course.grade import GradeError, grade_all
from heaplab.course.questions import load_questions
from heaplab.course.submit import submit
from heaplab.lab.exercises import exercises_of_lab, load_exercises
from heaplab.lab.spec import load_spec, resolve_lab
from heaplab.paths import DEFAULT_RUNS_DIR, DEFAULT_SUBMISSIONS_DIR, under
from heaplab.run.student import COURSE_KEY_ENV, StudentError, course_tokens
from heaplab.runfiles import predictions
from heaplab.runfiles.predictions import PredictionError, parse_prediction
from heaplab.runfiles.rundir import resolve_run


def cmd_predict(root: Path, args: argparse.Namespace) -> int:
    """`heaplab predict LAB q6=0.5`: check every prediction against the lab's questions, then record them."""
    lab_dir = resolve_lab(root, args.lab).parent
    if not (lab_dir / "questions.yml").is_file():
        raise PredictionError(f"{args.lab} has no graded questions (no questions.yml): nothing to predict")
    auto, _ = load_questions(lab_dir, load_spec(lab_dir / "experiment.yml"))
    asked = [q.id for q in auto if q.kind == "prediction"]
    parsed = [parse_prediction(text, asked) for text in args.predictions]
    already = predictions.for_run(root, args.lab)
    for qid, value in parsed:
        line = predictions.record(root, args.lab, qid, value)
        if qid in already:
            first = already[qid]
            print(
                f"{qid}: {value} recorded at {line['made']}, but your first prediction stays the one runs "
                f"carry: {first['value']} (made {first['made']})"
            )
        else:
            print(
                f"{qid}: {value} recorded at {line['made']}; every run of {args.lab} from now on carries it"
            )
    return 0


def cmd_submit(root: Path, args: argparse.Namespace) -> int:
    run_dir = resolve_run(args.run, under(root, args.runs_dir, DEFAULT_RUNS_DIR))
    done = submit(run_dir, Path(args.notebook), under(root, args.out, DEFAULT_SUBMISSIONS_DIR), root=root)
    print(f"submission: {done.zip_path} ({done.files} files)")
    print(f"receipt (sha256): {done.sha256}")
    return 0


def cmd_check(root: Path, args: argparse.Namespace) -> int:
    exercises = exercises_of_lab(root, args.lab)
    command = check_command(root, exercises)
    for ex in exercises:
        print(f"{ex.id}: {ex.title} ({', '.join(ex.public_tests)})")
    print("$ " + shlex.join(command), flush=True)
    try:
        done = subprocess.run(command, check=False)
    except OSError as e:
        raise EditionError(f"cannot run {command[0]}: {e.strerror} (install Maven 3.8+ and a JDK 17+)") from e
    print(f"{args.lab}: the public tests {'pass' if done.returncode == 0 else 'FAIL (above: which and why)'}")
    return 0 if done.returncode == 0 else 1


def _grade_source(root: Path, args: argparse.Namespace) -> int:
    """`heaplab course grade-source`: the tests, then with --performance the benchmarks, of a submission."""
    if not args.submission:
        raise EditionError("grade-source needs the student's edition: heaplab course grade-source DIR")
    work = under(root, args.out, Path("dist/grade-source"))
    grades = grade_source(root, Path(args.submission).resolve(), work)
    for g in grades:
        verdict = "passed" if g.passed else ("not submitted" if not g.submitted else "FAILED")
        print(f"{g.exercise}: {verdict}")
        for f in g.failures[:5]:
            print(f"  {f}")
    if args.performance:
        exercises = load_exercises(root)
        passed = [exercises[g.exercise] for g in grades if g.passed]
        print(f"timing {len(passed)} passing exercise(s) against this checkout's build (a few minutes)")
        for p in grade_performance(root, work, passed):
            print(p.line())
    return 0


def cmd_course(root: Path, args: argparse.Namespace) -> int:
    if args.action == "student-edition":
        edition = build_student_edition(root, under(root, args.out, Path("dist/student-edition")))
        print(f"student edition: {edition.out} ({edition.files} files)")
        for ex in edition.exercises.values():
            print(f"  {ex.id} ({ex.lab}): {ex.title}")
        print(f"  hidden tests left out: {', '.join(edition.hidden_left_out) or 'none'}")
        return 0
    if args.action == "grade-source":
        return _grade_source(root, args)
    if args.action == "tokens":
        return _tokens(args)
    if args.action == "check-edition":
        work = under(root, args.out, Path("dist/edition-check"))
        print(f"building the student edition in {work / 'student'} and running the exercises' tests in both")
        problems = check_edition(root, work)
        for p in problems:
            print(f"  {p}")
        print(
            "check-edition: "
            + ("PROBLEMS above" if problems else "every exercise fails on its stub and passes here")
        )
        return 1 if problems else 0
    out = under(root, args.out, Path("dist/course"))
    labs = graded_labs(root)
    if not labs:
        raise CourseError(f"no lab has a questions.yml under {root / 'labs'}")
    for lab in labs:
        student, autograder = build_lab(root, lab, out)
        print(f"{lab}: student notebook {student}, autograder {autograder}")
        if args.write_notebooks:
            shutil.copyfile(student, root / "notebooks" / f"{lab}.ipynb")
    return 0


def _tokens(args: argparse.Namespace) -> int:
    """`heaplab course tokens IDS_FILE`: id,token lines for the instructor to hand out, one per student."""
    key = os.environ.get(COURSE_KEY_ENV, "")
    if not key:
        raise StudentError(f"course tokens needs the course key: export {COURSE_KEY_ENV}=<your secret>")
    if not args.submission:
        raise StudentError(
            "course tokens needs a file of course ids, one per line: heaplab course tokens IDS"
        )
    try:
        lines = Path(args.submission).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise StudentError(f"cannot read {args.submission}: {e.strerror}") from None
    print("id,token")
    for student_id, token in course_tokens(key, [line.strip() for line in lines if line.strip()]):
        print(f"{student_id},{token}")
    return 0


def cmd_grade(root: Path, args: argparse.Namespace) -> int:
    out = under(root, args.out, Path("graded"))
    key = os.environ.get(COURSE_KEY_ENV, "")
    if not key:
        print(f"note: ${COURSE_KEY_ENV} is not set: the students' seeds are not checked", file=sys.stderr)
    if (
        args.since
        and subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{args.since}^{{commit}}"],
            capture_output=True,
            check=False,
        ).returncode
    ):
        raise GradeError(f"--since {args.since}: no such commit in {root}")
    graded = grade_all(
        Path(args.submissions),
        Path(args.autograder),
        out,
        root / "results/reference",
        course_key=key or None,
        source_root=root if args.source else None,
        course=root,
        since=args.since,
        marks=Path(args.marks) if args.marks else None,
        jobs=args.jobs,
    )
    for g in graded:
        score, most = g.total
        print(
            f"{g.name}: {score:g} / {most:g}"
            + (f" REJECTED: {g.rejected}" if g.rejected else "")
            + (f" REVIEW: {len(g.flags)} flag(s)" if g.flags else "")
            + (f" UNMARKED: {', '.join(g.unmarked)}" if g.unmarked else "")
        )
    print(f"class view: {out / 'class.csv'}, {out / 'class.html'}")
    if any(g.unmarked for g in graded):
        print(
            f"to mark by hand: {out / 'manual.csv'} (fill its score column; rubrics in {out / 'rubrics.md'}),"
        )
        print("then grade again with --marks <that file>")
    return 1 if any(g.rejected for g in graded) else 0  # a rejected submission needs the instructor
