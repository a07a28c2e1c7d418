"""How long each lab's committed reference series took, from its runs' run.json (start and end): the one
measured table that every time the docs state is checked against (heaplab/tests/test_timings.py).

A lab's series is every complete `local` run of it under results/reference/ (A/A runs aside: they run
one variant twice). results/reference/README.md lists each series with its minutes in all (its runs'
own, from each run's start to its end: a series may span sittings), and each handout's **Time:** line
says how long one run takes; both must agree with these figures.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from heaplab.runfiles.runjson import RUN_JSON


@dataclass(frozen=True)
class SeriesTime:
    lab: str
    runs: tuple[float, ...]  # minutes, one per run, oldest first
    span: float  # minutes from the first run's start to the last one's end (each report included)

    @property
    def total(self) -> float:
        return sum(self.runs)

    @property
    def per_run(self) -> float:
        return self.total / len(self.runs)


def minutes_between(start: str, end: str) -> float:
    parse = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return (parse(end) - parse(start)).total_seconds() / 60.0


def series_times(reference: Path) -> dict[str, SeriesTime]:
    """{lab: its committed series' run times}, from every complete local run under ``reference``."""
    runs: dict[str, list[tuple[str, str]]] = {}
    for path in sorted(reference.glob(f"*/{RUN_JSON}")):
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("scale") != "local" or manifest.get("status") != "complete" or manifest.get("aa"):
            continue
        runs.setdefault(str(manifest["lab"]), []).append((str(manifest["start"]), str(manifest["end"])))
    out = {}
    for lab, rs in runs.items():
        rs.sort()
        span = minutes_between(rs[0][0], max(end for _, end in rs))
        out[lab] = SeriesTime(lab, tuple(minutes_between(start, end) for start, end in rs), span)
    return out


@dataclass(frozen=True)
class RunCost:
    """Where one run's time went: its minutes from start to end, the minutes its phases' clients ran (the
    workload), and the rest (the variants' set-up: deploy, server start and stop, JVM starts, collection)."""

    minutes: float
    workload: float
    variants: int  # variants that ran

    @property
    def setup(self) -> float:
        return max(0.0, self.minutes - self.workload)


def run_cost(run_dir: Path) -> RunCost:
    """A run's cost from its run.json and its clients' phase summaries (start_epoch_ms, end_epoch_ms); a
    background phase's time counts once where it overlaps the phases beside it."""
    manifest = json.loads((run_dir / RUN_JSON).read_text(encoding="utf-8"))
    workload_s, ran = 0.0, 0
    for name, entry in manifest.get("variants", {}).items():
        if entry.get("status") == "unavailable":
            continue
        ran += 1
        spans = []
        for path in sorted((run_dir / name / "client").glob("*.json")):
            if path.name.endswith(".sizing.json"):
                continue
            try:
                summary = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(summary, dict) and "start_epoch_ms" in summary and "end_epoch_ms" in summary:
                spans.append((float(summary["start_epoch_ms"]), float(summary["end_epoch_ms"])))
        workload_s += _covered(spans) / 1000.0
    return RunCost(minutes_between(str(manifest["start"]), str(manifest["end"])), workload_s / 60.0, ran)


def _covered(spans: list[tuple[float, float]]) -> float:
    """The length of the union of the spans."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total
