"""The article-vs-run table of one experiment, shared by report.md and the notebooks.

One row per (variant, source): the article's numbers, then this run's, for the variants the experiment
compares.  A variant that was not measured (unavailable, failed) gets a row that says why and carries no
numbers.  The columns: the client metrics when a pe phase measures the experiment, the memory metrics when
an ``admin metrics --gc`` phase does, the read metrics when an ``admin metrics`` phase without --gc does.
"""

from __future__ import annotations

from dataclasses import dataclass

from heaplab.analysis.metrics import Measurement
from heaplab.lab.published import Published
from heaplab.runfiles.rundir import Run

COLUMNS = (
    ("throughput", "TPS"),
    ("latency_avg", "AVG"),
    ("latency_p95", "95%"),
    ("latency_p99", "99%"),
    ("latency_p999", "99.9%"),
    ("latency_max", "MAX (ms)"),
    ("young_gc_avg_pause", "young GC avg pause (ms)"),
    ("young_gc_rate", "young GC rate (1/s)"),
)
CLIENT_COLUMNS = COLUMNS
MEMORY_COLUMNS = (
    ("resident_after_insert", "retained after insert (MB)"),
    ("heap_retained", "heap retained (MB)"),
    ("direct_retained", "direct retained (MB)"),
    (
        "resident_after_flush",
        "retained after flush (MB)",
    ),  # after `admin flush` and a GC (heaplab.analysis.memory)
    ("heap_committed_after_flush", "heap committed after flush (MB)"),
    ("rss_after_flush", "RSS after flush (MB)"),
    ("cells", "cells"),
    ("memstore_data", "cell data (MB)"),
    ("heap_bytes_per_cell", "heap B/cell"),
    ("heap_overhead_per_cell", "heap overhead B/cell"),
)
READ_COLUMNS = (
    ("data_block_hit_ratio", "data-block hit ratio"),
    ("disk_reads_per_get", "disk reads/get"),
    ("cpu_us_per_get", "CPU us/get"),
    ("query_cache_hit_ratio", "query-cache hit ratio"),
    ("store_file_mb", "store files (MB)"),
)


@dataclass(frozen=True)
class Row:
    variant: str
    source: str  # "article (<published name>)" or "this run (<scale>)"
    values: dict[str, float] | None  # None: not measured, see ``note``
    note: str = ""


def fmt(metric: str, v: float | None) -> str:
    """Numbers as a reader compares them: TPS whole, latencies to about 3 significant digits."""
    if v is None:
        return "-"
    if metric in ("throughput", "cells") or metric.endswith("_per_cell"):
        return f"{v:.0f}"
    if metric == "young_gc_rate" or metric.endswith("_ratio") or metric == "disk_reads_per_get":
        return f"{v:.2f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def columns(run: Run, experiment: str) -> tuple[tuple[str, str], ...]:
    cols: tuple[tuple[str, str], ...] = ()
    if run.spec.measured_phase(experiment) is not None or run.spec.memory_phase(experiment) is None:
        cols += CLIENT_COLUMNS
    memory = run.spec.memory_phase(experiment)
    if memory is not None:  # `admin metrics --gc`: memory; plain `admin metrics`: the read counters
        cols += MEMORY_COLUMNS if memory.measures_memory else READ_COLUMNS
    return cols


def rows(run: Run, experiment: str, measured: dict[str, Measurement], published: Published) -> list[Row]:
    doc = run.spec.doc_of(experiment)
    out = []
    for name in run.spec.variants_of(experiment):
        variant = run.spec.variants[name]
        article_name = variant.published_for(experiment)
        if article_name:
            values = published.metrics(doc, experiment, article_name)
            out.append(Row(name, f"article ({article_name})", values or None, "" if values else "no data"))
        m = measured[name]
        source = f"this run ({run.scale})"
        if m.problem:
            out.append(Row(name, source, None, m.problem))
        else:
            out.append(Row(name, source, m.values))
    return out


def unmapped_article_rows(run: Run, experiment: str, published: Published) -> list[tuple[str, str]]:
    """The article's rows no variant maps to, as (article variant, "metric = value unit (note)")."""
    doc = run.spec.doc_of(experiment)
    mapped = {v.published_for(experiment) for v in run.spec.variants.values()}
    return [
        (pv.variant, f"{pv.metric} = {pv.value:g} {pv.unit}" + (f" ({pv.note})" if pv.note else ""))
        for pv in published.values
        if (pv.doc, pv.experiment) == (doc, experiment) and pv.variant not in mapped
    ]


def to_markdown(table: list[Row], cols: tuple[tuple[str, str], ...] = COLUMNS) -> str:
    header = ["variant", "source", *(label for _, label in cols)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * len(cols)]
    for r in table:
        if r.values is None:
            cells = [r.note] + [""] * (len(cols) - 1)
        else:
            cells = [fmt(metric, r.values.get(metric)) for metric, _ in cols]
        lines.append("| " + " | ".join([r.variant, r.source, *cells]) + " |")
    return "\n".join(lines)
