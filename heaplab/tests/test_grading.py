"""Graded notebooks end to end, with the real otter-grader (no Docker) and real runs.

`heaplab course build` (heaplab.course.build) makes the student notebook and the autograder of every lab with
`otter assign`. Submissions are made with `heaplab submit` from the committed reference runs (real
local runs of the labs), with the student notebook answered by code as a student would, and graded with
`heaplab grade` (`otter run` per submission):
- an honest submission of each lab gets every auto-graded point (the hidden tests recompute each answer
  from the submitted run and agree);
- in a class of lab 01: the honest one; one whose .hlog lost its three slowest seconds before submit (an
  integrity flag, and its P99.9 no longer matches the run's own summary); one with a P99.9 typed in from
  another run of the series (the public test passes, the hidden one fails); one shipping a `heaplab/`
  package (rejected, not graded); one handing in another student's run under her own id (its seed is not
  hers: flagged, and so is the original, for review); the committed reference run handed in, renamed; a
  run from a commit outside the course; one whose notebook otter could not read the first
  time (graded in full on the second run, no flag) and one it can never read (flagged with otter's reason).
  class.csv has a row per submission with its score, status and flags;
  class.html has the table and one strip plot per claim, and a real headless Chromium renders it: the
  screenshot shows the blue dots, the red ones of the flagged submissions and the reference run's green
  line;
- in a class of lab 03 (pe runs, with predictions), the seven an instructor meets there: two honest ones
  (answered in place, and with `run_dir` set as Part 3 of the handout says) with full marks and no flag; a
  number typed in right from report.md; halved latencies; a file taken out of the zip; no prediction, and a
  prediction dated after the run: each flagged with its reason or losing the question it concerns. (What
  does not depend on the lab is in lab 01's class: another run's number typed in, the reference run handed
  in, another student's seed, a commit outside the course.)
"""

from __future__ import annotations

import csv
import html
import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import matplotlib.image
import nbformat
import pytest
import yaml
from hdrh.histogram import HdrHistogram

from heaplab.course.build import build_lab, graded_labs
from heaplab.course.grade import commit_problems, grade_all
from heaplab.course.manual_marks import MarksError
from heaplab.course.questions import load_questions
from heaplab.course.submit import submit
from heaplab.lab.spec import load_spec
from heaplab.run.student import student_seed
from heaplab.runfiles import exercise_sources
from heaplab.runfiles.hlog import decode
from heaplab.runfiles.rundir import newest_run_of
from heaplab.tests.conftest import REPO, reference_series

REFERENCE = REPO / "results/reference"
# every graded lab's newest reference run (real local runs); lab 01's class uses its series by name
RUNS = {lab: newest_run_of(lab, REFERENCE) for lab in graded_labs(REPO)}
OTHER_RUN_OF_THE_SERIES = reference_series("01-tail-latency")[0]
THIRD_RUN_OF_THE_SERIES = reference_series("01-tail-latency")[1]
COURSE_KEY = "test-course-key"


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    out = tmp_path_factory.mktemp("course")
    return {lab: build_lab(REPO, lab, out) for lab in RUNS}


def _solutions(lab: str) -> list[str]:
    auto, _ = load_questions(REPO / "labs" / lab, load_spec(REPO / "labs" / lab / "experiment.yml"))
    return [q.solution for q in auto]


def answered(student: Path, dest: Path, answers: list[str]) -> Path:
    """The student notebook with its auto-graded answer cells filled in, in question order."""
    nb = nbformat.read(student, as_version=4)
    cells = [
        c for c in nb.cells if c.cell_type == "code" and "otter_answer_cell" in c.metadata.get("tags", [])
    ]
    assert len(cells) == len(answers)
    for cell, code in zip(cells, answers, strict=True):
        cell.source = "from pathlib import Path\n\n" + code
    dest.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest / student.name)
    return dest / student.name


def _submission(
    tmp: Path,
    name: str,
    run: Path,
    notebook: Path,
    into: Path,
    student: dict[str, str] | None = None,
    source: Path | None = None,
    made_by: str | None = "",
    predicted: str | None = "2026-11-01T00:00:00Z",  # before every reference run
) -> Path:
    """`heaplab submit` of a copy of ``run``. The reference runs were made without `--student`: the copy's
    run.json gets the student record `heaplab run --student <name>` writes, and each of its latency logs a
    comment line naming the student who made it (``made_by``, default ``name``), so its bytes are that
    student's, not the reference run's (a stand-in for a real run per student, which would take minutes
    each; the seeding itself is tested on a real run in test_student_seed.py). ``made_by=None``: the
    reference run handed in as it is. ``predicted``: when the student made the prediction `heaplab predict`
    leaves for every later run (test_predictions.py runs it for real), a guess of 0.5 per prediction
    question; None: no prediction."""
    copy = tmp / name / "runs" / run.name
    shutil.copytree(run, copy)
    if made_by is not None:
        for hlog in copy.glob("*/client/*.hlog"):
            with hlog.open("a", encoding="utf-8") as f:
                f.write(f"#[a stand-in for {made_by or name}'s own run]\n")
    manifest = json.loads((copy / "run.json").read_text(encoding="utf-8"))
    if "secrets_check" not in manifest:  # lab 04's reference run predates the check: give its copy one
        manifest["secrets_check"] = {"clean": True, "findings": []}
    manifest["student"] = student or {"id": name, "seed": student_seed(COURSE_KEY, name)}
    if predicted is not None and made_by is not None:
        lab_dir = REPO / "labs" / manifest["lab"]
        auto, _ = load_questions(lab_dir, load_spec(lab_dir / "experiment.yml"))
        guess = {"value": 0.5, "made": predicted}
        manifest["predictions"] = {q.id: guess for q in auto if q.kind == "prediction"}
    if source is not None:  # the student's checkout: the run measured its exercise files
        manifest[exercise_sources.RUN_FIELD] = exercise_sources.record(source, manifest["lab"])
    (copy / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    done = submit(copy, notebook, tmp / name / "out", root=source)
    into.mkdir(parents=True, exist_ok=True)
    return done.zip_path.replace(into / f"{name}.zip")


# One lab per way its files are laid out: pe on the engine (03, 04), ycsb (02, 10), an Apache HBase variant
# (11); labs 01 and 03 are graded in the classes below, and lab 04's honest notebook in the test of the
# student's code (every notebook point, no flag but the planted leak's). Every lab's autograder is built by
# the fixture, and every lab's honest submission passes (run with HEAPLAB_GRADE_EVERY_LAB=1; about 15 s a
# lab).
HONEST = (
    sorted(RUNS)
    if os.environ.get("HEAPLAB_GRADE_EVERY_LAB")
    else ["02-g1-tuning", "10-ycsb-cluster", "11-vs-apache-hbase"]
)


# labs 01 and 03: their class tests grade honest submissions (and lab 03's one with `run_dir` set as Part 3
# says, and one with a right number typed in from report.md) beside the wrong ones
@pytest.mark.parametrize("lab", [lab for lab in HONEST if lab not in ("01-tail-latency", "03-offheap-write")])
def test_an_honest_submission_gets_every_auto_point(
    tmp_path: Path, course: dict[str, tuple[Path, Path]], lab: str
) -> None:
    student, autograder = course[lab]
    notebook = answered(student, tmp_path / "nb", _solutions(lab))
    _submission(tmp_path, "honest", RUNS[lab], notebook, tmp_path / "class")
    (g,) = grade_all(tmp_path / "class", autograder, tmp_path / "graded", REFERENCE, COURSE_KEY, course=REPO)
    assert g.flags == [] and g.rejected is None, g.flags
    score, most = g.total
    assert most > 0 and score == most, g.scores


def test_a_run_from_outside_the_course_is_flagged(tmp_path: Path) -> None:
    """The run's commit against the course's checkout: in its history, and not older than --since."""
    run_commit = json.loads((RUNS["03-offheap-write"] / "run.json").read_text(encoding="utf-8"))["git"][
        "commit"
    ]
    assert commit_problems(run_commit, REPO) == []
    assert commit_problems(run_commit, REPO, since=run_commit) == []
    (foreign,) = commit_problems("0123456789ab" * 3 + "0123", REPO)
    assert (
        foreign
        == "the run's commit 0123456789ab is not in the course's history (a fork, or a changed course)"
    )
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
    if head.strip() != run_commit:  # the series was made before this checkout's HEAD
        (old,) = commit_problems(run_commit, REPO, since=head.strip())
        assert old.startswith(f"the run's commit {run_commit[:12]} is older than the course's ")
    assert commit_problems(None, REPO) == ["the run records no commit (made outside a git checkout)"]


def test_hand_graded_answers_go_out_for_marking_and_the_marks_come_back(
    tmp_path: Path, course: dict[str, tuple[Path, Path]]
) -> None:
    """The manual question's answer, as the student wrote it, lands in manual.csv beside its rubric; the
    marks typed into that sheet become the question's score, and survive grading again."""
    lab = "03-offheap-write"
    student, autograder = course[lab]
    notebook = answered(student, tmp_path / "nb", _solutions(lab))
    nb = nbformat.read(notebook, as_version=4)
    (prompt,) = [
        i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and "**q4** (6 points" in c.source
    ]
    nb.cells[prompt + 1].source = "The copies went, the rest of the garbage stayed."
    nbformat.write(nb, notebook)
    _submission(tmp_path, "ada", RUNS[lab], notebook, tmp_path / "class")
    out = tmp_path / "graded"
    (g,) = grade_all(tmp_path / "class", autograder, out, REFERENCE, COURSE_KEY, course=REPO)
    assert not g.otter_reused and (out / "otter-results").is_dir()
    assert g.unmarked == {"q4": 6.0} and "q4" not in g.scores
    with (out / "manual.csv").open(encoding="utf-8") as f:
        (row,) = csv.DictReader(f)
    assert (row["submission"], row["question"], row["points"], row["score"]) == ("ada", "q4", "6", "")
    assert row["answer"] == "The copies went, the rest of the garbage stayed."
    model = yaml.safe_load((REPO / "labs" / lab / "questions.yml").read_text(encoding="utf-8"))["manual"][0]
    rubrics = (out / "rubrics.md").read_text(encoding="utf-8")
    assert model["model_answer"] in rubrics and model["rubric"][0]["criterion"] in rubrics

    marks = tmp_path / "marks.csv"
    marks.write_text(
        (out / "manual.csv").read_text(encoding="utf-8").replace(",6,,", ",6,4.5,"), encoding="utf-8"
    )
    (g,) = grade_all(tmp_path / "class", autograder, out, REFERENCE, COURSE_KEY, course=REPO, marks=marks)
    assert g.otter_reused, "the same zip graded again: otter's scores of the first grading are reused"
    assert g.scores["q4"] == (4.5, 6.0) and g.unmarked == {}
    with (out / "class.csv").open(encoding="utf-8") as f:
        (row,) = csv.DictReader(f)
    assert row["q4 score"] == "4.5" and row["unmarked"] == ""
    with (out / "manual.csv").open(encoding="utf-8") as f:
        assert next(csv.DictReader(f))["score"] == "4.5"

    marks.write_text(marks.read_text(encoding="utf-8").replace(",6,4.5,", ",6,7,"), encoding="utf-8")
    with pytest.raises(MarksError, match=r"marks.csv:2: score 7 is outside 0..6"):
        grade_all(tmp_path / "class", autograder, out, REFERENCE, COURSE_KEY, course=REPO, marks=marks)


@pytest.mark.parametrize("lab", sorted(RUNS))
def test_no_model_answer_reaches_the_student(course: dict[str, tuple[Path, Path]], lab: str) -> None:
    """The rubric and model answer are in the instructor's master notebook only: not in the student
    notebook otter assign made, nor in the student's handout."""
    student, _ = course[lab]
    _, manual = load_questions(REPO / "labs" / lab, load_spec(REPO / "labs" / lab / "experiment.yml"))
    master = (student.parents[2] / "master" / f"{lab}.ipynb").read_text(encoding="utf-8")
    handout = (student.parent / "README.md").read_text(encoding="utf-8")
    text = student.read_text(encoding="utf-8")
    for q in manual:
        first_words = " ".join(q["model_answer"].split()[:12])
        assert json.dumps(first_words)[1:-1] in master, "the master notebook should hold the model answer"
        assert json.dumps(first_words)[1:-1] not in text and first_words not in handout


NEEDS_MAVEN = pytest.mark.skipif(shutil.which("mvn") is None, reason="needs Maven (the engine's build)")
BUCKET_ENTRY = "engine/core/src/main/java/org/heaplab/core/cache/bucket/BucketEntry.java"


@NEEDS_MAVEN
def test_the_students_code_is_graded_by_the_hidden_tests(
    tmp_path: Path, course: dict[str, tuple[Path, Path]]
) -> None:
    """Lab 04 with its two exercises handed in as code: read-paths as the reference has it, bucket-refcount
    with a planted leak (release() never frees a slot). The run's record says it measured exactly these
    files (the copy of the reference run gets the record `heaplab run` writes from the student's checkout);
    `heaplab grade --source` runs the public and hidden JUnit tests on them with Maven."""
    lab = "04-offheap-read"
    student, autograder = course[lab]
    checkout = tmp_path / "checkout"
    for rel in [*exercise_sources.lab_solution_files(REPO, lab), "engine/exercises.yml"]:
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, checkout / rel)
    entry = checkout / BUCKET_ENTRY
    assert "return n == 0;" in entry.read_text()
    entry.write_text(entry.read_text().replace("return n == 0;", "return false; // never frees the slot", 1))
    notebook = answered(student, tmp_path / "nb", _solutions(lab))
    _submission(tmp_path, "fay", RUNS[lab], notebook, tmp_path / "class", source=checkout)
    (g,) = grade_all(
        tmp_path / "class", autograder, tmp_path / "graded", REFERENCE, COURSE_KEY, source_root=REPO
    )
    assert g.rejected is None
    assert g.scores["exercise read-paths"] == (1.0, 1.0)
    assert g.scores["exercise bucket-refcount"] == (0.0, 1.0)
    hidden = [f for f in g.flags if f.startswith("exercise bucket-refcount: org.heaplab.core.cache.bucket.")]
    assert any("BucketRefCountHiddenTest" in f for f in hidden), g.flags
    assert not [f for f in g.flags if f.startswith("source/")]  # the code is what the run measured
    # the honest notebook of lab 04: every point, and no flag but the planted leak's
    assert [f for f in g.flags if not f.startswith("exercise bucket-refcount: ")] == [], g.flags
    notebook_points = [s for q, s in g.scores.items() if not q.startswith("exercise ")]
    assert notebook_points and all(score == most for score, most in notebook_points), g.why


def _with_last_cell(notebook: Path, dest: Path, source: str) -> Path:
    nb = nbformat.read(notebook, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell(source))
    dest.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dest / notebook.name)
    return dest / notebook.name


# otter's last cell reads `Checker` from otter.execute to score the tests: without it, otter cannot read
# the notebook's results and reports "Autograder Failed" (with exit code 0 and no scored question)
BREAK_OTTER_RESULTS = "import otter.execute\n{guard}otter.execute.Checker = None\n"


def test_a_class_of_lab_01(tmp_path: Path, course: dict[str, tuple[Path, Path]]) -> None:
    lab = "01-tail-latency"
    student, autograder = course[lab]
    honest = answered(student, tmp_path / "honest-nb", _solutions(lab))
    submissions = tmp_path / "class"
    _submission(tmp_path, "ada", RUNS[lab], honest, submissions)

    edited = tmp_path / "edited-run" / THIRD_RUN_OF_THE_SERIES.name
    shutil.copytree(THIRD_RUN_OF_THE_SERIES, edited)
    hlog = edited / "hbase1-onheap/client/get-localhost.hlog"
    lines = hlog.read_text(encoding="utf-8").splitlines(keepends=True)
    intervals = [line for line in lines if not line.startswith(("#", '"'))]
    # bob drops the three slowest seconds, lowering his P99.9 by about 6%
    slowest = sorted(intervals, key=lambda line: float(line.split(",")[2]))[-3:]
    hlog.write_text("".join(line for line in lines if line not in slowest), encoding="utf-8")
    _submission(tmp_path, "bob", edited, honest, submissions)

    # cy hands in their own run with the P99.9 of ada's run typed in: right unit, plausible, not theirs
    other = RUNS[lab] / "hbase1-onheap/client/get-localhost.json"
    p999 = json.loads(other.read_text(encoding="utf-8"))["latency_us"]["p999"] / 1000
    typed = answered(student, tmp_path / "typed-nb", [f"q1_p999_ms = {p999}", _solutions(lab)[1]])
    _submission(tmp_path, "cy", OTHER_RUN_OF_THE_SERIES, typed, submissions)

    # eve hands in ada's run with her own id in it: the seed is still ada's
    ada_seed = student_seed(COURSE_KEY, "ada")
    _submission(
        tmp_path,
        "eve",
        RUNS[lab],
        honest,
        submissions,
        student={"id": "eve", "seed": ada_seed},
        made_by="ada",
    )
    # fin hands in the committed reference run, renamed, as her own (its seed her own: she has the key)
    renamed = tmp_path / "renamed" / "01-tail-latency-local-20261203T101010Z"
    shutil.copytree(OTHER_RUN_OF_THE_SERIES, renamed)
    _submission(tmp_path, "fin", renamed, honest, submissions, made_by=None)

    _submission(tmp_path, "dee", RUNS[lab], honest, submissions)
    with zipfile.ZipFile(submissions / "dee.zip", "a") as z:
        z.writestr("heaplab/__init__.py", "raise SystemExit('shadowed')\n")

    # gil's run was made from a commit the course never had (a fork of it)
    forked = tmp_path / "forked" / "01-tail-latency-local-20261204T080000Z"
    shutil.copytree(THIRD_RUN_OF_THE_SERIES, forked)
    manifest = json.loads((forked / "run.json").read_text(encoding="utf-8"))
    manifest["git"]["commit"] = "f" * 40
    (forked / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    _submission(tmp_path, "gil", forked, honest, submissions)

    # hal hands in a run of his own (the stand-in: a renamed copy), honestly answered: nothing to flag, even
    # though otter could not read his notebook's results the first time (a stand-in for a kernel that failed
    # to hand them back on a loaded machine, which once scored an honest notebook 0 of 0 without a flag)
    own = tmp_path / "own" / "01-tail-latency-local-20261205T090000Z"
    shutil.copytree(THIRD_RUN_OF_THE_SERIES, own)
    marker = tmp_path / "broke-once"
    once = f"import os\nif not os.path.exists({str(marker)!r}):\n    open({str(marker)!r}, 'w').close()\n    "
    flaky = _with_last_cell(honest, tmp_path / "hal-nb", BREAK_OTTER_RESULTS.format(guard=once))
    _submission(tmp_path, "hal", own, flaky, submissions)
    # jo's notebook breaks otter's results every time: flagged with otter's reason
    broken = _with_last_cell(honest, tmp_path / "jo-nb", BREAK_OTTER_RESULTS.format(guard=""))
    jos = tmp_path / "jos" / "01-tail-latency-local-20261205T100000Z"
    shutil.copytree(OTHER_RUN_OF_THE_SERIES, jos)
    _submission(tmp_path, "jo", jos, broken, submissions)

    graded = {
        g.name: g
        for g in grade_all(submissions, autograder, tmp_path / "graded", REFERENCE, COURSE_KEY, course=REPO)
    }
    assert graded["hal"].flags == [] and graded["hal"].total == graded["ada"].total
    assert marker.exists()  # hal's first otter run failed and the second graded it
    (jo_flag,) = graded["jo"].flags
    assert (
        jo_flag.startswith("otter could not grade the notebook: ") and "; again: otter could not" in jo_flag
    )
    assert "EOFError" in jo_flag and graded["jo"].total == (0, 0)  # otter's reason: no results written
    kept = {
        json.loads(f.read_text(encoding="utf-8"))["name"]
        for f in (tmp_path / "graded/otter-results").glob("*")
    }
    assert "jo.zip" not in kept and "hal.zip" in kept  # a failure is never kept
    assert graded["gil"].flags == [
        "the run's commit ffffffffffff is not in the course's history (a fork, or a changed course)"
    ]
    full = graded["ada"].total
    assert full[0] == full[1] > 0
    # the copy puts the original up for review
    ada_flags, eve_flags = graded["ada"].flags, graded["eve"].flags
    assert ada_flags[0] == "the same run or seed as eve" and len(ada_flags) == 2
    assert ada_flags[1].startswith("the same raw latency logs as eve (") and ada_flags[1].endswith(".hlog)")
    assert graded["eve"].total == full
    assert eve_flags[:2] == [
        "the run's seed is not eve's under the course key (typed in, another student's token, or another "
        "course)",
        "the same run or seed as ada",
    ]
    assert len(eve_flags) == 3 and eve_flags[2].startswith("the same raw latency logs as ada (")
    (copied,) = graded["fin"].flags
    assert copied.startswith(f"its raw latency logs are the reference run {OTHER_RUN_OF_THE_SERIES.name}'s")
    assert any("get-localhost.hlog" in f and "its summary" in f for f in graded["bob"].flags), graded[
        "bob"
    ].flags
    assert graded["bob"].scores["q1"][0] < graded["bob"].scores["q1"][1]  # P99.9 from the edited log
    (typed_in,) = graded["cy"].flags  # typed in, and wrong for his own run
    assert typed_in == f"q1_p999_ms is typed in (q1_p999_ms = {p999}), not computed from the run"
    assert graded["cy"].scores["q1"][0] < graded["cy"].scores["q1"][1]
    assert graded["cy"].scores["q2"] == graded["ada"].scores["q2"]
    assert (
        graded["dee"].rejected
        and "heaplab/__init__.py" in graded["dee"].rejected
        and not graded["dee"].scores
    )

    with (tmp_path / "graded/class.csv").open(encoding="utf-8") as f:
        rows = {r["submission"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"ada", "bob", "cy", "dee", "eve", "fin", "gil", "hal", "jo"}
    assert rows["cy"]["status"] == "review" == rows["bob"]["status"] == rows["eve"]["status"]
    assert rows["fin"]["status"] == "review" and rows["hal"]["status"] == "ok"
    assert rows["dee"]["status"].startswith("ships code")
    assert rows["ada"]["p999-far-above-avg verdict"] in (
        "reproduced",
        "direction",
        "not reproduced",
        "inconclusive",
    )
    page = (tmp_path / "graded/class.html").read_text(encoding="utf-8")
    claims = {c for g in graded.values() for c in g.claims}
    valued = {c for c in claims if any(g.claims.get(c, (None,))[0] is not None for g in graded.values())}
    assert page.count("<svg") == len(valued) >= 2  # a panel without any value says why instead
    assert page.count(html.escape("no submission's run gives this claim a value")) == len(claims - valued)
    assert graded["cy"].why["q1"] and "of the submitted run is" in graded["cy"].why["q1"]
    assert html.escape(graded["cy"].why["q1"]) in page  # a score short of full marks says why
    assert "article 100" in page and "reference run" in page
    png = tmp_path / "class.png"
    screenshot(tmp_path / "graded/class.html", png)
    assert pixels_near(png, (31, 119, 180)) > 50, "no blue dots: the strip plots did not render"
    assert pixels_near(png, (214, 39, 40)) > 50, "no red dots: the flagged submissions are not marked"
    assert pixels_near(png, (44, 160, 44)) > 50, "no green line: the reference run is not drawn"


def screenshot(page: Path, png: Path) -> None:
    """class.html rendered by a real headless Chromium (Debian's package; .ci/run installs it)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed: apt-get install chromium (.ci/run does)")
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--screenshot={png}", "--window-size=1400,3000", page.as_uri()],
        capture_output=True, timeout=120, check=True,
    )  # fmt: skip


def pixels_near(png: Path, rgb: tuple[int, int, int], tolerance: int = 40) -> int:
    image = matplotlib.image.imread(png)[:, :, :3] * 255
    return int((abs(image - rgb).max(axis=2) <= tolerance).sum())


@pytest.mark.parametrize("lab", sorted(RUNS))
def test_the_shipped_notebook_is_the_built_student_notebook(
    course: dict[str, tuple[Path, Path]], lab: str
) -> None:
    """notebooks/<lab>.ipynb is what `heaplab course build --write-notebooks` makes: rebuild after editing
    the notebook's analysis cells or questions.yml."""
    built = nbformat.read(course[lab][0], as_version=4)
    shipped = nbformat.read(REPO / "notebooks" / f"{lab}.ipynb", as_version=4)
    assert [(c.cell_type, c.source) for c in shipped.cells] == [(c.cell_type, c.source) for c in built.cells]
    assert shipped.metadata["otter"]["tests"] == built.metadata["otter"]["tests"]  # the public tests


def halve_latencies(hlog: Path) -> None:
    """Every latency of ``hlog`` halved, interval by interval, and written back as an HdrHistogram log
    writer would: a forged log that still decodes (its summary beside it left as it was)."""
    out = []
    for line in hlog.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.startswith(("#", '"')):
            out.append(line)
            continue
        start, length, _, payload = line.strip().split(",")
        h = decode(payload)
        half = HdrHistogram(1, h.highest_trackable_value, h.significant_figures)
        for item in h.get_recorded_iterator():
            half.record_value(max(1, item.value_iterated_to // 2), item.count_at_value_iterated_to)
        out.append(f"{start},{length},{half.get_max_value():.3f},{half.encode().decode()}\n")
    hlog.write_text("".join(out), encoding="utf-8")


def test_a_class_of_lab_03(tmp_path: Path, course: dict[str, tuple[Path, Path]]) -> None:
    """The submissions an instructor meets in a lab of pe runs with predictions, graded together: two honest
    ways to follow the handout (answers computed in place; `run_dir` set to the run as Part 3 says) get full
    marks and no flag; each wrong one is flagged or loses the question, with its reason. What does not
    depend on the lab (a wrong number typed in, the reference run handed in, another student's seed, a
    commit outside the course) is in the class of lab 01 above."""
    lab = "03-offheap-write"
    student, autograder = course[lab]
    reference = RUNS[lab]
    stamps = iter(range(10, 60))

    def own_run() -> Path:  # each student's own run: a copy under a name of its own (see _submission)
        copy = tmp_path / "own" / f"03-offheap-write-local-20261205T0900{next(stamps)}Z"
        shutil.copytree(reference, copy)
        return copy

    solutions = _solutions(lab)
    honest = answered(student, tmp_path / "honest-nb", solutions)
    submissions = tmp_path / "class"
    _submission(tmp_path, "ada", own_run(), honest, submissions)

    with_run_dir = answered(student, tmp_path / "run-dir-nb", solutions)
    nb = nbformat.read(with_run_dir, as_version=4)
    (params,) = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    bea_run = own_run()
    params.source = params.source.replace("run_dir = None", f'run_dir = "/home/bea/runs/{bea_run.name}"')
    nbformat.write(nb, with_run_dir)
    _submission(tmp_path, "bea", bea_run, with_run_dir, submissions)

    summary_file = reference / "hbase1-onheap/client/single_put-localhost.json"
    summary = json.loads(summary_file.read_text(encoding="utf-8"))
    p999 = round(summary["latency_us"]["p999"] / 1000, 2)
    from_report = answered(student, tmp_path / "report-nb", [f"q1_p999_ms = {p999}", *solutions[1:]])
    _submission(tmp_path, "dan", own_run(), from_report, submissions)  # from report.md: right, not computed

    halved = own_run()
    halve_latencies(halved / "hbase1-onheap/client/single_put-localhost.hlog")
    _submission(tmp_path, "eli", halved, honest, submissions)

    _submission(tmp_path, "gus", own_run(), honest, submissions)
    pruned = submissions / "gus-pruned.zip"
    with zipfile.ZipFile(submissions / "gus.zip") as src, zipfile.ZipFile(pruned, "w") as dst:
        dropped = next(n for n in src.namelist() if n.endswith("single_put-localhost.hlog"))
        for item in src.infolist():
            if item.filename != dropped:
                dst.writestr(item, src.read(item.filename))
    pruned.replace(submissions / "gus.zip")

    # jo made no prediction before the run; kai made hers after it
    _submission(tmp_path, "jo", own_run(), honest, submissions, predicted=None)
    _submission(tmp_path, "kai", own_run(), honest, submissions, predicted="2026-12-31T00:00:00Z")

    graded = {
        g.name: g
        for g in grade_all(submissions, autograder, tmp_path / "graded", REFERENCE, COURSE_KEY, course=REPO)
    }
    full = graded["ada"].total
    assert full[0] == full[1] > 0 and graded["ada"].flags == []
    assert graded["bea"].total == full and graded["bea"].flags == []  # following Part 3 costs nothing
    typed = "q1_p999_ms is typed in (q1_p999_ms = {}), not computed from the run"
    assert graded["dan"].flags == [typed.format(p999)]
    forged = "hbase1-onheap/client/single_put-localhost.hlog: mean "
    assert any(f.startswith(forged) for f in graded["eli"].flags), graded["eli"].flags
    assert graded["gus"].rejected is None or "missing from the zip" in graded["gus"].rejected
    gus_reasons = [*graded["gus"].flags, graded["gus"].rejected or ""]
    assert any(f"missing from the zip: {dropped}" in r for r in gus_reasons), gus_reasons
    # a run without a prediction loses that question's points only, and is told why
    assert graded["jo"].flags == [] and graded["jo"].scores["q6"] == (0.0, 2.0)
    assert "carries no prediction for q6" in graded["jo"].why["q6"]
    assert all(graded["jo"].scores[q] == graded["ada"].scores[q] for q in graded["ada"].scores if q != "q6")
    assert graded["kai"].scores["q6"] == (0.0, 2.0)
    assert "the prediction was made at 2026-12-31T00:00:00Z, after the run started" in graded["kai"].why["q6"]
    with (tmp_path / "graded/class.csv").open(encoding="utf-8") as f:
        rows = {r["submission"]: r for r in csv.DictReader(f)}
    assert {n for n, r in rows.items() if r["status"] == "ok"} == {"ada", "bea", "jo", "kai"}
