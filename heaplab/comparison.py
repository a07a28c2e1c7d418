"""The article-vs-run table of one experiment, shared by report.md and the notebooks.

One row per (variant, source): the article's numbers, then this run's.  A variant that was not measured
(unavailable, failed) gets a row that says why and carries no numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

from heaplab.metrics import Measurement
from heaplab.published import Published
from heaplab.rundir import Run

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
    if metric == "throughput":
        return f"{v:.0f}"
    if metric == "young_gc_rate":
        return f"{v:.2f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def rows(run: Run, experiment: str, measured: dict[str, Measurement], published: Published) -> list[Row]:
    doc = run.spec.doc_of(experiment)
    out = []
    for name, variant in run.spec.variants.items():
        if variant.published:
            values = published.metrics(doc, experiment, variant.published)
            out.append(
                Row(name, f"article ({variant.published})", values or None, "" if values else "no data")
            )
        m = measured[name]
        source = f"this run ({run.scale})"
        if m.problem:
            out.append(Row(name, source, None, m.problem))
        else:
            out.append(Row(name, source, m.values))
    return out


def to_markdown(table: list[Row]) -> str:
    header = ["variant", "source", *(label for _, label in COLUMNS)]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * 2 + "---:|" * len(COLUMNS)]
    for r in table:
        if r.values is None:
            cells = [r.note] + [""] * (len(COLUMNS) - 1)
        else:
            cells = [fmt(metric, r.values.get(metric)) for metric, _ in COLUMNS]
        lines.append("| " + " | ".join([r.variant, r.source, *cells]) + " |")
    return "\n".join(lines)
