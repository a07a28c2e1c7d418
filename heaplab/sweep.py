"""Thread sweeps: the same measured read at rising client thread counts, one experiment per step (lab 05).

A lab declares its sweep with a top-level key of experiment.yml, the experiments of its steps from the
lowest concurrency to the highest (docs/contracts.md section 8)::

    sweep: [netty_rpc_sweep1, netty_rpc_sweep2, netty_rpc_sweep3, netty_rpc]

Each step is an ordinary experiment measured by one pe phase, so its table and claims work as everywhere
else; this module lines the steps up per variant: client threads (the last word of the step's pe command,
as the spec fills it for the run's scale, times the client hosts), throughput and average latency.

The saturation point of a variant is the knee of its throughput curve: the fewest threads that reach
``SATURATION_SHARE`` (90%) of its peak throughput. From there on the server is busy all the time, and more
clients only queue longer; a variant that gets there only at the last step is not saturated (still
climbing).  PE's clients are a closed loop (each thread sends its next get when the last one is answered),
so past that point the average latency grows with the threads: latency ~ threads / throughput.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from heaplab.analysis import Analysis
from heaplab.comparison import fmt
from heaplab.figures import save_png
from heaplab.paths import SPEC_NAME
from heaplab.rundir import Run, RunError

SWEEP_KEY = "sweep"
FIGURE = "figures/sweep.png"
SATURATION_SHARE = 0.90


class SweepError(RunError):
    """The spec's ``sweep`` is malformed; the message is one line naming the place."""


@dataclass(frozen=True)
class Point:
    """One variant at one step of the sweep; ``throughput``/``latency_avg`` are None when not measured."""

    experiment: str
    variant: str
    threads: int
    throughput: float | None
    latency_avg: float | None
    problem: str | None = None
    # server side, when an `admin metrics` pair brackets the step (the rpc group since issue 5):
    cpu_us_per_get: float | None = None  # the whole process's CPU time per get
    handler_us_per_get: float | None = None  # handler time running calls, per get
    queue_ms: float | None = None  # a GET's mean wait in the call queue over the step


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

    @property
    def text(self) -> str:
        if self.peak_throughput is None:
            return f"{self.variant}: not measured"
        peak = f"peak {self.peak_throughput:.0f} gets/s at {self.peak_threads} threads"
        if self.threads is None:
            gain = f" (+{(self.last_gain - 1) * 100:.0f}% at the last step)" if self.last_gain else ""
            return f"{self.variant}: not saturated by {self.peak_threads} threads{gain}; {peak}"
        share = f"{SATURATION_SHARE * 100:.0f}%+ of the {peak}"
        return f"{self.variant}: saturated at {self.threads} threads ({self.throughput:.0f} gets/s, {share})"


def sweep_experiments(run: Run) -> list[str]:
    """The run's sweep steps in order ([] when the lab has no sweep), checked against its spec."""
    path = run.path / SPEC_NAME
    raw: Any = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else None
    return check_sweep(raw.get(SWEEP_KEY) if isinstance(raw, dict) else None, run, str(path))


def check_sweep(value: Any, run: Run, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) < 2 or not all(isinstance(e, str) for e in value):
        raise SweepError(f"{where}: {SWEEP_KEY} must be a list of at least two experiment names, low to high")
    for exp in value:
        if exp not in run.spec.experiments:
            raise SweepError(f"{where}: {SWEEP_KEY} names {exp!r}, which the lab does not reproduce")
        if run.spec.measured_phase(exp) is None:
            raise SweepError(f"{where}: {SWEEP_KEY} step {exp!r} has no pe phase measuring it")
    if len(set(value)) != len(value):
        raise SweepError(f"{where}: {SWEEP_KEY} names an experiment twice")
    return list(value)


def _threads(run: Run, experiment: str, variant: str) -> int:
    """Client threads of the step: pe's <nclients> as the spec fills it, times the client hosts measured."""
    phase = run.spec.measured_phase(experiment)
    params = run.manifest.get("scale_params") or run.spec.params(run.scale)
    filled = run.spec.phases_for(params, run.spec.variants[variant])
    args = next(p["args"] for p in filled if p["name"] == phase.name)  # type: ignore[union-attr]
    return int(args.split()[-1])


def points(a: Analysis) -> dict[str, list[Point]]:
    """{variant: [Point per step, low to high]} for the variants every step compares."""
    steps = sweep_experiments(a.run)
    if not steps:
        return {}
    variants = [v for v in a.run.spec.variants_of(steps[0]) if all(v in a.measurements[e] for e in steps)]
    out: dict[str, list[Point]] = {}
    for v in variants:
        row = []
        for exp in steps:
            m = a.measurements[exp][v]
            hosts = max(len(m.summaries), 1)
            threads = _threads(a.run, exp, v) * hosts
            if m.problem:
                row.append(Point(exp, v, threads, None, None, m.problem))
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
                        **rpc,
                    )
                )
        out[v] = row
    return out


def saturation(variant: str, row: list[Point]) -> Saturation:
    """The knee of the variant's curve: the fewest threads reaching SATURATION_SHARE of its peak throughput
    (robust to a noisy or falling step); not saturated when only the last step gets there."""
    measured = [p for p in row if p.throughput is not None]
    if not measured:
        return Saturation(variant, None, None, None, None, None)
    peak = max(measured, key=lambda p: p.throughput or 0.0)
    knee = next(p for p in measured if (p.throughput or 0.0) >= SATURATION_SHARE * (peak.throughput or 0.0))
    if knee is measured[-1] and len(measured) >= 2:
        before = measured[-2].throughput
        gain = knee.throughput / before if before else None  # type: ignore[operator]
        return Saturation(variant, None, None, peak.threads, peak.throughput, gain)
    return Saturation(variant, knee.threads, knee.throughput, peak.threads, peak.throughput, None)


SERVER_COLUMNS = (
    ("cpu_us_per_get", "CPU us/get"),
    ("handler_us_per_get", "handler us/get"),
    ("queue_ms", "queue wait (ms)"),
)


def to_markdown(a: Analysis) -> str:
    """The sweep as markdown ("" when the lab has no sweep): a table of threads, TPS and AVG per variant and
    the last variant's TPS over the first's; when measured, a second table of the server side per step
    (process CPU per get, handler time per get, a GET's mean wait in the call queue); then one line per
    variant saying where it saturates."""
    rows = points(a)
    if not rows:
        return ""
    variants = list(rows)
    steps = sweep_experiments(a.run)
    header = ["step", "threads"]
    for v in variants:
        header += [f"{v} TPS", f"{v} AVG (ms)"]
    ratio = len(variants) >= 2
    if ratio:
        header.append(f"TPS {variants[-1]} / {variants[0]}")
    lines = _table_head(header)
    for i, exp in enumerate(steps):
        cells = [exp, str(rows[variants[0]][i].threads)]
        for v in variants:
            p = rows[v][i]
            cells += [fmt("throughput", p.throughput), fmt("latency_avg", p.latency_avg)]
        if ratio:
            first, last = rows[variants[0]][i].throughput, rows[variants[-1]][i].throughput
            cells.append(f"{last / first:.2f}x" if first and last is not None else "-")
        lines.append("| " + " | ".join(cells) + " |")
    server = [
        (key, label)
        for key, label in SERVER_COLUMNS
        if any(getattr(p, key) is not None for row in rows.values() for p in row)
    ]
    if server:
        lines += ["", "Server side, per step:", ""]
        lines += _table_head(["step", "threads"] + [f"{v} {label}" for v in variants for _, label in server])
        for i, exp in enumerate(steps):
            cells = [exp, str(rows[variants[0]][i].threads)]
            cells += [_num(getattr(rows[v][i], key)) for v in variants for key, _ in server]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"- {saturation(v, rows[v]).text}" for v in variants]
    return "\n".join(lines)


def _table_head(header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def report_lines(a: Analysis) -> list[str]:
    """report.md's sweep section ([] when the lab has no sweep)."""
    table = to_markdown(a)
    if not table:
        return []
    return [
        "## Thread sweep",
        "",
        "Throughput (gets/s) and average latency per client thread count, one measured read per step. "
        f"A variant saturates at the fewest threads that reach {SATURATION_SHARE * 100:.0f}% of its peak "
        "throughput; past it, a closed loop of clients only waits longer (latency ~ threads / throughput).",
        "",
        table,
        "",
        f"![throughput and latency against client threads]({FIGURE})",
        "",
    ]


def write_figure(a: Analysis) -> None:
    """figures/sweep.png in the run directory, when the lab has a sweep (``heaplab report``)."""
    if sweep_experiments(a.run):
        save_png(sweep_figure(a), a.run.path / FIGURE)


def sweep_figure(a: Analysis) -> Figure:
    """Throughput and average latency against client threads, one line per variant, saturation marked."""
    rows = points(a)
    fig = Figure(figsize=(11, 4), layout="constrained")
    FigureCanvasAgg(fig)
    tps, lat = fig.subplots(1, 2)
    for v, row in rows.items():
        shown = [p for p in row if p.throughput is not None]
        if not shown:
            continue
        xs = [p.threads for p in shown]
        (line,) = tps.plot(xs, [p.throughput for p in shown], marker="o", label=v)
        lat.plot(xs, [p.latency_avg for p in shown], marker="o", label=v, color=line.get_color())
        sat = saturation(v, row)
        if sat.threads is not None:
            tps.axvline(sat.threads, color=line.get_color(), linestyle=":", linewidth=1)
    ticks = sorted({p.threads for row in rows.values() for p in row})
    for ax, label in ((tps, "throughput (gets/s)"), (lat, "average latency (ms)")):
        ax.set_xscale("log", base=2)
        if ticks:
            ax.set_xticks(ticks, [str(t) for t in ticks])
            ax.xaxis.set_minor_locator(NullLocator())
        ax.set_ylim(bottom=0)
        ax.set_xlabel("client threads")
        ax.set_ylabel(label)
        ax.set_title(f"{label} ({a.run.scale})")
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        else:
            ax.text(0.5, 0.5, "no measured variant", ha="center", va="center", transform=ax.transAxes)
    return fig
