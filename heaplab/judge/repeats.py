"""``heaplab compare``: one lab's metrics across repeated runs, with 95% confidence intervals.

For every experiment x variant x metric: n (the runs that have the value), the mean over runs, and the
95% confidence interval of that mean from Student's t with n - 1 degrees of freedom (mean +- t x s / sqrt(n),
s the sample standard deviation over runs; none with one run).  For the latency metrics the *pooled* value
is also given: every run's histograms of the measured phase added into one and the percentile read off it,
which is what one long run would have measured (a mean of p999s is not a p999).  docs/analysis.md.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from heaplab.analysis.metrics import Measurement, measure_all
from heaplab.lab.catalogue import UNITS
from heaplab.runfiles.hlog import US_PER_MS, mean_value, read_total, value_at_percentile
from heaplab.runfiles.rundir import Run, RunError, load_run
from heaplab.stats import half_width

DEFAULT_METRICS = (
    "throughput",
    "latency_avg",
    "latency_p50",
    "latency_p99",
    "latency_p999",
    "latency_max",
    "gc_pause_avg",
    "gc_pause_max",
    "gc_count_per_hour",
)
# metric -> percentile of the pooled histogram (None: the mean, "max": the maximum)
POOLED = {
    "latency_avg": None,
    "latency_p50": 50.0,
    "latency_p95": 95.0,
    "latency_p99": 99.0,
    "latency_p999": 99.9,
    "latency_max": "max",
}


class CompareError(RunError):
    """Runs that cannot be compared (different labs or scales, an unknown metric); one line."""


@dataclass(frozen=True)
class Interval:
    n: int
    mean: float
    low: float | None  # None with fewer than two values
    high: float | None


def mean_ci(values: list[float]) -> Interval:
    """Mean and 95% Student-t confidence interval of the mean."""
    n = len(values)
    mean = statistics.fmean(values)
    if n < 2:
        return Interval(n, mean, None, None)
    half = half_width(values)
    return Interval(n, mean, mean - half, mean + half)


@dataclass
class Cell:
    experiment: str
    variant: str
    metric: str
    values: list[float] = field(default_factory=list)  # one per run that has it, in run order
    pooled: float | None = None

    @property
    def interval(self) -> Interval | None:
        return mean_ci(self.values) if self.values else None


def load_runs(paths: list[Path]) -> list[Run]:
    runs = [load_run(p) for p in paths]
    labs = {r.lab for r in runs}
    if len(labs) > 1:
        names = ", ".join(f"{r.path.name} ({r.lab})" for r in runs)
        raise CompareError(f"runs of different labs cannot be compared: {names}")
    scales = {r.scale for r in runs}
    if len(scales) > 1:
        names = ", ".join(f"{r.path.name} ({r.scale})" for r in runs)
        raise CompareError(f"runs of different scales cannot be compared: {names}")
    return runs


def check_metrics(metrics: list[str]) -> None:
    unknown = [m for m in metrics if m not in UNITS]
    if unknown:
        raise CompareError(f"unknown metric {', '.join(unknown)}; valid: {', '.join(sorted(UNITS))}")


def _pooled(measured: list[Measurement], metric: str) -> float | None:
    hlogs = [s.hlog for m in measured for s in m.summaries]
    if metric not in POOLED or not hlogs or any(h is None or not h.is_file() for h in hlogs):
        return None
    total = read_total([h for h in hlogs if h is not None])
    if total.get_total_count() == 0:
        return None
    pct = POOLED[metric]
    if pct is None:
        return mean_value(total) / US_PER_MS
    if pct == "max":
        return total.get_max_value() / US_PER_MS
    return value_at_percentile(total, float(pct)) / US_PER_MS


def compare(paths: list[Path], metrics: list[str] | None = None) -> list[Cell]:
    """One Cell per experiment x variant x metric of the lab, in spec order."""
    metrics = list(metrics or DEFAULT_METRICS)
    check_metrics(metrics)
    runs = load_runs(paths)
    per_run = [measure_all(r) for r in runs]
    cells = []
    spec = runs[0].spec
    for experiment in spec.experiments:
        for variant in spec.variants_of(experiment):
            measured = [
                m
                for mm in per_run
                if (m := mm.get(experiment, {}).get(variant)) is not None and not m.problem
            ]
            for metric in metrics:
                cell = Cell(
                    experiment, variant, metric, [m.values[metric] for m in measured if metric in m.values]
                )
                if cell.values:
                    cell.pooled = _pooled(measured, metric)
                cells.append(cell)
    return cells


def _num(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}" if abs(v) < 1 else f"{v:.2f}"


def to_markdown(cells: list[Cell], runs: int) -> str:
    lines = [
        f"{runs} run(s); 95% CI: Student t over runs; pooled: all runs' histograms merged",
        "",
        "| experiment | variant | metric | unit | n | mean | 95% CI | pooled |",
        "|---|---|---|---|---:|---:|---|---:|",
    ]
    for c in cells:
        iv = c.interval
        if iv is None:
            lines.append(
                f"| {c.experiment} | {c.variant} | {c.metric} | {UNITS.get(c.metric, '')} | 0 | - | - | - |"
            )
            continue
        ci = f"[{_num(iv.low)}, {_num(iv.high)}]" if iv.low is not None else "-"
        head = f"| {c.experiment} | {c.variant} | {c.metric} | {UNITS.get(c.metric, '')}"
        lines.append(f"{head} | {iv.n} | {_num(iv.mean)} | {ci} | {_num(c.pooled)} |")
    return "\n".join(lines)
