"""The ``heaplab`` command: ``labs``, ``run``, ``report``, ``compare``, ``verdicts``, ``alloc-stages``.

User errors (unknown lab or scale, no engine build, not a run directory) print one ``heaplab: error: ...``
line on stderr and exit non-zero, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from heaplab.cli_course import cmd_check, cmd_course, cmd_grade, cmd_predict, cmd_submit
from heaplab.cli_runs import (
    DEFAULT_REPEATS,
    cmd_alloc_stages,
    cmd_compare,
    cmd_labs,
    cmd_reference,
    cmd_report,
    cmd_run,
    cmd_verdicts,
)
from heaplab.course.build import CourseError
from heaplab.course.grade import GradeError
from heaplab.course.manual_marks import MarksError
from heaplab.course.questions import QuestionError
from heaplab.course.submit import SubmitError
from heaplab.judge import auto_repeat
from heaplab.lab.exercises import ExercisesError
from heaplab.lab.schema import SpecError
from heaplab.paths import (
    DEFAULT_INVENTORY,
    DEFAULT_RUNS_DIR,
    DEFAULT_SUBMISSIONS_DIR,
    REFERENCE_DIR,
    find_root,
)
from heaplab.run import disk_full
from heaplab.run.options import EXIT_INTERRUPTED, ORDER_RANDOM, ORDERS, RunSetupError
from heaplab.run.student import COURSE_KEY_ENV, TOKEN_ENV, StudentError
from heaplab.runfiles.predictions import PredictionError
from heaplab.runfiles.rundir import RunError

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="heaplab", description="Run the HeapLab labs and report on their runs.")
    p.add_argument("--root", help="repository root (default: $HEAPLAB_ROOT or the checkout above the cwd)")
    sub = p.add_subparsers(
        dest="cmd",
        required=True,
        metavar="{labs,run,report,compare,verdicts,alloc-stages,check,submit,course,grade}",
    )
    sub.add_parser("labs", help="list the labs and their titles")
    run = sub.add_parser("run", help="run a lab (or all) through the playbooks")
    run.add_argument("lab", help="lab name (a directory under labs/) or 'all'")
    run.add_argument(
        "--scale",
        default="local",
        help="ci | local | paper, as the lab's experiment.yml defines them (default: local, sized to this "
        "machine)",
    )
    run.add_argument("--inventory", help=f"ansible inventory (default {DEFAULT_INVENTORY})")
    run.add_argument("--runs-dir", help=f"where run directories go (default {DEFAULT_RUNS_DIR})")
    run.add_argument("--report", action="store_true", help="write each run's report when it ends")
    # e.g. a JDK 21+ for a variant with `jdk: 21` (generational ZGC)
    run.add_argument(
        "--java-home",
        help="JDK home (absolute, as on the hosts) every host runs the engine with: sets heaplab_java_home",
    )
    _add_series_options(run)  # --repeat, --budget, --max-runs, --order, --order-seed, --aa
    run.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this variant of the lab (repeatable); the others are recorded unavailable and the "
        "claims that need them are not measurable",
    )
    run.add_argument(
        "--fixed-scale",
        action="store_true",
        help="run `local` with the lab's numbers as written, not sized to this machine's cores and memory",
    )
    run.add_argument(
        "--student",
        metavar="ID",
        help=f"your course id: the workload gets your own seed, kept in run.json (needs ${TOKEN_ENV}, the "
        "token your instructor gave you)",
    )
    cmp_ = sub.add_parser("compare", help="a lab's metrics across runs: mean and 95%% CI per variant")
    cmp_.add_argument("runs", nargs="+", help="run directories of one lab and scale")
    cmp_.add_argument(
        "--metric", action="append", help="a metric to compare (repeatable; default: latency, GC)"
    )
    # async-profiler flame graphs of the servers and the pe/ycsb clients
    run.add_argument(
        "--profile",
        metavar="EVENTS",
        help="async-profiler events, comma separated: cpu, alloc, lock (flame graphs linked from the report)",
    )
    ver = sub.add_parser(
        "verdicts",
        help="claims by verdict, one table per kind of claim, a row per article and subject, over reported "
        "runs; --write / --check the tables generated into the docs (heaplab/report/verdict_table.py)",
    )
    ver.add_argument("runs", nargs="*", help="run directories with a claims.json (the newest per lab counts)")
    ver_mode = ver.add_mutually_exclusive_group()
    ver_mode.add_argument(
        "--write",
        action="store_true",
        help="rewrite the tables between the `heaplab verdicts` markers of results/reference/README.md, "
        "docs/*.md and labs/*/README.md (each marker names its runs)",
    )
    ver_mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1, with a diff naming the file, when a generated table differs from its runs",
    )
    ver.add_argument(
        "--doc",
        action="append",
        default=[],
        metavar="FILE",
        help="with --write or --check: only this file (repeatable; default: every file with the markers)",
    )
    _alloc_stages_parser(sub)
    chk = sub.add_parser("check", help="run the public tests of a lab's exercises (engine/exercises.yml)")
    chk.add_argument("lab", help="lab name, e.g. 06-row-index")
    _student_parsers(sub)
    crs = sub.add_parser("course", help="instructors: build the graded notebooks and their autograders")
    crs.add_argument(
        "action",
        choices=["build", "tokens", "student-edition", "check-edition", "grade-source"],
        help="build: otter assign for every lab with questions.yml; tokens: each student's token (their "
        f"seed, from ${COURSE_KEY_ENV}) for the ids in the file given, one per line; student-edition: this "
        "checkout with the "
        "exercises' solutions and hidden tests taken out (engine/exercises.yml); check-edition: build one "
        "and prove its public tests fail on the stubs and pass here, with the hidden tests; grade-source: "
        "run the public and hidden tests on a student's solution files",
    )
    crs.add_argument(
        "submission",
        nargs="?",
        help="grade-source: the student's edition (or a folder of their solutions); tokens: a file of course "
        "ids, one per line",
    )
    crs.add_argument(
        "--out",
        help="where it goes (default dist/course; student-edition: dist/student-edition, check-edition: "
        "dist/edition-check, grade-source: dist/grade-source; empty or new)",
    )
    crs.add_argument(
        "--write-notebooks",
        action="store_true",
        help="also replace notebooks/<lab>.ipynb with the student notebook",
    )
    crs.add_argument(
        "--performance",
        action="store_true",
        help="grade-source: also time each passing exercise that has a benchmark against this checkout's "
        "build (best of 3, full marks within 1.2x; heaplab/course/exercise_perf.py)",
    )
    grd = sub.add_parser(
        "grade", help="instructors: grade a folder of `heaplab submit` zips with otter-grader"
    )
    grd.add_argument("submissions", help="a folder of submission zips (one per student)")
    grd.add_argument("--autograder", required=True, help="the lab's autograder zip (heaplab course build)")
    grd.add_argument("--out", default="graded", help="where class.csv, class.html and the work go")
    grd.add_argument(
        "--marks",
        metavar="CSV",
        help="the manual.csv of an earlier grading with its score column filled: the hand-graded questions' "
        "marks go into class.csv and class.html",
    )
    grd.add_argument(
        "--since",
        metavar="REV",
        help="the course's first commit (a tag or sha): a run made from an older commit is flagged; every "
        "run must in any case come from a commit of this checkout's history",
    )
    grd.add_argument(
        "--jobs",
        type=_positive_int,
        metavar="N",
        help="submissions graded at once (default: one per core; with --source, one at a time)",
    )
    grd.add_argument(
        "--source",
        action="store_true",
        help="also grade the student's code in each zip: the lab's exercises' public and hidden tests, run "
        "with Maven on this checkout's engine (a few minutes a submission)",
    )

    _reference_parser(sub)
    rep = sub.add_parser("report", help="write report.md, claims.json and figures into a run directory")
    rep.add_argument("run", help="run directory, or 'latest'")
    rep.add_argument(
        "more", nargs="*", metavar="RUN", help="more runs of the same lab and scale to judge the claims over"
    )
    rep.add_argument("--runs-dir", help=f"where 'latest' is looked for (default {DEFAULT_RUNS_DIR})")
    return p


def _reference_parser(sub: argparse._SubParsersAction) -> None:
    ref = sub.add_parser("reference", help="the committed reference series: whether this checkout made them")
    actions = ref.add_subparsers(dest="action", required=True, metavar="{status,add}")
    status = actions.add_parser(
        "status",
        help="each series (a lab's runs at one scale) with its commit and the files its lab exercises that "
        "changed since, by folder (heaplab/run/staleness.py); exit 1 when a series is stale or its commit "
        "unknown",
    )
    status.add_argument("--files", action="store_true", help="also list each changed file under its series")
    add = actions.add_parser(
        "add",
        help="put one series made by --release in place of the lab's older one, after checking it is "
        "complete, undisturbed and made by a clean checkout of that tag (heaplab/report/release.py)",
    )
    add.add_argument("--release", required=True, metavar="TAG", help="the release tag that made the series")
    add.add_argument("runs", nargs="+", metavar="RUN", help="the run directories of one series")
    for p in (status, add):
        p.add_argument("--dir", help=f"where the series are (default {REFERENCE_DIR})")


def _add_series_options(run: argparse.ArgumentParser) -> None:
    """`heaplab run`'s options for the runs of a series: how many, in what order, A/A."""
    # N runs in a row, then the compare table (heaplab/judge/repeats.py)
    run.add_argument(
        "--repeat",
        metavar="N|auto",
        help="run the lab N times in a row and judge its claims over all of them "
        f"(default: {DEFAULT_REPEATS['local']} at local scale, 1 otherwise); 'auto': "
        f"{auto_repeat.MIN_RUNS} runs, then one more at a time until every claim is decided, one more run "
        "would pass --budget, or --max-runs is reached",
    )
    run.add_argument(
        "--budget",
        type=float,
        metavar="MINUTES",
        help=f"--repeat auto: start no run that would end after MINUTES from the series' start, by the mean "
        f"run so far (default {auto_repeat.DEFAULT_BUDGET_MIN:g}; the first {auto_repeat.MIN_RUNS} runs "
        "always run)",
    )
    run.add_argument(
        "--max-runs",
        type=int,
        metavar="N",
        help=f"--repeat auto: at most N runs (default {auto_repeat.DEFAULT_CAP}, at least "
        f"{auto_repeat.MIN_RUNS})",
    )
    run.add_argument(
        "--order",
        choices=ORDERS,
        default=ORDER_RANDOM,
        help="the order of the variants in each run: random (default; each repeat its own order, drawn "
        "from --order-seed, so drift in a series hits every variant alike) or fixed (the spec's order, "
        "for debugging); run.json records variant_order and order_seed",
    )
    run.add_argument(
        "--order-seed",
        type=int,
        metavar="N",
        help="the seed of the series' variant orders (default: drawn from the series' name and start "
        "time; recorded in run.json either way)",
    )
    run.add_argument(
        "--aa",
        metavar="VARIANT",
        help="an A/A run: only VARIANT, twice in each run (as VARIANT and its twin VARIANT-aa, alike, in "
        "random order); every claim between two variants of VARIANT's experiments is judged as VARIANT "
        "against its twin, to see what noise alone makes of the verdicts. The run directory is "
        "<lab>-aa-<VARIANT>-<scale>-<UTC>",
    )


def _positive_int(value: str) -> int:
    """An argparse type: a whole number of 1 or more, else argparse's one-line usage error."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value} is below 1")
    return number


def _alloc_stages_parser(sub: argparse._SubParsersAction) -> None:
    stg = sub.add_parser(
        "alloc-stages",
        help="a region server's heap allocations by stage of a request, from collapsed alloc profiles "
        "(heaplab run --profile alloc): bytes per operation per stage (heaplab/analysis/alloc_stages.py)",
    )
    stg.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a run directory (its section of report.md), or collapsed profiles (.collapsed[.gz], with the "
        "sidecar .json --export writes, or --ops): one column each",
    )
    stg.add_argument("--ops", type=int, help="the operations a single profile without a sidecar served")
    stg.add_argument("--sites", action="store_true", help="per profile: its stages' top allocation sites")
    stg.add_argument(
        "--export", metavar="DIR", help="with a run: copy its per-phase profiles and sidecars into DIR"
    )
    stg_mode = stg.add_mutually_exclusive_group()
    stg_mode.add_argument(
        "--write", action="store_true", help="rewrite the tables between the alloc-stages markers of the docs"
    )
    stg_mode.add_argument(
        "--check",
        action="store_true",
        help="exit 1, with a diff, when a doc's table differs from its profiles",
    )


def _student_parsers(sub: argparse._SubParsersAction) -> None:
    """`heaplab predict` and `heaplab submit`: what a student runs besides `run`."""
    prd = sub.add_parser(
        "predict",
        help="record your prediction for a lab's prediction question before you run it (every later run "
        "of the lab carries it in run.json)",
    )
    prd.add_argument("lab", help="lab name, e.g. 03-offheap-write")
    prd.add_argument("predictions", nargs="+", metavar="QUESTION=NUMBER", help="e.g. q6=0.5")
    sbm = sub.add_parser("submit", help="pack a run and your graded notebook into a zip for the grader")
    sbm.add_argument("run", help="run directory, or 'latest'")
    sbm.add_argument("--notebook", required=True, help="your answered notebook (.ipynb)")
    sbm.add_argument("--out", help=f"where the zip goes (default {DEFAULT_SUBMISSIONS_DIR})")
    sbm.add_argument("--runs-dir", help=f"where 'latest' is looked for (default {DEFAULT_RUNS_DIR})")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    root = find_root(args.root)
    _interrupt_on_signals()
    try:
        commands = {
            "labs": lambda: cmd_labs(root),
            "run": lambda: cmd_run(root, args, argv),
            "compare": lambda: cmd_compare(args),
            "report": lambda: cmd_report(root, args),
            "reference": lambda: cmd_reference(root, args),
            "verdicts": lambda: cmd_verdicts(args),
            "alloc-stages": lambda: cmd_alloc_stages(root, args),
            "check": lambda: cmd_check(root, args),
            "submit": lambda: cmd_submit(root, args),
            "predict": lambda: cmd_predict(root, args),
            "course": lambda: cmd_course(root, args),
            "grade": lambda: cmd_grade(root, args),
        }
        return commands[args.cmd]()
    except (SpecError, SubmitError, QuestionError, StudentError, MarksError, PredictionError) as e:
        print(f"heaplab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (RunSetupError, RunError, CourseError, GradeError, ExercisesError) as e:
        print(f"heaplab: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("heaplab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `heaplab ... | head`: the reader has gone, and nothing is left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # a full disk is no bug: one line naming it (heaplab.run.disk_full)
        if not disk_full.is_full(e):
            raise
        print(f"heaplab: error: {disk_full.local(e, e.filename or 'a file')}", file=sys.stderr)
        return 1


def _interrupt_on_signals() -> None:
    """SIGTERM (kill, a job scheduler, a CI timeout) ends heaplab as Ctrl-C does: a run is marked
    interrupted and its servers stopped.  SIGINT gets Python's handler back even where the shell that
    started heaplab ignores it (a background job of a non-interactive shell)."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)


if __name__ == "__main__":
    sys.exit(main())
