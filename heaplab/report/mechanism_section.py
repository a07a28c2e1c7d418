"""report.md's "Mechanism" section: per experiment, what the region servers allocated and copied per
operation and the young GCs that followed (heaplab.analysis.mechanism computes the figures)."""

from __future__ import annotations

from heaplab.analysis.mechanism import MECHANISM_UNITS, load_server_window
from heaplab.analysis.metrics import Measurement
from heaplab.lab.catalogue import GC_ALLOC
from heaplab.number_format import number

CHAIN = (
    ("alloc_bytes_per_op", "alloc (B/op)"),
    (GC_ALLOC, "alloc, GC log (B/op)"),
    ("alloc_rpc_bytes_per_op", "of which RPC (B/op)"),
    ("alloc_wal_bytes_per_op", "of which WAL (B/op)"),
    ("heap_copy_bytes_per_op", "heap copies (B/op)"),
    ("direct_used_mb", "direct in use (MB)"),
    ("server_cpu_us_per_op", "server CPU (us/op)"),
    ("server_cpu_proc_us_per_op", "server CPU, /proc (us/op)"),
    ("young_gc_per_mop", "young GCs / M ops"),
    ("young_gc_avg_pause", "mean young pause (ms)"),
    ("latency_p999", "P99.9 (ms)"),
    ("throughput", "throughput (ops/s)"),
)
MECHANISM_INTRO = (
    "The causal chain per variant over the measured window: heap bytes the region servers allocated per "
    "operation, counted by the engine's threads (of which the RPC handler and reader threads, and the WAL) "
    "and read from the servers' GC logs (any server), bytes copied onto the heap on the "
    "request and response path per operation (and the direct memory in use at the end), the CPU time the "
    "server processes spent per operation (every thread: calls, WAL, flushes, GC; counted by the engine, "
    "and read from /proc around the phase's command for any server), the young GCs per "
    "million operations, their mean pause, and the tail and throughput the clients saw. docs/analysis.md "
    "defines each metric and what it cannot see."
)


def _cell(metric: str, values: dict[str, float], base: dict[str, float] | None) -> str:
    if metric not in values:
        return "-"
    text = number(values[metric])
    if base is not None and base.get(metric):
        ratio = values[metric] / base[metric]
        text += f" ({ratio:,.0f}x)" if ratio >= 100 else f" ({ratio:.2f}x)"
    return text


def _why_missing(m: Measurement) -> str | None:
    """Why a variant has no row, or a note on the groups it lacks; None when nothing is missing."""
    if m.problem:
        return m.problem
    window = load_server_window(m.summaries)
    notes = list(window.notes) if window is not None else []
    if window is None:
        notes.append("its client summaries carry no server_metrics (Apache HBase, or a run made before them)")
    notes += [f"no {metric}: {why}" for metric, why in m.absent.items() if metric in MECHANISM_UNITS]
    return "; ".join(notes) or None


def experiment_lines(experiment: str, by_variant: dict[str, Measurement]) -> list[str]:
    """One experiment's table, a row per measured variant; [] when no variant has a metric from the
    servers' reports (then the chain has no first link)."""
    server_side = set(MECHANISM_UNITS) - {"young_gc_per_mop"}
    shown = [m for m in by_variant.values() if not m.problem]
    if not any(server_side & set(m.values) for m in shown):
        return []
    base = shown[0]
    lines = [
        f"### {experiment}",
        "",
        f"In brackets: the ratio to `{base.variant}`.",
        "",
        "| variant | " + " | ".join(heading for _, heading in CHAIN) + " |",
        "|---|" + "---:|" * len(CHAIN),
    ]
    for m in shown:
        ref = None if m is base else base.values
        lines.append(f"| {m.variant} | " + " | ".join(_cell(k, m.values, ref) for k, _ in CHAIN) + " |")
    notes = [(m.variant, _why_missing(m)) for m in by_variant.values()]
    lines += ["", *(f"- {variant}: {why}" for variant, why in notes if why)]
    return [*lines, ""] if lines[-1] else lines


def report_lines(measurements: dict[str, dict[str, Measurement]]) -> list[str]:
    """report.md's "Mechanism" section, one table per experiment; [] when no experiment has one."""
    body = [line for exp, by_variant in measurements.items() for line in experiment_lines(exp, by_variant)]
    return ["## Mechanism", "", MECHANISM_INTRO, "", *body] if body else []
