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


def _minutes(start: str, end: str) -> float:
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
        span = _minutes(rs[0][0], max(end for _, end in rs))
        out[lab] = SeriesTime(lab, tuple(_minutes(start, end) for start, end in rs), span)
    return out
