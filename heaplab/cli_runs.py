"""The commands that make and read runs: `heaplab labs`, `run`, `report`, `compare`, `verdicts` and
`alloc-stages` (heaplab.cli parses their arguments)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from heaplab.analysis import alloc_stages
from heaplab.analysis.proc_cpu import disturbed_phases
from heaplab.course.questions import QuestionError
from heaplab.course.submit import SubmitError
from heaplab.judge import auto_repeat
from heaplab.judge.repeats import compare, to_markdown  # heaplab compare, run --repeat
from heaplab.lab.aa import aa_spec
from heaplab.lab.schema import Spec, SpecError
from heaplab.lab.spec import list_labs, load_spec, resolve_lab
from heaplab.paths import DEFAULT_INVENTORY, DEFAULT_RUNS_DIR, REFERENCE_DIR, find_root, under
from heaplab.report import alloc_docs, alloc_report, release, verdict_table
from heaplab.report.report import write_report
from heaplab.run import hbase_pe, run_lock
from heaplab.run.options import EXIT_INTERRUPTED, ORDER_RANDOM, RunOptions, default_order_seed, utc_stamp
from heaplab.run.profiles import ProfileError, parse_events
from heaplab.run.runner import run_lab
from heaplab.run.staleness import report_preface, staleness
from heaplab.run.student import StudentError, student_record
from heaplab.runfiles.rundir import Run, is_aa_run_name, load_run, resolve_run, run_name
from heaplab.runfiles.timings import RunCost, run_cost, target_line

# Claims are judged over repeats: three runs at `local` scale unless --repeat says otherwise.
DEFAULT_REPEATS = {"local": 3}
AUTO = "auto"  # --repeat auto (heaplab.judge.auto_repeat)


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
        inventory=under(root, args.inventory, DEFAULT_INVENTORY),
        runs_dir=under(root, args.runs_dir, DEFAULT_RUNS_DIR),
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
    with run_lock.held(opts.inventory, opts.command):  # one run at a time on these hosts
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
    return _write_or_check(verdict_table, root, docs, args.write, command="verdicts", source="their runs")


def _write_or_check(
    module: Any, root: Path, docs: list[Path], write: bool, *, command: str, source: str
) -> int:
    """``heaplab <command> --write`` (rewrite the docs' generated regions) or ``--check`` (exit 1 naming each
    doc that differs from ``source``), with ``module``'s ``write`` and ``check``."""
    if write:
        for path in module.write(root, docs):
            print(f"rewrote {path}")
        return 0
    problems = module.check(root, docs)
    for problem in problems:
        print(problem)
    print(
        f"heaplab {command} --check: {len(problems)} of {len(docs)} file(s) differ from {source}"
        + (f"; `heaplab {command} --write` rewrites them" if problems else "")
    )
    return 1 if problems else 0


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
    how = {"command": "alloc-stages", "source": "their profiles"}
    return _write_or_check(alloc_docs, root, docs, args.write, **how)


def cmd_report(root: Path, args: argparse.Namespace) -> int:
    run_dir = resolve_run(args.run, under(root, args.runs_dir, DEFAULT_RUNS_DIR))
    preface = report_preface(root, load_run(run_dir))  # a run older than the code it exercises says so
    for line in preface[:1]:
        print(line.removeprefix("> ").replace("**", ""))
    print(write_report(run_dir, with_runs=[Path(p) for p in args.more], preface=preface))
    return 0


def cmd_reference(root: Path, args: argparse.Namespace) -> int:
    """`heaplab reference add` (below), or `heaplab reference status`: one line per series (a lab's runs at
    one scale other than ci, whose runs are the suite's fixtures) and commit: current, stale (the files
    changed since) or unknown."""
    ref = under(root, args.dir, REFERENCE_DIR)
    if args.action == "add":
        return _reference_add(root, ref, args)
    runs = [load_run(p.parent) for p in sorted(ref.glob("*/run.json"))]
    series: dict[tuple[str, str, str | None], list[Run]] = {}
    for run in runs:
        if run.scale != "ci" and not is_aa_run_name(run.lab, run.path.name):  # A/A runs calibrate, no series
            series.setdefault((run.lab, run.scale, run.manifest["git"].get("commit")), []).append(run)
    if not series:
        raise SpecError(f"no reference series in {ref}")
    behind = disturbed = 0
    minutes = 0.0
    local: dict[str, float] = {}
    for (lab, scale, commit), kept in sorted(series.items(), key=lambda item: item[0][:2]):
        found = staleness(root, kept[0])
        behind += found.stale or found.why is not None
        made = f"commit {commit[:12]}" if commit else "no commit"
        runs_n = f"{len(kept)} run{'s' if len(kept) != 1 else ''}"
        costs = [run_cost(run.path) for run in kept]
        minutes += sum(c.minutes for c in costs)
        if scale == "local":
            local[lab] = local.get(lab, 0.0) + sum(c.minutes for c in costs)
        when = kept[0].manifest["start"]
        print(f"{lab} ({scale}, {runs_n}, {made}, {when}, {_cost(costs)}): {found.describe()}")
        for path in found.changed if args.files else ():
            print(f"  {path}")
        shared = [f"{run.path.name}: {line}" for run in kept for line in disturbed_phases(run)]
        disturbed += bool(shared)
        for line in shared:  # a series measured while other work shared the machine is no reference
            print(f"  disturbed: {line}")
    if local:
        print(target_line(local))
    print(
        f"heaplab reference status: {behind} of {len(series)} series not made by this checkout's code, "
        f"{disturbed} with a phase disturbed by other work; {minutes:.0f} minutes of runs in all"
    )
    return 1 if behind or disturbed else 0


def _reference_add(root: Path, ref: Path, args: argparse.Namespace) -> int:
    """`heaplab reference add --release TAG RUN...` (heaplab.report.release)."""
    done = release.add_series(root, ref, args.release, [Path(p) for p in args.runs])
    print(f"added {done.lab} at {done.scale}, made by {args.release}: {', '.join(done.added)}")
    print(f"removed its older runs: {', '.join(done.removed) or 'none'}")
    print("next: `heaplab verdicts --write` regenerates the tables and handout sections from the series")
    return 0


def _cost(costs: list[RunCost]) -> str:
    """A series' minutes, and how many went to its phases' clients (of them, to the phases its claims judge)
    and to its variants' set-up."""
    total, setup = sum(c.minutes for c in costs), sum(c.setup for c in costs)
    measured = sum(c.measured for c in costs)
    per_variant = 60 * setup / max(1, sum(c.variants for c in costs))
    return (
        f"{total:.0f} min: phases {total - setup:.0f} (measured {measured:.0f}), "
        f"set-up {setup:.0f} ({per_variant:.0f} s a variant)"
    )
