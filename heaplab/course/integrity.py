"""What the grader checks before it trusts a submission (heaplab.course.submit made it).

- The manifest: every file of the zip is listed with its sha256 and matches it; nothing is missing or added.
- No code: a submission that ships Python files or packages is rejected, because the notebook and the
  hidden tests import from the grading environment (a ``heaplab/`` in the zip would shadow the real one).
- The run against itself: every value claims.json recorded for this run when it was reported is
  recomputed from the raw files with heaplab's own loaders, and every client's per-second latency log
  (.hlog) must add up to the client's own summary (operations, mean, max); a difference means a raw file
  was edited after the run.
- The notebook's answers: each auto-graded answer must be computed, not typed in: an answer cell that
  assigns its answer a bare number is flagged, right or wrong (typed_answers).
- The run against every other: no raw latency log of it may be byte for byte one of a committed
  reference run or of another submission (raw_fingerprints). Two runs never write the same .hlog: each
  log's header holds the time its recording started, and its intervals the latencies of that run.

A student controls the machine the run was made on: these checks catch edits after the fact and copied
runs, not a run that was faked before its report (docs/grading.md: spot reruns are the remedy).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import zipfile
from pathlib import Path, PurePosixPath

from heaplab.analysis.metrics import measure_all
from heaplab.course.submit import MANIFEST
from heaplab.judge.claims import Measurements
from heaplab.runfiles.hlog import mean_value, read_total
from heaplab.runfiles.rundir import load_run

CODE_SUFFIXES = (".py", ".pyc", ".pyi", ".pth", ".so", ".pyd")
RELATIVE_TOLERANCE = 1e-5  # claims.json keeps 6 decimals


def manifest_problems(z: zipfile.ZipFile) -> list[str]:
    """Each way the zip disagrees with its manifest, one line each (none: it is intact)."""
    names = set(z.namelist()) - {MANIFEST}
    try:
        manifest = json.loads(z.read(MANIFEST))
    except KeyError:
        return [f"no {MANIFEST}: not made by `heaplab submit`"]
    except json.JSONDecodeError as e:
        return [f"{MANIFEST} is not valid JSON: {e}"]
    listed = manifest.get("files") or {}
    problems = [f"missing from the zip: {name}" for name in sorted(set(listed) - names)]
    problems += [f"not in the manifest: {name}" for name in sorted(names - set(listed))]
    for name in sorted(set(listed) & names):
        if hashlib.sha256(z.read(name)).hexdigest() != listed[name]:
            problems.append(f"changed after submit: {name}")
    return problems


def code_files(names: list[str]) -> list[str]:
    """The entries of a submission that are code (rejected: they could shadow the grader's imports)."""
    out = []
    for name in names:
        path = PurePosixPath(name)
        if path.suffix in CODE_SUFFIXES or "__pycache__" in path.parts:
            out.append(name)
    return sorted(out)


def recomputation_mismatches(run_dir: Path, measurements: Measurements | None = None) -> list[str]:
    """Each value claims.json recorded for this run that its raw files no longer give, and each latency log
    that no longer adds up to its client's summary; one line each (none: the run agrees with itself).
    ``measurements``: the run's, when the caller has computed them already."""
    claims_path = run_dir / "claims.json"
    if not claims_path.is_file():
        return ["no claims.json: the run was never reported (heaplab run --report)"]
    recorded = json.loads(claims_path.read_text(encoding="utf-8"))
    if measurements is None:
        measurements = measure_all(load_run(run_dir))
    out = hlog_mismatches(run_dir)
    for claim_id, claim in sorted((recorded.get("claims") or {}).items()):
        if not claim.get("per_run"):
            continue
        this_run = claim["per_run"][0]  # claims.json lists this run first
        for variant, value in sorted(this_run.items()):
            if value is None:
                continue
            m = measurements.get(str(claim["experiment"]), {}).get(variant)
            now = None if m is None or m.problem else m.values.get(str(claim["metric"]))
            if now is None or abs(now - value) > RELATIVE_TOLERANCE * max(abs(value), 1e-9):
                out.append(
                    f"{claim_id}: {variant} {claim['metric']} was {value} at the run's report, "
                    f"the raw files now give {now}"
                )
    return out


ANSWER_CELL_TAG = "otter_answer_cell"  # otter assign tags the cells a student answers in


def typed_answers(notebook: Path) -> list[str]:
    """One line per answer cell that assigns a bare number (``q1_p999_ms = 23.9``) instead of computing
    it from the run: a number copied from report.md or another run, whether or not it is right."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return []
    out = []
    for cell in cells:
        if cell.get("cell_type") != "code" or ANSWER_CELL_TAG not in cell.get("metadata", {}).get("tags", []):
            continue
        source = "".join(cell.get("source", []))
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _bare_number(node.value):
                for target in node.targets:
                    if isinstance(target, ast.Name) and re.fullmatch(r"q\d+_\w+", target.id):
                        out.append(
                            f"{target.id} is typed in ({ast.unparse(node)}), not computed from the run"
                        )
    return out


def _bare_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def raw_fingerprints(run_dir: Path) -> dict[str, str]:
    """{sha256: the file's path in the run} of each raw latency log (.hlog) of the run's clients."""
    return {
        hashlib.sha256(path.read_bytes()).hexdigest(): str(path.relative_to(run_dir))
        for path in sorted(run_dir.glob("*/client/*.hlog"))
    }


def copied_runs(
    fingerprints: dict[str, dict[str, str]], reference: dict[str, dict[str, str]]
) -> dict[str, list[str]]:
    """For each submission (name -> its raw_fingerprints), one line per run it shares a raw latency log
    with: a reference run (``reference``: run name -> fingerprints) or another submission."""
    out: dict[str, list[str]] = {}
    for name, mine in fingerprints.items():
        for ref, theirs in sorted(reference.items()):
            shared = sorted(mine[h] for h in set(mine) & set(theirs))
            if shared:
                out.setdefault(name, []).append(
                    f"its raw latency logs are the reference run {ref}'s ({shared[0]}"
                    f"{f' and {len(shared) - 1} more' if len(shared) > 1 else ''}): not a run of its own"
                )
        for other, theirs in sorted(fingerprints.items()):
            shared = sorted(mine[h] for h in set(mine) & set(theirs))
            if other != name and shared:
                out.setdefault(name, []).append(f"the same raw latency logs as {other} ({shared[0]})")
    return out


def hlog_mismatches(run_dir: Path) -> list[str]:
    """Each client .hlog whose merged histogram disagrees with the summary the client wrote beside it: the
    operation count, the mean and the maximum are the same numbers when both come from one recording."""
    out = []
    for path in sorted(run_dir.glob("*/client/*.json")):
        summary = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(summary, dict) or not summary.get("latency_us") or not summary.get("hlog"):
            continue
        hlog = path.parent / str(summary["hlog"])
        if not hlog.is_file():
            continue
        total, said = read_total([hlog]), summary["latency_us"]
        name = str(hlog.relative_to(run_dir))
        if total.get_total_count() != summary.get("operations"):
            ops = summary.get("operations")
            out.append(f"{name}: {total.get_total_count()} operations, its summary {ops}")
        for key, value in (("mean", mean_value(total)), ("max", total.get_max_value())):
            if said.get(key) is not None and abs(value - said[key]) > 1e-3 * max(abs(said[key]), 1.0):
                out.append(f"{name}: {key} {value:.1f} us, its summary {said[key]:.1f} us")
    return out
