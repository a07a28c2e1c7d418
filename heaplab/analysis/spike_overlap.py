"""Do the slowest requests coincide with the server's pauses, more than chance would have them? Per request.

heaplab.analysis.timeline's latency_spike_gc_lift asks it per *second*; this module asks it per *request*,
from the clients' interval logs (lab 01's measured phase writes one histogram per 100 ms: pe
--reportInterval=100).

Definitions (docs/analysis.md, "Tail requests and pauses"):

- T, the tail threshold: the measured window's P99.9, every client host's intervals merged.  A *tail
  request* is one slower than T.
- A *stop*: a stop-the-world GC pause or a safepoint of any region server (gc-regionserver.log through
  heaplab.analysis.gc_stats; gc-events.jsonl when there is no log) lasting at least MIN_STOP_MS.  Shorter ones
  are left out: a 0.1 ms safepoint cannot make a request T slow, and JDK 17 has many.
- An interval *touches* a stop when the stop overlaps [interval start - T, interval end]: a tail request
  completed in the interval was under way at some time in that span (it took at least T).
- tail_gc_share: the share of tail requests whose interval touches a stop.  all_gc_share: the same share
  for every request, which is what chance gives a request of the phase: were the tail unrelated to the
  stops, tail requests would touch them as often as requests in general.  tail_gc_lift = tail_gc_share /
  all_gc_share (1: no more than chance).  pause_time_share: the share of the window's time inside a stop
  (the share a request that lasted no time would get).
- The control (``bin/engine hiccup``, a background phase of the lab beside the measured one): a JVM that
  only sleeps 1 ms over and over and records each overrun.  hiccup_p999 / hiccup_max (ms): its overruns'
  P99.9 and largest over the window; hiccup_p999_over_latency_p999: that P99.9 over the server's P99.9
  (how large the machine's own stalls are beside the tail); tail_stall_share: the share of tail requests
  whose interval touches a *platform stall*, a control interval whose largest overrun is at least
  STALL_FRACTION x T (a stall that alone could bring a request near the tail).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hdrh.histogram import HdrHistogram

from heaplab.analysis.gc_stats import ServerGc
from heaplab.runfiles.hlog import US_PER_MS, add_into, iter_intervals_hist, value_at_percentile

MIN_STOP_MS = 1.0
STALL_FRACTION = 0.5
TAIL_PERCENTILE = 99.9


@dataclass(frozen=True)
class Span:
    start_ms: float
    end_ms: float


@dataclass(frozen=True)
class Interval:
    """One interval of one client host's latency log: its span and histogram (microseconds)."""

    start_ms: float
    end_ms: float
    hist: HdrHistogram


def _histogram() -> HdrHistogram:
    return HdrHistogram(1, 3_600_000_000, 3)


def read_intervals(paths: Iterable[Path], window: tuple[float, float]) -> list[Interval]:
    """Every interval of the logs that starts inside the window [start, end)."""
    out = []
    for path in paths:
        for h in iter_intervals_hist(path):
            start = float(h.get_start_time_stamp())
            if window[0] <= start < window[1]:
                out.append(Interval(start, float(h.get_end_time_stamp()), h))
    return out


def count_above(h: HdrHistogram, threshold_us: float) -> int:
    """The values of ``h`` above ``threshold_us`` (by each bucket's highest equivalent value, as the
    percentiles of heaplab.runfiles.hlog are given). A bucket's value grows with its index in the counts
    array, so the buckets above are a suffix of it: found by bisection, not by visiting every bucket."""
    counts = np.ctypeslib.as_array(h.counts)[: min(h.counts_len, h.encoder.payload.counts_len)]
    lo, hi = 0, len(counts)  # the first index whose bucket lies above the threshold
    while lo < hi:
        mid = (lo + hi) // 2
        if h.get_highest_equivalent_value(h.get_value_from_index(mid)) > threshold_us:
            hi = mid
        else:
            lo = mid + 1
    return int(counts[lo:].sum())


def tail_threshold_us(intervals: Sequence[Interval]) -> float | None:
    total = _histogram()
    for i in intervals:
        add_into(total, i.hist)
    return float(value_at_percentile(total, TAIL_PERCENTILE)) if total.get_total_count() else None


def stops(servers: Sequence[ServerGc], window: tuple[float, float]) -> list[Span]:
    """Every server's GC pauses and safepoints of at least MIN_STOP_MS near the window."""
    spans = []
    for gc in servers:
        for p in gc.pauses:
            if p.duration_ms >= MIN_STOP_MS:
                spans.append(Span(p.start_epoch_ms, p.end_epoch_ms))
        for s in gc.safepoints or []:
            if s.total_ms >= MIN_STOP_MS:
                spans.append(Span(s.start_epoch_ms, s.end_epoch_ms))
    margin = 60_000.0  # stops a little before the window still touch its first intervals
    return sorted(
        (s for s in spans if s.end_ms > window[0] - margin and s.start_ms < window[1]),
        key=lambda s: s.start_ms,
    )


def _touches(interval: Interval, spans: Sequence[Span], lookback_ms: float) -> bool:
    lo, hi = interval.start_ms - lookback_ms, interval.end_ms
    return any(s.start_ms < hi and s.end_ms > lo for s in spans)


def covered_share(spans: Sequence[Span], window: tuple[float, float]) -> float | None:
    """The share of the window's time inside the union of ``spans``."""
    length = window[1] - window[0]
    if length <= 0:
        return None
    covered, reach = 0.0, window[0]
    for s in sorted(spans, key=lambda s: s.start_ms):
        lo, hi = max(s.start_ms, reach), min(s.end_ms, window[1])
        if hi > lo:
            covered += hi - lo
            reach = hi
    return covered / length


@dataclass(frozen=True)
class Shares:
    tail_share: float | None  # of tail requests, the share whose interval touches a span
    all_share: float | None  # of every request
    tail_requests: int


def shares(intervals: Sequence[Interval], spans: Sequence[Span], threshold_us: float) -> Shares:
    lookback = threshold_us / US_PER_MS
    tail = tail_touching = total = total_touching = 0
    for i in intervals:
        n = i.hist.get_total_count()
        k = count_above(i.hist, threshold_us)
        touches = _touches(i, spans, lookback)
        total += n
        tail += k
        if touches:
            total_touching += n
            tail_touching += k
    return Shares(
        tail_touching / tail if tail else None,
        total_touching / total if total else None,
        tail,
    )


def lift(s: Shares) -> float | None:
    """tail share / all share; None without tail requests or when no request touches a stop."""
    if s.tail_share is None or not s.all_share:
        return None
    return s.tail_share / s.all_share


def stall_spans(control: Sequence[Interval], threshold_us: float) -> list[Span]:
    """The control's intervals whose largest overrun is at least STALL_FRACTION x T."""
    bar = STALL_FRACTION * threshold_us
    return [Span(c.start_ms, c.end_ms) for c in control if c.hist.get_max_value() >= bar]


def overlap_values(
    client_logs: Sequence[Path],
    servers: Sequence[ServerGc],
    control_logs: Sequence[Path],
    window: tuple[float, float],
) -> tuple[dict[str, float], int]:
    """The metrics of the module docstring over the window, and the tail requests they rest on."""
    intervals = read_intervals(client_logs, window)
    threshold = tail_threshold_us(intervals)
    if threshold is None:
        return {}, 0
    values: dict[str, float] = {}
    spans = stops(servers, window)
    s = shares(intervals, spans, threshold)
    if s.tail_share is not None:
        values["tail_gc_share"] = s.tail_share
    if s.all_share is not None:
        values["all_gc_share"] = s.all_share
    if (x := lift(s)) is not None:
        values["tail_gc_lift"] = x
    if servers and (covered := covered_share(spans, window)) is not None:
        values["pause_time_share"] = covered
    control = read_intervals(control_logs, window)
    if control:
        merged = _histogram()
        for c in control:
            add_into(merged, c.hist)
        values["hiccup_p999"] = value_at_percentile(merged, TAIL_PERCENTILE) / US_PER_MS
        values["hiccup_max"] = merged.get_max_value() / US_PER_MS
        if threshold > 0:
            values["hiccup_p999_over_latency_p999"] = value_at_percentile(merged, TAIL_PERCENTILE) / threshold
        stalls = shares(intervals, stall_spans(control, threshold), threshold)
        if stalls.tail_share is not None:
            values["tail_stall_share"] = stalls.tail_share
    return values, s.tail_requests


def overlap_lines(measurements: dict) -> list[str]:
    """report.md's "Tail gets and pauses" section: per experiment and variant that has the figures."""
    lines = [
        "## Tail gets and pauses",
        "",
        "Per request (heaplab/analysis/spike_overlap.py, docs/analysis.md): of the gets above the phase's "
        "P99.9, the share whose interval touches a server's GC or safepoint stop, against the share of every "
        "get (chance); the hiccup control's overruns beside the server's P99.9.",
    ]
    for experiment, by_variant in measurements.items():
        shown = [m for m in by_variant.values() if m.problem is None and "all_gc_share" in m.values]
        if not shown:
            continue
        lines += [
            "",
            f"### {experiment}",
            "",
            "| variant | tail gets | tail touching a stop | all gets touching a stop | lift | time stopped "
            "| hiccup p99.9 (ms) | hiccup max (ms) | hiccup p99.9 / get p99.9 "
            "| tail touching a platform stall |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for m in shown:
            v = m.values

            def pct(key: str, v: dict = v) -> str:
                return f"{v[key]:.0%}" if key in v else "-"

            def num(key: str, v: dict = v) -> str:
                return f"{v[key]:.3g}" if key in v else "-"

            lines.append(
                f"| {m.variant} | {m.events.get('tail_gc_share', '-')} | {pct('tail_gc_share')} "
                f"| {pct('all_gc_share')} | {num('tail_gc_lift')} | {pct('pause_time_share')} "
                f"| {num('hiccup_p999')} | {num('hiccup_max')} | {num('hiccup_p999_over_latency_p999')} "
                f"| {pct('tail_stall_share')} |"
            )
    return [*lines, ""] if len(lines) > 3 else []
