"""Decode HdrHistogram interval logs (``<phase>-<host>.hlog``) into latency over time.

Decodes what the engine's ``pe --report=PREFIX`` writes (docs/contracts.md section 2): the standard
HdrHistogram log format (``#[StartTime: ...]``, ``#[BaseTime: ...]``, then one
``start,length,max,HISTF...`` line per 1 s interval), values in microseconds.  Decoding is done by the
``hdrhistogram`` package's HistogramLogReader, so Java-written logs read the same as Python-written ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

US_PER_MS = 1000.0


@dataclass(frozen=True)
class Interval:
    start_epoch_ms: float
    end_epoch_ms: float
    count: int
    p50_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float


def _reference() -> HdrHistogram:
    # Only a template for the reader; every interval is decoded with its own parameters.
    return HdrHistogram(1, 3_600_000_000, 3)


def read_intervals(path: Path) -> list[Interval]:
    """Per-interval p50/p99/p999/max (ms) in file order, with absolute epoch-ms timestamps."""
    reader = HistogramLogReader(str(path), _reference())
    try:
        out = []
        while (h := reader.get_next_interval_histogram()) is not None:
            out.append(
                Interval(
                    start_epoch_ms=h.get_start_time_stamp(),
                    end_epoch_ms=h.get_end_time_stamp(),
                    count=h.get_total_count(),
                    p50_ms=h.get_value_at_percentile(50) / US_PER_MS,
                    p99_ms=h.get_value_at_percentile(99) / US_PER_MS,
                    p999_ms=h.get_value_at_percentile(99.9) / US_PER_MS,
                    max_ms=h.get_max_value() / US_PER_MS,
                )
            )
        return out
    finally:
        reader.input_file.close()


def read_total(paths: list[Path]) -> HdrHistogram:
    """All intervals of all the given logs added into one histogram (microseconds)."""
    total = HdrHistogram(1, 3_600_000_000, 3)
    for path in paths:
        reader = HistogramLogReader(str(path), total)
        try:
            while reader.add_next_interval_histogram(total) is not None:
                pass
        finally:
            reader.input_file.close()
    return total


def mean_value(h: HdrHistogram) -> float:
    """The histogram's mean, exactly as ``HdrHistogram.get_mean_value`` computes it (each recorded bucket's
    count times the middle of its bucket, summed as integers in bucket order), but visiting only the buckets
    that hold a count: the package's own walks every bucket up to the largest value through a Python
    iterator, about half a second for one merged latency log, which made recomputing a run take minutes."""
    if not h.total_count:
        return 0.0
    total = 0
    for index, count in enumerate(h.counts):
        if count:
            value = h.get_highest_equivalent_value(h.get_value_from_index(index))
            total += count * h._hdr_median_equiv_value(value)
    return float(total) / h.total_count


def latency_us(total: HdrHistogram) -> dict[str, float]:
    """A client summary's ``latency_us`` (client_summary.PERCENTILE_KEYS) from a merged histogram."""
    at = total.get_value_at_percentile
    return {
        "mean": round(mean_value(total), 3),
        "min": float(total.get_min_value()),
        "p50": float(at(50)),
        "p75": float(at(75)),
        "p95": float(at(95)),
        "p99": float(at(99)),
        "p999": float(at(99.9)),
        "p9999": float(at(99.99)),
        "max": float(total.get_max_value()),
    }
