"""Repeats judged together: the runs of one `heaplab run LAB --repeat N` (a series), or runs named by hand.

`heaplab run --repeat N` writes ``series`` {id, index, of} into each run's run.json: ``id`` is the first
run's directory name with ``-xN`` (``-auto`` for `--repeat auto`, heaplab.judge.auto_repeat), ``index`` 1..N.
A report of any of them judges its claims over every complete run of the series found beside it (the same
runs directory), itself first; ``heaplab report RUN RUN ...`` judges the runs named (one lab, one scale;
A/A runs only with A/A runs of the same variant, heaplab.lab.aa) and writes the report into the first.
"""

from __future__ import annotations

import json
from pathlib import Path

from heaplab.runfiles.rundir import Run, RunError, load_run
from heaplab.runfiles.runjson import RUN_JSON


def series_id(run: Run) -> str | None:
    series = run.series
    return str(series["id"]) if isinstance(series, dict) and series.get("id") else None


def _manifest(path: Path) -> dict:
    try:
        return json.loads((path / RUN_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def siblings(run: Run) -> list[Path]:
    """The other complete runs of ``run``'s series beside it, in series order (none without a series)."""
    sid = series_id(run)
    if sid is None or not run.path.parent.is_dir():
        return []
    found = []
    for path in run.path.parent.iterdir():
        if path == run.path or not (path / RUN_JSON).is_file():
            continue
        m = _manifest(path)
        series = m.get("series") if isinstance(m.get("series"), dict) else {}
        if series.get("id") == sid and m.get("status") == "complete":
            found.append((int(series.get("index") or 0), path))
    return [p for _, p in sorted(found)]


def runs_to_judge(first: Path, others: list[Path]) -> list[Run]:
    """``first`` plus ``others`` (or, with none named, its series), checked to be one lab at one scale."""
    run = load_run(first)
    rest = [load_run(p) for p in others] if others else [load_run(p) for p in siblings(run)]
    for r in rest:
        if (r.lab, r.scale) != (run.lab, run.scale):
            raise RunError(
                f"only runs of one lab and scale are judged together: {run.path.name} is {run.lab} "
                f"at {run.scale}, "
                f"{r.path.name} is {r.lab} at {r.scale}"
            )
        if r.aa != run.aa:  # their claims differ (heaplab.lab.aa)
            raise RunError(
                f"an A/A run is judged only with A/A runs of the same variant: {run.path.name} is "
                f"{_aa_text(run)}, {r.path.name} is {_aa_text(r)}"
            )
    return [run, *rest]


def _aa_text(run: Run) -> str:
    aa = run.aa
    return f"an A/A run of {aa.get('variant')}" if isinstance(aa, dict) else "no A/A run"
