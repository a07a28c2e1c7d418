"""Latency per second of the measured phase, merged over client hosts, beside every server's GC pauses.

The clients' HdrHistogram interval logs (heaplab.runfiles.hlog: one histogram per ~1 s interval) are put into
1-s buckets counted from the phase start (the earliest client's start); a bucket's histogram is the sum
of every interval of every host that started in it, so its percentiles are exact over all hosts' requests,
not an average of per-host percentiles.  Client and server clocks are the hosts' wall clocks (one host on
the local target; NTP on a cluster).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

from heaplab.analysis.gc_stats import ServerPause, load_variant_gc, measured_summaries
from heaplab.runfiles.hlog import (
    US_PER_MS,
    add_into,
    iter_intervals_hist,
    value_at_percentile,
    values_at_percentiles,
)
from heaplab.runfiles.rundir import Run

BUCKET_MS = 1000.0
# A second is a spike when its own p99 is above the whole phase's p99.9: at least 1% of its requests are
# among the phase's slowest 0.1%, so the tail is concentrated there (docs/analysis.md).
SPIKE_PERCENTILE = 99.9


def _histogram() -> HdrHistogram:
    return HdrHistogram(1, 3_600_000_000, 3)


@dataclass(frozen=True)
class Row:
    t_s: float  # the bucket's start, seconds since the phase started
    count: int
    p50_ms: float
    p99_ms: float
    p999_ms: float
    max_ms: float


@dataclass
class Timeline:
    variant: str
    experiment: str
    start_epoch_ms: float
    end_epoch_ms: float
    rows: list[Row] = field(default_factory=list)
    pauses: list[ServerPause] = field(default_factory=list)  # every server's pauses overlapping the window
    p50_ms: float | None = None  # of the whole phase, all hosts merged
    p999_ms: float | None = None

    def pauses_in(self, row: Row) -> list[ServerPause]:
        lo = self.start_epoch_ms + row.t_s * 1000.0
        hi = lo + BUCKET_MS
        return [p for p in self.pauses if p.start_epoch_ms < hi and p.end_epoch_ms > lo]

    def as_dicts(self) -> list[dict]:
        """The rows as dicts with the GC pause time (ms, all servers) overlapping each interval."""
        return [
            {**r.__dict__, "gc_pause_ms": sum(p.duration_ms for p in self.pauses_in(r))} for r in self.rows
        ]


def _merged(intervals: list[HdrHistogram], like: HdrHistogram) -> HdrHistogram:
    """The intervals of one second as one histogram. Most seconds hold one interval (one client host): when
    its buckets line up with ``like``'s, it is its own sum, and copying it into a full-range histogram
    would only cost time (about a quarter of the timelines' time on a lab 03 run)."""
    shape = ("sub_bucket_count", "unit_magnitude")
    if len(intervals) == 1 and all(getattr(intervals[0], a) == getattr(like, a) for a in shape):
        return intervals[0]
    merged = _histogram()
    for h in intervals:
        add_into(merged, h)
    return merged


def latency_timeline(run: Run, variant: str, experiment: str) -> Timeline | None:
    """None when the variant has no measured client phase (unavailable, failed, no summary)."""
    summaries = measured_summaries(run, variant, experiment)
    if not summaries:
        return None
    start = min(s.start_epoch_ms for s in summaries)
    end = max(s.end_epoch_ms for s in summaries)
    buckets: dict[int, list[HdrHistogram]] = {}
    total = _histogram()
    for s in summaries:
        if s.hlog is None or not s.hlog.is_file():
            continue
        for h in iter_intervals_hist(s.hlog):
            index = max(int((h.get_start_time_stamp() - start) // BUCKET_MS), 0)
            buckets.setdefault(index, []).append(h)
            add_into(total, h)
    tl = Timeline(variant, experiment, start, end)
    for index in sorted(buckets):
        h = _merged(buckets[index], total)
        p50, p99, p999 = values_at_percentiles(h, (50, 99, 99.9))
        tl.rows.append(
            Row(
                t_s=index * BUCKET_MS / 1000.0,
                count=h.get_total_count(),
                p50_ms=p50 / US_PER_MS,
                p99_ms=p99 / US_PER_MS,
                p999_ms=p999 / US_PER_MS,
                max_ms=h.get_max_value() / US_PER_MS,
            )
        )
    if total.get_total_count():
        tl.p50_ms = value_at_percentile(total, 50) / US_PER_MS
        tl.p999_ms = value_at_percentile(total, SPIKE_PERCENTILE) / US_PER_MS
    pauses = [p for s in load_variant_gc(run, variant) for p in s.pauses]
    overlapping = [p for p in pauses if p.start_epoch_ms < end and p.end_epoch_ms > start]
    tl.pauses = sorted(overlapping, key=lambda p: p.start_epoch_ms)
    return tl


def spike_seconds(tl: Timeline) -> tuple[list[Row], list[Row]]:
    """(spike seconds, other seconds with requests): a spike's p99 is above the phase's p99.9."""
    if tl.p999_ms is None:
        return [], []
    busy = [r for r in tl.rows if r.count]
    spikes = [r for r in busy if r.p99_ms > tl.p999_ms]
    return spikes, [r for r in busy if r.p99_ms <= tl.p999_ms]


def spike_gc_share(tl: Timeline) -> float | None:
    """latency_spike_gc_share: the fraction of spike seconds that overlap a GC pause of any server.
    None when no second is a spike (nothing to attribute)."""
    spikes, _ = spike_seconds(tl)
    if not spikes:
        return None
    return sum(1 for r in spikes if tl.pauses_in(r)) / len(spikes)


def spike_gc_lift(tl: Timeline) -> float | None:
    """latency_spike_gc_lift: how much likelier a spike second overlaps a GC pause than another second.

    (share of spike seconds with a pause) / (share of other seconds with a pause), each share smoothed
    as (k + 0.5) / (n + 1) so that no pause in the other seconds gives a large finite lift, not a division
    by zero.  1 means pauses are no likelier in spike seconds (they do not explain the spikes); ZGC's
    sub-millisecond pauses, present in every second, give about 1.  None without spikes or other seconds.
    """
    spikes, others = spike_seconds(tl)
    if not spikes or not others:
        return None

    def share(rows: list[Row]) -> float:
        return (sum(1 for r in rows if tl.pauses_in(r)) + 0.5) / (len(rows) + 1)

    return share(spikes) / share(others)
