"""Decode HdrHistogram interval logs (``<phase>-<host>.hlog``) into latency over time.

Decodes what the engine's ``pe --report=PREFIX`` writes (docs/contracts.md section 2): the standard
HdrHistogram log format (``#[StartTime: ...]``, ``#[BaseTime: ...]``, then one
``start,length,max,HISTF...`` line per 1 s interval), values in microseconds; YCSB's own ``.hdr`` logs
are the same format.  Lines are read as the ``hdrhistogram`` package's HistogramLogReader reads them (the
same StartTime / BaseTime rules and timestamps), but each interval is decoded by ``decode`` below, which
holds every count of the payload even where the header announces a smaller range (as the engine's
IntervalLogReader does).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hdrh.codec import HdrHistogramEncoder
from hdrh.histogram import HdrHistogram
from hdrh.log import re_base_time, re_histogram_interval, re_start_time

US_PER_MS = 1000.0
_WIDEST = sys.maxsize // 2  # the widest histogram HdrHistogram makes: any value a payload can hold
_YEAR_S = 365 * 24 * 3600.0


@dataclass(frozen=True)
class Interval:
    start_epoch_ms: float
    end_epoch_ms: float
    count: int
    p50_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float


def decode(encoded: str) -> HdrHistogram:
    """One interval's base64 payload as a histogram that holds every count in it.

    Why not ``HdrHistogram.decode`` alone: it sizes the counts array from the header's highest trackable
    value, and YCSB's auto-resizing Recorder can write a header that announces less than its counts hold
    (its threads race a resize): lab 02's g1-tuned load has a header of 32 ms over inserts up to 48 ms,
    and the report stopped with "Destination array overrun". Such a payload is decoded again into the
    widest histogram and kept in one sized to its largest value; the values stay exact (same sub-buckets,
    same indexes)."""
    try:
        return HdrHistogram.decode(encoded)  # sized by the header: right for every honest one, and quick
    except IndexError:
        pass
    payload = HdrHistogramEncoder.decode(encoded)
    head = payload.payload
    wide = HdrHistogram(head.lowest_trackable_value, _WIDEST, head.significant_figures, hdr_payload=payload)
    lowest = wide.lowest_trackable_value
    fit = HdrHistogram(lowest, max(wide.max_value, 2 * lowest), wide.significant_figures)
    used = wide.get_counts_array_index(wide.max_value) + 1  # wide.total_count > 0: it overran
    np.ctypeslib.as_array(fit.counts)[:used] = np.ctypeslib.as_array(wide.counts)[:used]
    fit.min_value, fit.max_value, fit.total_count = wide.min_value, wide.max_value, wide.total_count
    fit.int_to_double_conversion_ratio = wide.int_to_double_conversion_ratio
    return fit


def iter_intervals_hist(path: Path) -> Iterator[HdrHistogram]:
    """Every interval's histogram in file order (microseconds, absolute epoch-ms start and end stamps, the
    tag if any), read as hdrh's HistogramLogReader reads the lines."""
    start_s = base_s = None
    with Path(path).open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                if m := re_start_time.match(line):
                    start_s = float(m.group(1))
                elif m := re_base_time.match(line):
                    base_s = float(m.group(1))
                continue
            tag, body = line[4:].split(",", 1) if line.startswith("Tag=") else (None, line)
            m = re_histogram_interval.match(body)
            if not m:
                continue  # the legend
            stamp_s, length_s = float(m.group(1)), float(m.group(2))
            if start_s is None:  # no StartTime line: the first stamp is the start
                start_s = stamp_s
            if base_s is None:  # no BaseTime line: stamps more than a year before the start are relative
                base_s = start_s if stamp_s < start_s - _YEAR_S else 0.0
            h = decode(m.group(4))
            h.set_start_time_stamp((stamp_s + base_s) * 1000.0)
            h.set_end_time_stamp((stamp_s + base_s + length_s) * 1000.0)
            if tag:
                h.set_tag(tag)
            yield h


def read_intervals_hist(path: Path) -> list[HdrHistogram]:
    """Every interval's histogram in file order (microseconds, absolute epoch-ms start and end stamps)."""
    return list(iter_intervals_hist(path))


def read_intervals(path: Path) -> list[Interval]:
    """Per-interval p50/p99/p999/max (ms) in file order, with absolute epoch-ms timestamps."""
    return [
        Interval(
            start_epoch_ms=h.get_start_time_stamp(),
            end_epoch_ms=h.get_end_time_stamp(),
            count=h.get_total_count(),
            p50_ms=value_at_percentile(h, 50) / US_PER_MS,
            p99_ms=value_at_percentile(h, 99) / US_PER_MS,
            p999_ms=value_at_percentile(h, 99.9) / US_PER_MS,
            max_ms=h.get_max_value() / US_PER_MS,
        )
        for h in read_intervals_hist(path)
    ]


def _counts(h: HdrHistogram) -> np.ndarray:
    """The histogram's counts array, shared (not copied): only the counts a decoded histogram holds."""
    return np.ctypeslib.as_array(h.counts)[: min(h.counts_len, h.encoder.payload.counts_len)]


def add_into(total: HdrHistogram, other: HdrHistogram) -> None:
    """``total.add(other)``: the same counts, total, minimum and maximum, but quick where the two differ in
    shape, as most decoded YCSB intervals do (each sized to its own largest value). There the package's
    ``add`` records every bucket of ``other`` one by one in Python (a million calls for one lab 10 run);
    with the same sub-buckets and unit, bucket i of one is bucket i of the other, so the counts add as
    arrays, and the minimum and maximum move as ``record_value`` would move them (bucket start values)."""
    shape = ("bucket_count", "sub_bucket_count", "unit_magnitude", "word_size")
    if all(getattr(total, a) == getattr(other, a) for a in shape):
        total.add(other)
        return
    highest = total.get_highest_equivalent_value(total.get_value_from_index(total.counts_len - 1))
    if highest < other.get_max_value():
        raise IndexError(
            f"The other histogram includes values that do not fit {highest} < {other.get_max_value()}"
        )
    theirs = _counts(other)
    filled = np.flatnonzero(theirs)
    if total.sub_bucket_count != other.sub_bucket_count or total.unit_magnitude != other.unit_magnitude:
        for index in filled:  # buckets do not line up: record each one where it belongs
            total.record_value(other.get_value_from_index(int(index)), int(theirs[index]))
    elif len(filled):
        np.ctypeslib.as_array(total.counts)[: len(theirs)] += theirs
        total.total_count += int(theirs.sum())
        total.min_value = min(total.min_value, other.get_value_from_index(int(filled[0])))
        total.max_value = max(total.max_value, other.get_value_from_index(int(filled[-1])))
    total.start_time_stamp_msec = min(total.start_time_stamp_msec, other.start_time_stamp_msec)
    total.end_time_stamp_msec = max(total.end_time_stamp_msec, other.end_time_stamp_msec)


def value_at_percentile(h: HdrHistogram, percentile: float) -> int:
    """``h.get_value_at_percentile(percentile)``, to the same value: the first bucket whose running count
    reaches the target count, found over the cumulative counts at once instead of a Python loop over
    every bucket (called per second of every latency log for the timelines)."""
    return values_at_percentiles(h, [percentile])[0]


def values_at_percentiles(h: HdrHistogram, percentiles: Sequence[float]) -> list[int]:
    """``value_at_percentile`` of each percentile, to the same values, over one cumulative sum of the
    counts (the timelines ask three of every second)."""
    cumulative = np.cumsum(_counts(h), dtype=np.uint64)
    values = []
    for percentile in percentiles:
        index = int(np.searchsorted(cumulative, h.get_target_count_at_percentile(percentile), side="left"))
        if index >= len(cumulative):
            values.append(0)
            continue
        value = h.get_value_from_index(index)
        values.append(
            h.get_highest_equivalent_value(value) if percentile else h.get_lowest_equivalent_value(value)
        )
    return values


def read_total(paths: list[Path]) -> HdrHistogram:
    """All intervals of all the given logs added into one histogram (microseconds)."""
    total = HdrHistogram(1, 3_600_000_000, 3)
    for path in paths:
        for h in iter_intervals_hist(path):
            add_into(total, h)
    return total


def mean_value(h: HdrHistogram) -> float:
    """The histogram's mean, exactly as ``HdrHistogram.get_mean_value`` computes it (each recorded bucket's
    count times the middle of its bucket, summed as integers in bucket order), but visiting only the buckets
    that hold a count: the package's own walks every bucket up to the largest value through a Python
    iterator, about half a second for one merged latency log, which made recomputing a run take minutes."""
    if not h.total_count:
        return 0.0
    counts = _counts(h)
    total = 0
    for index in np.flatnonzero(counts).tolist():
        value = h.get_highest_equivalent_value(h.get_value_from_index(index))
        total += int(counts[index]) * h._hdr_median_equiv_value(value)
    return float(total) / h.total_count


def latency_us(total: HdrHistogram) -> dict[str, float]:
    """A client summary's ``latency_us`` (client_summary.PERCENTILE_KEYS) from a merged histogram."""

    def at(percentile: float) -> int:
        return value_at_percentile(total, percentile)

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
