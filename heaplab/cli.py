"""The ``heaplab`` command: ``labs``, ``run``, ``report``, ``compare``, ``verdicts``, ``alloc-stages``.

User errors (unknown lab or scale, no engine build, not a run directory) print one ``heaplab: error: ...``
line on stderr and exit non-zero, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from heaplab.analysis import alloc_stages
from heaplab.course.build import CourseError, build_lab, graded_labs
from heaplab.course.edition import EditionError, build_student_edition
from heaplab.course.exercise_perf import grade_performance
from heaplab.course.exercise_tests import check_command, check_edition, grade_source
from heaplab.course.grade import GradeError, grade_all
from heaplab.course.manual_marks import MarksError
from heaplab.course.questions import QuestionError, load_questions
from heaplab.course.submit import SubmitError, submit
from heaplab.judge import auto_repeat
from heaplab.judge.repeats import compare, to_markdown  # heaplab compare, run --repeat
from heaplab.lab.aa import aa_spec
from heaplab.lab.exercises import ExercisesError, exercises_of_lab, load_exercises
from heaplab.lab.schema import Spec, SpecError
from heaplab.lab.spec import list_labs, load_spec, resolve_lab
from heaplab.paths import DEFAULT_INVENTORY, DEFAULT_RUNS_DIR, DEFAULT_SUBMISSIONS_DIR, find_root
from heaplab.report import alloc_docs, alloc_report, verdict_table
from heaplab.report.report import write_report
from heaplab.run import disk_full, hbase_pe
from heaplab.run.profiles import ProfileError, parse_events
from heaplab.run.runner import (
    EXIT_INTERRUPTED,
    ORDER_RANDOM,
    ORDERS,
    RunOptions,
    RunSetupError,
    default_order_seed,
    run_lab,
    utc_stamp,
)
from heaplab.run.student import COURSE_KEY_ENV, TOKEN_ENV, StudentError, course_tokens, student_record
from heaplab.runfiles import predictions
from heaplab.runfiles.predictions import PredictionError, parse_prediction
from heaplab.runfiles.rundir import RunError, load_run, resolve_run, run_name

EXIT_USAGE = 2
# Claims are judged over repeats: three runs at `local` scale unless --repeat says otherwise.
DEFAULT_REPEATS = {"local": 3}
AUTO = "auto"  # --repeat auto (heaplab.judge.auto_repeat)


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

    rep = sub.add_parser("report", help="write report.md, claims.json and figures into a run directory")
    rep.add_argument("run", help="run directory, or 'latest'")
    rep.add_argument(
        "more", nargs="*", metavar="RUN", help="more runs of the same lab and scale to judge the claims over"
    )
    rep.add_argument("--runs-dir", help=f"where 'latest' is looked for (default {DEFAULT_RUNS_DIR})")
    return p


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


def _under(root: Path, value: str | None, default: Path) -> Path:
    path = Path(value) if value else root / default
    return path.resolve()


def cmd_labs(root: Path) -> int:
    specs = list_labs(root)
    if not specs:
        print(f"no labs under {root / 'labs'}")
        return 1
    for path in specs:
        try:
            title = load_spec(path).title
        except (SpecError, SubmitError, QuestionError, StudentError) as e:
            title = f"(invalid spec: {e})"
        print(f"{path.parent.name:24} {title}")
    return 0


def cmd_run(root: Path, args: argparse.Namespace, argv: Sequence[str]) -> int:
    profile = _profile(args.profile)  # a bad event is refused before anything else
    if args.lab == "all":
        labs = [p.parent.name for p in list_labs(root)]
        if not labs:
            raise SpecError(f"no labs under {root / 'labs'}")
    else:
        labs = [args.lab]
    repeat = _repeat(args)
    _check_selection(args)
    # Validate every lab, the scale and the variants asked for before anything runs.
    for lab in labs:
        spec = load_spec(resolve_lab(root, lab))
        spec.params(args.scale)
        unknown = [v for v in args.variant if v not in spec.variants]
        if unknown:
            raise SpecError(f"{lab} has no variant {unknown[0]!r}; its variants: {', '.join(spec.variants)}")
        if args.aa is not None:
            _check_aa(root, lab, spec, args.aa)
    student = student_record(args.student) if args.student is not None else None
    opts = RunOptions(
        root=root,
        scale=args.scale,
        inventory=_under(root, args.inventory, DEFAULT_INVENTORY),
        runs_dir=_under(root, args.runs_dir, DEFAULT_RUNS_DIR),
        command=shlex.join(["heaplab", *argv]),
        java_home=_java_home(args.java_home),
        profile=profile,
        size_local=not args.fixed_scale,
        variants=tuple(dict.fromkeys(args.variant)),
        student=student,
        aa=args.aa,
        order=args.order,
        order_seed=args.order_seed,
    )
    worst = 0
    for lab in labs:
        code, runs = _run_series(lab, opts, repeat, args.report)
        worst = max(worst, code)
        if code == EXIT_INTERRUPTED:
            break
        if len(runs) > 1:  # the runs side by side
            print(to_markdown(compare(runs), len(runs)))
    return worst


def _repeat(args: argparse.Namespace) -> int | auto_repeat.Limits:
    """--repeat N, or the decisions of --repeat auto (with --budget and --max-runs), checked."""
    if args.repeat == AUTO:
        budget = auto_repeat.DEFAULT_BUDGET_MIN if args.budget is None else args.budget
        cap = auto_repeat.DEFAULT_CAP if args.max_runs is None else args.max_runs
        if not budget > 0:
            raise SpecError(f"--budget must be a positive number of minutes, not {budget:g}")
        if cap < auto_repeat.MIN_RUNS:
            raise SpecError(
                f"--max-runs must be at least {auto_repeat.MIN_RUNS} (--repeat auto runs that many)"
            )
        return auto_repeat.Limits(budget_s=budget * 60, cap=cap)
    if args.budget is not None or args.max_runs is not None:
        raise SpecError("--budget and --max-runs are for --repeat auto")
    if args.repeat is None:
        return DEFAULT_REPEATS.get(args.scale, 1)
    try:
        repeat = int(args.repeat)
    except ValueError:
        raise SpecError(f"--repeat takes a number of runs or 'auto', not {args.repeat!r}") from None
    if repeat < 1:
        raise SpecError(f"--repeat must be a positive number of runs, not {repeat}")
    return repeat


def _check_selection(args: argparse.Namespace) -> None:
    """--variant, --aa, --order and --order-seed, as far as they can be checked without the lab."""
    if args.variant and args.lab == "all":
        raise SpecError("--variant selects variants of one lab: name the lab, not 'all'")
    if args.aa is not None and args.lab == "all":
        raise SpecError("--aa names a variant of one lab: name the lab, not 'all'")
    if args.aa is not None and args.variant:
        raise SpecError("--aa runs one variant and its twin: leave out --variant")
    if args.order_seed is not None and args.order_seed < 0:
        raise SpecError(f"--order-seed must be 0 or more, not {args.order_seed}")
    if args.order_seed is not None and args.order != ORDER_RANDOM:
        raise SpecError("--order-seed draws random orders: it does not go with --order fixed")


def _check_aa(root: Path, lab: str, spec: Spec, variant: str) -> None:
    """--aa VARIANT: a variant of the lab that can run here (and no variant already has its twin's name)."""
    if variant not in spec.variants:
        raise SpecError(f"--aa: {lab} has no variant {variant!r}; its variants: {', '.join(spec.variants)}")
    v = spec.variants[variant]
    why = v.why if not v.available else hbase_pe.unavailable_why(v.server, root, v.hbase_version)
    if not v.available or why:
        raise SpecError(f"--aa: {variant} is unavailable: {why or 'no reason given'}")
    aa_spec(spec, variant)  # a SpecError when the twin's name is taken


def _run_series(
    lab: str, opts: RunOptions, repeat: int | auto_repeat.Limits, report: bool
) -> tuple[int, list[Path]]:
    """Run ``lab`` ``repeat`` times (or, --repeat auto, until ``repeat`` says stop); with --report each
    report judges the series' runs so far."""
    auto = auto_repeat.AutoSeries(repeat) if isinstance(repeat, auto_repeat.Limits) else None
    times = auto.limits.cap if auto else int(repeat)
    worst = 0
    done: list[Path] = []
    # names the repeats (heaplab.runfiles.series)
    series_id = f"{run_name(lab, opts.scale, utc_stamp(), opts.aa)}-{'auto' if auto else f'x{times}'}"
    if opts.order == ORDER_RANDOM and opts.order_seed is None:  # one seed for the series, recorded
        opts = replace(opts, order_seed=default_order_seed(series_id))
    if auto:
        opts = replace(opts, before_close=auto.before_close)
    for index in range(1, times + 1):
        series: dict[str, Any] | None = None
        if auto:
            series = {"id": series_id, "index": index, "of": None, "auto": auto.record()}
            print(f"== {lab}: run {index} of at most {times} (--repeat auto)")
        elif times > 1:
            series = {"id": series_id, "index": index, "of": times}
            print(f"== {lab}: run {index} of {times}")
        code, run_dir = run_lab(lab, replace(opts, series=series))
        done.append(run_dir)
        print(f"run directory: {run_dir}")
        worst = max(worst, code)
        if code == EXIT_INTERRUPTED:
            break
        if report:
            print(f"report: {write_report(run_dir)}")
        else:
            print(f"next: heaplab report {run_dir}")
        if auto:
            auto.ended(run_dir)
            if not auto.go_on:
                break
    return worst, done


def cmd_compare(args: argparse.Namespace) -> int:
    """Mean and 95% CI across runs (heaplab/judge/repeats.py)."""
    paths = [Path(r) for r in args.runs]
    print(to_markdown(compare(paths, args.metric), len(paths)))
    return 0


def _java_home(value: str | None) -> str | None:
    """--java-home must be absolute (it names a directory on every host)."""
    if value is not None and not value.startswith("/"):
        raise SpecError(f"--java-home must be an absolute path (a JDK home on the hosts), not {value!r}")
    return value


def _profile(value: str | None) -> list[str] | None:
    """--profile cpu,alloc,lock -> the events, checked before anything starts."""
    if value is None:
        return None
    try:
        return parse_events(value)
    except ProfileError as e:
        raise SpecError(str(e)) from None


def cmd_verdicts(args: argparse.Namespace) -> int:
    """The tables of the runs named, or (--write / --check) of the generated regions of the docs."""
    if not (args.write or args.check):
        if args.doc or not args.runs:
            raise SpecError("name the runs (heaplab verdicts RUN...), or --write / --check the docs' tables")
        print(verdict_table.to_markdown(verdict_table.tally([Path(r) for r in args.runs])))
        return 0
    if args.runs:
        raise SpecError("--write and --check take their runs from each file's marker, not from RUN arguments")
    root = find_root(args.root)
    docs = [Path(d) for d in args.doc] or verdict_table.documents(root)
    if args.write:
        for path in verdict_table.write(root, docs):
            print(f"rewrote {path}")
        return 0
    problems = verdict_table.check(root, docs)
    for problem in problems:
        print(problem)
    print(
        f"heaplab verdicts --check: {len(problems)} of {len(docs)} file(s) differ from their runs"
        + ("; `heaplab verdicts --write` rewrites them" if problems else "")
    )
    return 1 if problems else 0


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


def cmd_alloc_stages(root: Path, args: argparse.Namespace) -> int:
    """Stage tables of a run or of profiles; --export a run's profiles; --write / --check the docs."""
    if args.write or args.check:
        return _alloc_stages_docs(root, args)
    if not args.paths:
        raise SpecError("name a run directory or collapsed profiles (heaplab alloc-stages PATH...)")
    paths = [Path(p) for p in args.paths]
    if len(paths) == 1 and paths[0].is_dir():
        if args.export:
            for path in alloc_docs.export(paths[0], Path(args.export)):
                print(f"wrote {path}")
            return 0
        lines = alloc_report.report_lines(load_run(paths[0]))
        print("\n".join(lines).strip() or f"{paths[0]}: no alloc profile of a measured phase")
        return 0
    if args.export:
        raise SpecError("--export takes one run directory")
    if args.ops is not None and len(paths) != 1:
        raise SpecError("--ops goes with one profile; several need their sidecars")
    try:
        profiles = [alloc_docs.load_committed(p, args.ops) for p in paths]
    except alloc_stages.ProfileError as e:
        raise SpecError(str(e)) from None
    print(alloc_stages.comparison_markdown([(p.label, p.table) for p in profiles]))
    for p in profiles if args.sites else []:
        print(f"\n{p.label}\n\n{alloc_stages.variant_markdown(p.table)}")
    return 0


def _alloc_stages_docs(root: Path, args: argparse.Namespace) -> int:
    """--write / --check the tables between the docs' alloc-stages markers."""
    if args.paths:
        raise SpecError("--write and --check take their profiles from each doc's markers, not PATH arguments")
    docs = alloc_docs.documents(root)
    if args.write:
        for path in alloc_docs.write(root, docs):
            print(f"rewrote {path}")
        return 0
    problems = alloc_docs.check(root, docs)
    for problem in problems:
        print(problem)
    print(f"heaplab alloc-stages --check: {len(problems)} of {len(docs)} file(s) differ from their profiles")
    return 1 if problems else 0


def cmd_report(root: Path, args: argparse.Namespace) -> int:
    run_dir = resolve_run(args.run, _under(root, args.runs_dir, DEFAULT_RUNS_DIR))
    print(write_report(run_dir, with_runs=[Path(p) for p in args.more]))
    return 0


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
    run_dir = resolve_run(args.run, _under(root, args.runs_dir, DEFAULT_RUNS_DIR))
    done = submit(run_dir, Path(args.notebook), _under(root, args.out, DEFAULT_SUBMISSIONS_DIR), root=root)
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
    work = _under(root, args.out, Path("dist/grade-source"))
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
        edition = build_student_edition(root, _under(root, args.out, Path("dist/student-edition")))
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
        work = _under(root, args.out, Path("dist/edition-check"))
        print(f"building the student edition in {work / 'student'} and running the exercises' tests in both")
        problems = check_edition(root, work)
        for p in problems:
            print(f"  {p}")
        print(
            "check-edition: "
            + ("PROBLEMS above" if problems else "every exercise fails on its stub and passes here")
        )
        return 1 if problems else 0
    out = _under(root, args.out, Path("dist/course"))
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
    out = _under(root, args.out, Path("graded"))
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
