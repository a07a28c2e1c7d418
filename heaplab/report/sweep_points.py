"""A thread sweep's steps lined up per variant (heaplab.report.sweep draws and tabulates them): each step's
client threads, throughput, average latency and, where the servers reported them, CPU and queueing per get;
and the saturation point of each variant."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from heaplab.judge.run_analysis import Analysis
from heaplab.lab.sweeps import SweepError
from heaplab.runfiles.rundir import Run

SATURATION_SHARE = 0.90


YCSB_THREADS_FLAG = "-threads"


@dataclass(frozen=True)
class Point:
    """One variant at one step of the sweep; ``throughput``/``latency_avg`` are None when not measured."""

    experiment: str
    variant: str
    threads: int
    throughput: float | None
    latency_avg: float | None
    problem: str | None = None
    # server side, when an `admin metrics` pair brackets the step (its rpc group):
    cpu_us_per_get: float | None = None  # the whole process's CPU time per get
    handler_us_per_get: float | None = None  # handler time running calls, per get
    queue_ms: float | None = None  # a GET's mean wait in the call queue over the step
    unit: str = "gets/s"  # what the throughput counts: pe reads (lab 05) or YCSB operations (ops/s)


def _rpc_values(after: dict[str, Any] | None, before: dict[str, Any] | None, gets: float) -> dict[str, float]:
    """Per-step figures from the ``rpc`` groups of two METRICS reports (none when a report lacks it)."""
    rpc_after, rpc_before = (r.get("rpc") if isinstance(r, dict) else None for r in (after, before))
    if not isinstance(rpc_after, dict) or not isinstance(rpc_before, dict):
        return {}
    out: dict[str, float] = {}
    try:
        busy = float(rpc_after["handler_busy_ms"]) - float(rpc_before["handler_busy_ms"])
        if gets > 0:
            out["handler_us_per_get"] = busy * 1000 / gets
        q_after, q_before = (r.get("methods", {}).get("GET", {}) for r in (rpc_after, rpc_before))
        n_after, n_before = float(q_after.get("count", 0)), float(q_before.get("count", 0))
        if n_after > n_before:
            waited = n_after * float(q_after.get("queue_mean_ms", 0)) - n_before * float(
                q_before.get("queue_mean_ms", 0)
            )
            out["queue_ms"] = waited / (n_after - n_before)
    except (KeyError, TypeError, ValueError, AttributeError):
        return {}
    return out


@dataclass(frozen=True)
class Saturation:
    """Where a variant stops scaling: ``threads`` is None when only its last step reaches the knee."""

    variant: str
    threads: int | None
    throughput: float | None
    peak_threads: int | None
    peak_throughput: float | None
    last_gain: float | None  # not saturated: throughput at the last step / the step before
    unit: str = "gets/s"

    @property
    def text(self) -> str:
        if self.peak_throughput is None:
            return f"{self.variant}: not measured"
        peak = f"peak {self.peak_throughput:.0f} {self.unit} at {self.peak_threads} threads"
        if self.threads is None:
            gain = f" (+{(self.last_gain - 1) * 100:.0f}% at the last step)" if self.last_gain else ""
            return f"{self.variant}: not saturated by {self.peak_threads} threads{gain}; {peak}"
        share = f"{SATURATION_SHARE * 100:.0f}%+ of the {peak}"
        at = f"{self.throughput:.0f} {self.unit}"
        return f"{self.variant}: saturated at {self.threads} threads ({at}, {share})"


def sweeps(run: Run) -> dict[str, list[str]]:
    """The run's sweeps, {name: steps low to high} ({} when the lab has none), as its spec declares them
    (heaplab.lab.sweeps checked them when the spec was read)."""
    return run.spec.sweeps


def sweep_experiments(run: Run, name: str | None = None) -> list[str]:
    """The steps of sweep ``name`` (default: the lab's first, usually only, sweep); [] without sweeps."""
    found = sweeps(run)
    if name is None:
        return next(iter(found.values()), [])
    if name not in found:
        raise SweepError(f"no sweep named {name!r}; the lab has: {', '.join(found) or '(none)'}")
    return found[name]


def step_threads(tool: str, args: str) -> int:
    """Client threads of one filled command line: pe's <nclients> (its last word), ycsb's ``-threads N``
    (YCSB's default 1 without it)."""
    words = shlex.split(args)
    if tool != "ycsb":
        return int(words[-1])
    threads = 1
    for i, w in enumerate(words):
        if w == YCSB_THREADS_FLAG and i + 1 < len(words):
            threads = int(words[i + 1])
    return threads


def _threads(run: Run, experiment: str, variant: str) -> int:
    """Client threads of the step as the spec fills its command for the run's scale (one client host)."""
    phase = run.spec.measured_phase(experiment)
    params = run.scale_params or run.spec.params(run.scale)
    filled = run.spec.phases_for(params, run.spec.variants[variant])
    step = next(p for p in filled if p["name"] == phase.name)  # type: ignore[union-attr]
    return step_threads(step["tool"], step["args"])


def unit_of(run: Run, steps: list[str]) -> str:
    phase = run.spec.measured_phase(steps[0]) if steps else None
    return "ops/s" if phase is not None and phase.tool == "ycsb" else "gets/s"


def points(a: Analysis, name: str | None = None) -> dict[str, list[Point]]:
    """{variant: [Point per step, low to high]} of sweep ``name`` (default: the lab's first) for the
    variants every step compares."""
    steps = sweep_experiments(a.run, name)
    if not steps:
        return {}
    unit = unit_of(a.run, steps)
    variants = [v for v in a.run.spec.variants_of(steps[0]) if all(v in a.measurements[e] for e in steps)]
    out: dict[str, list[Point]] = {}
    for v in variants:
        row = []
        for exp in steps:
            m = a.measurements[exp][v]
            hosts = max(len(m.summaries), 1)
            threads = _threads(a.run, exp, v) * hosts
            if m.problem:
                row.append(Point(exp, v, threads, None, None, m.problem, unit=unit))
            else:
                values = m.values
                rpc = _rpc_values(
                    m.memory.raw if m.memory else None,
                    m.memory_baseline.raw if m.memory_baseline else None,
                    values.get("gets", 0.0),
                )
                row.append(
                    Point(
                        exp,
                        v,
                        threads,
                        values.get("throughput"),
                        values.get("latency_avg"),
                        cpu_us_per_get=values.get("cpu_us_per_get"),
                        unit=unit,
                        **rpc,
                    )
                )
        out[v] = row
    return out


def saturation(variant: str, row: list[Point]) -> Saturation:
    """The knee of the variant's curve: the fewest threads reaching SATURATION_SHARE of its peak throughput
    (robust to a noisy or falling step); not saturated when only the last step gets there."""
    measured = [p for p in row if p.throughput is not None]
    unit = row[0].unit if row else "gets/s"
    if not measured:
        return Saturation(variant, None, None, None, None, None, unit)
    peak = max(measured, key=lambda p: p.throughput or 0.0)
    knee = next(p for p in measured if (p.throughput or 0.0) >= SATURATION_SHARE * (peak.throughput or 0.0))
    if knee is measured[-1] and len(measured) >= 2:
        before = measured[-2].throughput
        gain = knee.throughput / before if before else None  # type: ignore[operator]
        return Saturation(variant, None, None, peak.threads, peak.throughput, gain, unit)
    return Saturation(variant, knee.threads, knee.throughput, peak.threads, peak.throughput, None, unit)
