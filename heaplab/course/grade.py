"""`heaplab grade SUBMISSIONS --autograder ZIP`: grade a class's `heaplab submit` zips, without Docker.

For each zip in SUBMISSIONS (its name, without .zip, is the submission's name on the class sheet):
1. integrity (heaplab.course.integrity): the manifest holds; no code in the zip and a run that completed (else
   rejected: not graded); the run agrees with itself (claims recorded at its report and latency logs
   against the raw files); with the course key, the run's student seed is the student's
   (heaplab.run.student); no two submissions share a run or a seed, and none shares a raw latency log with
   another or with a committed reference run (a copied run, renamed or not); with the course's checkout,
   the run was made from a commit of its history (and with ``since``, not before that commit);
2. `otter run` with the lab's autograder zip (the instructor's, from `otter assign`) in a subprocess with a
   timeout: the score of every question, hidden tests included, from otter's results.json (run once more
   when otter fails or cannot read the notebook's results back, then flagged with its reason). Its scores are
   kept in <out>/otter-results/ (heaplab.course.otter_results) under the bytes of the zip, the autograder
   and heaplab's code: grading again with the same ones (to merge the marks of the hand-graded questions)
   reuses them instead of executing every notebook again;
3. the lab's claims judged on the submitted run alone, with heaplab's own loaders: each claim's measured
   quantity and verdict, for the class view;
4. the student's code (heaplab.runfiles.exercise_sources): the solution files under ``source/`` must be the
   ones the run measured; with ``--source`` each exercise of the lab scores 1 when its public and hidden tests
   pass on them (heaplab.course.exercise_tests.grade_source, within SOURCE_TIMEOUT_S), else 0 with the
   failures flagged.
Then class.csv (one row per submission) and class.html (heaplab.course.class_view) in the output directory.
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import shutil
import subprocess
import sys
import zipfile
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path, PurePosixPath

from heaplab.course.class_view import write_class_html
from heaplab.course.exercise_tests import grade_source
from heaplab.course.graded import Graded
from heaplab.course.integrity import (
    code_files,
    copied_runs,
    manifest_problems,
    raw_fingerprints,
    recomputation_mismatches,
    typed_answers,
)
from heaplab.course.manual_marks import Manual, answer_of, read_marks, write_sheet
from heaplab.course.master_cells import rubric_text
from heaplab.course.otter_results import OtterResults
from heaplab.course.questions import load_questions
from heaplab.course.submit import MANIFEST, RESULTS
from heaplab.judge.run_analysis import analyse
from heaplab.lab.exercises import ExercisesError, load_exercises
from heaplab.lab.sizing import usable_cores
from heaplab.lab.spec import load_spec
from heaplab.paths import SPEC_NAME
from heaplab.run.student import seed_problems, shared_runs
from heaplab.runfiles.exercise_sources import RUN_FIELD, SOURCE_DIR, source_problems
from heaplab.runfiles.rundir import unfinished

OTTER_TIMEOUT_S = 600
OTTER_TIMED_OUT = f"otter run took more than {OTTER_TIMEOUT_S} s"  # not run again: it would time out again
SOURCE_TIMEOUT_S = 900  # a student's code: the Maven build and the exercises' tests


class GradeError(Exception):
    """The grading cannot start (no submissions, no autograder); one line."""


def _unsafe_names(names: list[str]) -> list[str]:
    """Entries that would land outside the extraction directory (absolute paths, `..`)."""
    return [n for n in names if n.startswith("/") or ".." in PurePosixPath(n).parts]


def _failure(output: str) -> str:
    """One line of a failed test's output: its assertion's message, as the hidden tests word it."""
    lines = [line.strip() for line in str(output or "").splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line:
            return line[:240]
    return lines[-1][:240] if lines else "failed"


def _otter_scores(
    submission: Path, autograder: Path, out: Path
) -> tuple[dict[str, tuple[float, float]], str, dict[str, str]]:
    """Each question's (score, max) from `otter run`, an error line ("" when it ran), and for each
    question short of full marks why (its failed test's message). otter's own output stays in
    out/otter-output.txt, for the instructor to read when it failed."""
    out.mkdir(parents=True, exist_ok=True)
    otter = Path(sys.executable).with_name("otter")
    cmd = [str(otter), "run", "--no-logo", "-a", str(autograder), "-o", str(out), str(submission)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=OTTER_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return {}, OTTER_TIMED_OUT, {}
    (out / "otter-output.txt").write_text(f"{proc.stdout}\n{proc.stderr}", encoding="utf-8")
    results = out / "results.json"
    if proc.returncode != 0 or not results.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return {}, f"otter run failed ({proc.returncode}): {tail[0]}", {}
    tests = json.loads(results.read_text(encoding="utf-8")).get("tests", [])
    scores, why = {}, {}
    for test in tests:
        if test.get("max_score") is not None:
            name, score, most = str(test["name"]), float(test.get("score") or 0.0), float(test["max_score"])
            scores[name] = (score, most)
            if score < most:
                why[name] = _failure(test.get("output", ""))
    if not scores:  # otter's "Autograder Failed": the notebook ran but its results could not be read
        unscored = [t for t in tests if t.get("name") == "Autograder Exception"] or tests
        detail = _failure(unscored[-1].get("output", "")) if unscored else "no test in results.json"
        return {}, f"otter could not grade the notebook: {detail}", {}
    return scores, "", why


def _otter_scores_retried(
    submission: Path, autograder: Path, out: Path
) -> tuple[dict[str, tuple[float, float]], str, dict[str, str]]:
    """`otter run`, once more when it could not grade the notebook at all: on a loaded machine its kernel
    has failed to hand its results back (a class of lab 01 graded in CI, 2026-12-04) and a student must not
    score 0 for that. A notebook that fails twice is flagged, with otter's reason."""
    scores, error, why = _otter_scores(submission, autograder, out / "first")
    if error and error != OTTER_TIMED_OUT:
        scores, again, why = _otter_scores(submission, autograder, out / "again")
        error = f"{error}; again: {again}" if again else ""
    return scores, error, why


def _source_scores(g: Graded, unpacked: Path, source_root: Path, work: Path, timeout_s: float) -> None:
    """Score each exercise of the submission's lab on the student's code (heaplab.course.exercise_tests.
    grade_source in this checkout, ``source_root``): 1 when its public and hidden tests pass, else 0 and
    the first failures flagged."""
    try:
        mine = [ex.id for ex in load_exercises(source_root).values() if ex.lab == g.lab]
        if not mine:
            return
        grades = {x.exercise: x for x in grade_source(source_root, unpacked / SOURCE_DIR, work, timeout_s)}
    except ExercisesError as e:
        g.flags.append(f"source not graded: {str(e).splitlines()[0]}")
        return
    for ex_id in mine:
        x = grades[ex_id]
        g.scores[f"exercise {ex_id}"] = (1.0 if x.passed else 0.0, 1.0)
        if not x.submitted:
            g.flags.append(f"exercise {ex_id}: not submitted")
        g.flags += [f"exercise {ex_id}: {f}" for f in _first_failure_per_class(x.failures)]


def _first_failure_per_class(failures: tuple[str, ...]) -> list[str]:
    """One failure ("<class>: <test>: <message>") of each failing test class, in order: a public test
    class that fails everywhere must not hide the hidden one."""
    seen: dict[str, str] = {}
    for f in failures:
        seen.setdefault(f.split(": ", 1)[0], f)
    return list(seen.values())


def commit_problems(commit: str | None, course: Path, since: str | None = None) -> list[str]:
    """Whether a run's commit belongs to the course: in the history of the course's checkout
    (``course``), and with ``since`` (a revision: the course's release) not older than it."""
    if not commit:
        return ["the run records no commit (made outside a git checkout)"]

    def git(*args: str) -> int:
        return subprocess.run(["git", "-C", str(course), *args], capture_output=True, check=False).returncode

    if git("merge-base", "--is-ancestor", commit, "HEAD") != 0:
        return [
            f"the run's commit {commit[:12]} is not in the course's history (a fork, or a changed course)"
        ]
    if since and git("merge-base", "--is-ancestor", since, commit) != 0:
        return [f"the run's commit {commit[:12]} is older than the course's {since}: made for another term"]
    return []


def grade_one(
    zip_path: Path,
    autograder: Path,
    work: Path,
    *,
    course_key: str | None = None,
    course: Path | None = None,
    since: str | None = None,
    source_root: Path | None = None,
    source_timeout_s: float = SOURCE_TIMEOUT_S,
    kept: OtterResults | None = None,
) -> Graded:
    g = Graded(zip_path.stem)
    with zipfile.ZipFile(zip_path) as z:
        names = z.namelist()
        bad = code_files(names) or _unsafe_names(names)
        if bad:
            g.rejected = f"ships code or unsafe paths ({', '.join(bad[:3])}{', ...' if len(bad) > 3 else ''})"
            return g
        g.flags += manifest_problems(z)
        unpacked = work / g.name
        z.extractall(unpacked)
    recorded = None
    manifest_path = unpacked / MANIFEST
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    g.lab, g.run = manifest.get("lab"), manifest.get("run")
    notebook = unpacked / str(manifest.get("notebook") or "")
    g.notebook = notebook if notebook.suffix == ".ipynb" and notebook.is_file() else None
    student = manifest.get("student")
    g.student = student.get("id") if isinstance(student, dict) else None
    g.seed = str(student.get("seed")) if isinstance(student, dict) and student.get("seed") else None
    run_dir = unpacked / RESULTS / str(g.run) if g.run else None
    if run_dir is None or not (run_dir / "run.json").is_file():
        g.flags.append("no run in the submission")
    else:
        g.run_dir = run_dir
        run_json = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        why = unfinished(run_dir, run_json, ended=("complete",), again=False)
        if why:  # heaplab submit refuses these: a zip put together by hand
            g.rejected = why
            return g
        recorded = run_json.get(RUN_FIELD)
        if course_key:  # the run's own record: the manifest's copy is the student's to edit
            g.flags += seed_problems(run_json.get("student"), course_key)
        if course is not None:
            g.flags += commit_problems((run_json.get("git") or {}).get("commit"), course, since)
        a = analyse(run_dir)  # the submitted run alone: no other run of its series is in the zip
        g.flags += recomputation_mismatches(run_dir, a.measurements)
        g.claims = {r.claim.id: (r.quantity[0] if r.quantity else None, r.verdict) for r in a.claims}
    g.flags += source_problems(unpacked, names, recorded)
    if g.notebook is not None:
        g.flags += typed_answers(g.notebook)
    earlier = kept.get(zip_path) if kept is not None else None
    if earlier is not None:
        g.scores, g.why = earlier
        g.otter_reused = True
    else:
        g.scores, error, g.why = _otter_scores_retried(zip_path, autograder, work / f"{g.name}.otter")
        if error:
            g.flags.append(error)
        elif kept is not None:  # a failed otter run is never kept: the next grading tries again
            kept.put(zip_path, g.scores, g.why)
    if source_root is not None and any(n.startswith(f"{SOURCE_DIR}/") for n in names):
        _source_scores(g, unpacked, source_root, work / f"{g.name}.source", source_timeout_s)
    return g


def grade_all(
    submissions: Path,
    autograder: Path,
    out: Path,
    reference_dir: Path | None = None,
    course_key: str | None = None,
    *,
    source_root: Path | None = None,
    course: Path | None = None,
    since: str | None = None,
    marks: Path | None = None,
    jobs: int | None = None,
) -> list[Graded]:
    """Grade every zip under ``submissions``, ``jobs`` at a time (default: one per core); write class.csv
    and class.html into ``out`` (the class view draws the lab's newest run under ``reference_dir`` beside
    the students' values). With the course key, each run's student seed is checked (heaplab.run.student);
    without, only runs handed in twice are found.
    With ``course`` (the course's checkout), each run's commit must be in its history, and with ``since``
    not older than that revision; its labs' hand-graded questions go to manual.csv and rubrics.md for
    marking, and ``marks`` (a filled manual.csv) merges their marks in (heaplab.course.manual_marks)."""
    zips = sorted(submissions.glob("*.zip")) if submissions.is_dir() else []
    if not zips:
        raise GradeError(f"no submission zips in {submissions}")
    if not autograder.is_file():
        raise GradeError(f"autograder zip not found: {autograder} (otter assign makes it)")
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    kept = OtterResults(out / "otter-results", autograder)
    options = {
        "course_key": course_key, "course": course, "since": since, "source_root": source_root, "kept": kept
    }  # fmt: skip
    # a student's code is built with Maven on every core: those submissions go one at a time
    at_once = 1 if source_root is not None else (jobs or usable_cores())
    graded = _grade_each(zips, autograder, work, options, at_once)
    shared = shared_runs({g.name: (g.run, g.seed) for g in graded if not g.rejected})
    for g in graded:
        if g.name in shared:
            g.flags.append(f"the same run or seed as {', '.join(shared[g.name])}")
    mine = {g.name: raw_fingerprints(g.run_dir) for g in graded if g.run_dir is not None and not g.rejected}
    copies = copied_runs(mine, _reference_fingerprints(reference_dir))
    for g in graded:
        g.flags += copies.get(g.name, [])
    if course is not None:
        _hand_graded(graded, course, out, marks)
    write_class_csv(graded, out / "class.csv")
    write_class_html(graded, out / "class.html", reference_dir)
    return graded


def _grade_each(zips: list[Path], autograder: Path, work: Path, options: dict, jobs: int) -> list[Graded]:
    """grade_one on each zip, ``jobs`` at a time, each in a process of its own (the run's analysis is
    Python, otter's kernel a process); a line as each finishes; the results in the zips' order."""
    total = len(zips)
    if jobs <= 1 or total == 1:
        graded = []
        for i, zip_path in enumerate(zips, start=1):
            print(f"[{i}/{total}] {zip_path.name}", flush=True)
            graded.append(grade_one(zip_path, autograder, work, **options))
            if graded[-1].otter_reused:
                print(
                    f"[{i}/{total}] {zip_path.name}: otter's scores of an earlier grading reused", flush=True
                )
        return graded
    done: dict[Path, Graded] = {}
    spawn = multiprocessing.get_context("spawn")  # no fork of a process that may hold threads
    with ProcessPoolExecutor(max_workers=min(jobs, total), mp_context=spawn) as pool:
        pending = {pool.submit(grade_one, z, autograder, work, **options): z for z in zips}
        for i, future in enumerate(as_completed(pending), start=1):
            g = done[pending[future]] = future.result()
            reused = " (otter's scores of an earlier grading reused)" if g.otter_reused else ""
            print(f"[{i}/{total}] {pending[future].name} graded{reused}", flush=True)
    return [done[z] for z in zips]


def _hand_graded(graded: list[Graded], course: Path, out: Path, marks: Path | None) -> None:
    """Each graded submission's answers to its lab's manual questions into manual.csv (and the rubrics
    into rubrics.md); with ``marks``, each mark becomes the question's score, else it is unmarked."""
    questions: dict[str, list[Manual]] = {}
    for lab in sorted({g.lab for g in graded if g.lab and not g.rejected}):
        lab_dir = course / "labs" / lab
        if (lab_dir / "questions.yml").is_file():
            _, manual = load_questions(lab_dir, load_spec(lab_dir / SPEC_NAME))
            questions[lab] = [
                Manual(lab, str(q["id"]), float(q["points"]), str(q["prompt"]), rubric_text(q))
                for q in manual
            ]
    rows, points = [], {}
    for g in graded:
        for q in questions.get(g.lab or "", []) if not g.rejected else []:
            answer = answer_of(g.notebook, q.id) if g.notebook else ""
            rows.append(
                {"submission": g.name, "student": g.student or "", "lab": g.lab, "question": q.id,
                 "points": f"{q.points:g}", "answer": answer}
            )  # fmt: skip
            points[(g.name, q.id)] = q.points
    given = read_marks(marks, points) if marks is not None else {}
    for row in rows:  # the sheet written again keeps the marks it was given
        mark = given.get((row["submission"], row["question"]))
        row["score"] = "" if mark is None else f"{mark:g}"
    for g in graded:
        for q in questions.get(g.lab or "", []) if not g.rejected else []:
            if (g.name, q.id) in given:
                g.scores[q.id] = (given[(g.name, q.id)], q.points)
            else:
                g.unmarked[q.id] = q.points
    write_sheet(rows, [q for qs in questions.values() for q in qs], out)


def _reference_fingerprints(reference_dir: Path | None) -> dict[str, dict[str, str]]:
    """raw_fingerprints of every committed reference run (run name -> fingerprints)."""
    if reference_dir is None or not reference_dir.is_dir():
        return {}
    return {run.name: raw_fingerprints(run) for run in sorted(reference_dir.iterdir()) if run.is_dir()}


def write_class_csv(graded: list[Graded], path: Path) -> None:
    questions = sorted({q for g in graded for q in g.scores})
    claims = sorted({c for g in graded for c in g.claims})
    header = [
        "submission",
        "student",
        "lab",
        "run",
        "score",
        "max_score",
        "status",
        "flags",
        "unmarked",
        "why",
    ]
    header += [f"{q} score" for q in questions]
    header += [f"{c} {what}" for c in claims for what in ("value", "verdict")]
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for g in graded:
            score, most = g.total
            status = g.rejected or ("review" if g.flags else "ok")
            row = [g.name, g.student or "", g.lab or "", g.run or "", f"{score:g}", f"{most:g}", status]
            row.append("; ".join(g.flags))
            row.append(", ".join(f"{q} ({p:g} points)" for q, p in g.unmarked.items()))
            row.append("; ".join(f"{q}: {w}" for q, w in sorted(g.why.items())))
            row += [f"{g.scores[q][0]:g}" if q in g.scores else "" for q in questions]
            for c in claims:
                value, verdict = g.claims.get(c, (None, ""))
                row += ["" if value is None else f"{value:.6g}", verdict]
            w.writerow(row)
