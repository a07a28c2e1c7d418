"""The ``heaplab`` command: ``labs``, ``run``, ``report``.

User errors (unknown lab or scale, no engine build, not a run directory) print one ``heaplab: error: ...``
line on stderr and exit non-zero, never a traceback.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from heaplab.paths import DEFAULT_INVENTORY, DEFAULT_RUNS_DIR, find_root
from heaplab.report import write_report
from heaplab.rundir import RunError, resolve_run
from heaplab.runner import EXIT_INTERRUPTED, RunOptions, RunSetupError, run_lab
from heaplab.spec import SpecError, list_labs, load_spec, resolve_lab

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="heaplab", description="Run the HeapLab labs and report on their runs.")
    p.add_argument("--root", help="repository root (default: $HEAPLAB_ROOT or the checkout above the cwd)")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="{labs,run,report}")
    sub.add_parser("labs", help="list the labs and their titles")
    run = sub.add_parser("run", help="run a lab (or all) through the playbooks")
    run.add_argument("lab", help="lab name (a directory under labs/) or 'all'")
    run.add_argument(
        "--scale", required=True, help="ci | local | paper (as the lab's experiment.yml defines)"
    )
    run.add_argument("--inventory", help=f"ansible inventory (default {DEFAULT_INVENTORY})")
    run.add_argument("--runs-dir", help=f"where run directories go (default {DEFAULT_RUNS_DIR})")
    run.add_argument("--report", action="store_true", help="write each run's report when it ends")
    # issue 6 (lab02): e.g. a JDK 21+ for a variant with `jdk: 21` (generational ZGC)
    run.add_argument(
        "--java-home",
        help="JDK home (absolute, as on the hosts) every host runs the engine with: sets heaplab_java_home",
    )
    rep = sub.add_parser("report", help="write report.md, claims.json and figures into a run directory")
    rep.add_argument("run", help="run directory, or 'latest'")
    rep.add_argument("--runs-dir", help=f"where 'latest' is looked for (default {DEFAULT_RUNS_DIR})")
    return p


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
        except SpecError as e:
            title = f"(invalid spec: {e})"
        print(f"{path.parent.name:24} {title}")
    return 0


def cmd_run(root: Path, args: argparse.Namespace, argv: Sequence[str]) -> int:
    if args.lab == "all":
        labs = [p.parent.name for p in list_labs(root)]
        if not labs:
            raise SpecError(f"no labs under {root / 'labs'}")
    else:
        labs = [args.lab]
    # Validate every lab and the scale before anything runs.
    for lab in labs:
        load_spec(resolve_lab(root, lab)).params(args.scale)
    opts = RunOptions(
        root=root,
        scale=args.scale,
        inventory=_under(root, args.inventory, DEFAULT_INVENTORY),
        runs_dir=_under(root, args.runs_dir, DEFAULT_RUNS_DIR),
        command=shlex.join(["heaplab", *argv]),
        java_home=_java_home(args.java_home),  # issue 6 (lab02)
    )
    worst = 0
    for lab in labs:
        code, run_dir = run_lab(lab, opts)
        print(f"run directory: {run_dir}")
        worst = max(worst, code)
        if code == EXIT_INTERRUPTED:
            break
        if args.report:
            print(f"report: {write_report(run_dir)}")
        else:
            print(f"next: heaplab report {run_dir}")
    return worst


def _java_home(value: str | None) -> str | None:
    """Issue 6 (lab02): --java-home must be absolute (it names a directory on every host)."""
    if value is not None and not value.startswith("/"):
        raise SpecError(f"--java-home must be an absolute path (a JDK home on the hosts), not {value!r}")
    return value


def cmd_report(root: Path, args: argparse.Namespace) -> int:
    run_dir = resolve_run(args.run, _under(root, args.runs_dir, DEFAULT_RUNS_DIR))
    print(write_report(run_dir))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    root = find_root(args.root)
    try:
        if args.cmd == "labs":
            return cmd_labs(root)
        if args.cmd == "run":
            return cmd_run(root, args, argv)
        return cmd_report(root, args)
    except SpecError as e:
        print(f"heaplab: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except (RunSetupError, RunError) as e:
        print(f"heaplab: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("heaplab: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
