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

import yaml

from heaplab.runfiles.runjson import RUN_JSON

# A release's target for its `local` series on 2 cores (results/reference/README.md): all labs' series
# together, and each lab's
RELEASE_TARGET_MINUTES = 240
LAB_TARGET_MINUTES = 45

MEASURING_TOOLS = ("pe", "ycsb")  # an admin phase with `measure` only reads metrics before or after one


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
    workload), of those the minutes of the phases its claims judge (``measured``: the pe and ycsb phases
    with `measure`; the rest loads, flushes, warms and reads metrics), and the rest of the run (the
    variants' set-up: deploy, server start and stop, JVM starts, collection)."""

    minutes: float
    workload: float
    variants: int  # variants that ran
    measured: float = 0.0

    @property
    def setup(self) -> float:
        return max(0.0, self.minutes - self.workload)


def run_cost(run_dir: Path) -> RunCost:
    """A run's cost from its run.json and its clients' phase summaries (start_epoch_ms, end_epoch_ms); a
    background phase's time counts once where it overlaps the phases beside it."""
    manifest = json.loads((run_dir / RUN_JSON).read_text(encoding="utf-8"))
    measuring = measured_phases(run_dir)
    every_phase = {str(p["name"]) for p in _phases(run_dir)}
    workload_s = measured_s = 0.0
    ran = 0
    for name, entry in manifest.get("variants", {}).items():
        if entry.get("status") == "unavailable":
            continue
        ran += 1
        spans, measured_spans = [], []
        for path in sorted((run_dir / name / "client").glob("*.json")):
            if path.name.endswith(".sizing.json"):
                continue
            try:
                summary = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(summary, dict) and "start_epoch_ms" in summary and "end_epoch_ms" in summary:
                span = (float(summary["start_epoch_ms"]), float(summary["end_epoch_ms"]))
                spans.append(span)
                if _phase_of(path.name, every_phase) in measuring:
                    measured_spans.append(span)
        workload_s += _covered(spans) / 1000.0
        measured_s += _covered(measured_spans) / 1000.0
    minutes = minutes_between(str(manifest["start"]), str(manifest["end"]))
    return RunCost(minutes, workload_s / 60.0, ran, measured_s / 60.0)


def measured_phases(run_dir: Path) -> set[str]:
    """The names of the phases the run's claims judge, from the experiment.yml the run kept."""
    return {str(p["name"]) for p in _phases(run_dir) if p.get("measure") and p.get("tool") in MEASURING_TOOLS}


def _phases(run_dir: Path) -> list[dict]:
    """The phases of the experiment.yml the run kept (none when it cannot be read). Plain YAML, not
    heaplab.lab.spec: an older run's spec need not pass today's schema to be timed."""
    try:
        spec = yaml.safe_load((run_dir / "experiment.yml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return []
    return [p for p in spec.get("phases") or [] if isinstance(p, dict) and "name" in p]


def _phase_of(file_name: str, phases: set[str]) -> str | None:
    """The phase a client file `<phase>-<host>[@<server>].json` belongs to: the longest of ``phases`` (all
    the run's phases, so that `read-heavy-h.json` is never taken for phase `read`) it starts with."""
    found = [p for p in phases if file_name.startswith(f"{p}-")]
    return max(found, key=len) if found else None


def _covered(spans: list[tuple[float, float]]) -> float:
    """The length of the union of the spans."""
    total, end = 0.0, float("-inf")
    for a, b in sorted(spans):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


@dataclass(frozen=True)
class TimeSplit:
    """Where a run's minutes went, from each variant's `timing` in run.json (heaplab.run.playbook, as the
    playbook's tasks saw it: a phase includes its client's JVM start): the phases its claims judge, the
    other phases (create, load, flush, compact, warm up, read metrics), ansible's steps between phases,
    everything before a variant's first phase (deploy, server start) and after its last (stop, collect),
    and the rest of the run outside its variants (the runner's own work and the report)."""

    measured: float
    preparing: float
    between: float
    starting: float
    stopping: float
    rest: float

    @property
    def total(self) -> float:
        return self.measured + self.preparing + self.between + self.starting + self.stopping + self.rest


def time_split(run_dir: Path) -> TimeSplit | None:
    """The run's TimeSplit in minutes, or None for a run whose run.json has no variant timing (made before
    heaplab recorded it)."""
    manifest = json.loads((run_dir / RUN_JSON).read_text(encoding="utf-8"))
    measuring = measured_phases(run_dir)
    measured = preparing = between = starting = stopping = in_variants = 0.0
    for entry in manifest.get("variants", {}).values():
        if entry.get("status") == "unavailable":
            continue
        timing = entry.get("timing")
        if not isinstance(timing, dict):
            return None
        for phase, seconds in (timing.get("phases_s") or {}).items():
            if phase in measuring:
                measured += seconds
            else:
                preparing += seconds
        between += timing.get("between_phases_s", 0.0)
        starting += timing.get("before_phases_s", 0.0)
        stopping += timing.get("after_phases_s", 0.0)
        in_variants += timing.get("total_s", 0.0)
    minutes = minutes_between(str(manifest["start"]), str(manifest["end"]))
    rest = max(0.0, minutes - in_variants / 60.0)
    return TimeSplit(measured / 60, preparing / 60, between / 60, starting / 60, stopping / 60, rest)


def target_line(local_minutes: dict[str, float]) -> str:
    """How the `local` series ({lab: minutes}) stand against the release target: 'met', or by how much and
    which labs are over their share."""
    total = sum(local_minutes.values())
    over = [f"{lab} ({m:.0f})" for lab, m in sorted(local_minutes.items()) if m > LAB_TARGET_MINUTES]
    met = total <= RELEASE_TARGET_MINUTES and not over
    return (
        f"release target (local series, 2 cores: at most {RELEASE_TARGET_MINUTES} minutes in all, "
        f"{LAB_TARGET_MINUTES} a lab): {total:.0f} minutes in all"
        + (f"; over {LAB_TARGET_MINUTES}: {', '.join(over)}" if over else "")
        + ("; met" if met else "; not met")
    )
