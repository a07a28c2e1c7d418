"""Leave a measured phase's warm-up out: throughput and latency over its steady state only.

A client JVM starts cold for every phase, and so does its JIT: on two cores Apache HBase's PE client takes
about 20 s to reach its steady rate, the engine's pe about 3 s (labs/11-vs-apache-hbase/README.md). A phase
mean then says as much about how fast a client warms up as about the server. A measured phase with
``steady_after_s: F`` in experiment.yml is judged on its per-second interval log (heaplab.runfiles.hlog)
from its steady state on, found in the data: the first second, no earlier than F (the floor), from which the
rate of the next WINDOW seconds stays within BAND of the median rate of the rest of the phase. A client that
warms up in 3 s is judged from the floor on; one still climbing at 20 s from where it levels off. Throughput
is the rows of the kept intervals over their span, percentiles come from the kept intervals merged into one
histogram. The GC figures use the same window; the per-operation mechanism counters
(heaplab.analysis.mechanism) cover the whole phase, as the server reports them only at the phase's ends.

With ``measure_s: M`` the phase should keep at least M seconds: a shorter one is judged (from MIN_STEADY_S
on) but named as too short in the report, with the rows that would have been enough (``sized_by``,
heaplab.lab.phase_time, sizes the phase on the host so that it does not happen).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from hdrh.histogram import HdrHistogram

from heaplab.runfiles.client_summary import ClientSummary
from heaplab.runfiles.hlog import add_into, read_intervals_hist

# Intervals start about every 1000 ms from the log's start, a few ms late; one that starts this close
# before the cut belongs to the steady state.
START_SLACK_MS = 100
# Fewer kept seconds than this and the figure would rest on one or two intervals: not measured.
MIN_STEADY_S = 3.0
# The steady state starts where the mean rate of WINDOW seconds comes within BAND of the median rate of the
# phase's rest: per-second rates on two shared cores move by about 10% (GC pauses, the scheduler), and a
# mean over three seconds by about 6%, so a window still 10% short of the median is still warming up.
WINDOW = 3
BAND = 0.10


@dataclass(frozen=True)
class SteadyState:
    start_epoch_ms: float
    end_epoch_ms: float
    rows: float  # the kept intervals' operations times each client's rows per operation
    total: HdrHistogram  # the kept intervals merged (microseconds)
    phase_start_ms: float = 0.0
    phase_end_ms: float = 0.0
    floor_s: float = 0.0  # the spec's steady_after_s: never cut earlier
    levelled: bool = True  # the rate levelled off (False: it still climbed; cut at the floor)
    want_s: float = 0.0  # the spec's measure_s (0: none stated)
    phase_rows: float = 0.0  # the whole phase's rows, every client
    threads: int = 0  # the clients' threads (PE's --rows is per thread)

    @property
    def seconds(self) -> float:
        return (self.end_epoch_ms - self.start_epoch_ms) / 1000.0

    @property
    def throughput(self) -> float:
        return self.rows / self.seconds

    @property
    def cut_s(self) -> float:
        """Seconds from the phase's start to the steady state's first interval."""
        return (self.start_epoch_ms - self.phase_start_ms) / 1000.0

    @property
    def phase_s(self) -> float:
        return (self.phase_end_ms - self.phase_start_ms) / 1000.0

    @property
    def short(self) -> bool:
        """Fewer steady seconds than the spec's measure_s, or a rate that never levelled off."""
        return self.seconds < self.want_s or not self.levelled

    def rows_enough(self) -> int:
        """The --rows per client thread that would have kept measure_s (at least MIN_STEADY_S) seconds at
        this steady rate, a fifth to spare: the rows run before the cut, then that many seconds' worth (a
        rate that never levelled off: the whole phase again, then that many); 0 when nothing was kept."""
        if not self.threads or self.rows <= 0 or self.seconds <= 0:
            return 0
        want_rows = self.throughput * max(self.want_s, MIN_STEADY_S) * 1.2
        before = self.phase_rows - self.rows if self.levelled else self.phase_rows
        return math.ceil((before + want_rows) / self.threads)

    def describe(self) -> str:
        """'cut at 21 s (levelled off; floor 3 s), kept 34 of 55 s'."""
        how = "levelled off" if self.levelled else "still climbing: cut at the floor"
        return (
            f"cut at {self.cut_s:.0f} s ({how}; floor {self.floor_s:g} s), kept {self.seconds:.0f} of "
            f"{self.phase_s:.0f} s"
        )


class TooShort(ValueError):
    """The phase leaves less than MIN_STEADY_S seconds once its warm-up is left out."""


@dataclass(frozen=True)
class _Interval:
    start_ms: float
    end_ms: float
    rows: float
    hist: HdrHistogram


def _intervals(summaries: list[ClientSummary]) -> list[_Interval]:
    out = []
    for s in summaries:
        if s.hlog is None or not s.hlog.is_file():
            raise FileNotFoundError(f"{s.path.name}: no interval log, so no steady state can be cut")
        rows_per_op = s.rows / s.operations if s.operations else 1.0
        for h in read_intervals_hist(s.hlog):
            out.append(
                _Interval(
                    h.get_start_time_stamp(), h.get_end_time_stamp(), h.get_total_count() * rows_per_op, h
                )
            )
    return out


def per_second_rates(intervals: list[_Interval], phase_start: float, step: float) -> list[float]:
    """Rows per second of every whole interval (``step`` ms, the logs' interval) of the phase, over every
    client (the last, partial interval of each log is left out: its rate would read low)."""
    rows: dict[int, float] = {}
    for i in intervals:
        if i.end_ms - i.start_ms < 0.9 * step:  # a log's last, partial interval
            continue
        k = int((i.start_ms - phase_start + START_SLACK_MS) // step)
        rows[k] = rows.get(k, 0.0) + i.rows
    last = max(rows, default=-1)
    return [rows.get(k, 0.0) * 1000.0 / step for k in range(last + 1)]


def levelled_from(rates: list[float], first: int) -> int | None:
    """The first second, from ``first`` on, whose WINDOW seconds' mean rate is within BAND of the median
    rate of every second from it to the end, with at least 2 x WINDOW seconds from it (over fewer, a rate
    still climbing looks level); None when the rate never levels off that way."""
    for k in range(max(first, 0), len(rates) - 2 * WINDOW + 1):
        median = statistics.median(rates[k:])
        if median > 0 and statistics.fmean(rates[k : k + WINDOW]) >= (1 - BAND) * median:
            return k
    return None


def steady_state(
    summaries: list[ClientSummary], after_s: float, want_s: float = 0.0, *, from_data: bool = True
) -> SteadyState:
    """The phase from where its rate levels off, no earlier than ``after_s`` seconds past its first client's
    start, over every client host's log; ``want_s``: the seconds it should keep (measure_s).
    ``from_data=False``: cut at ``after_s`` exactly, the rule of a spec whose phase states no measure_s
    (every run made before the cut was found in the data, 2026-12-03: their figures stay as they were).

    Raises TooShort when less than MIN_STEADY_S seconds are left, and FileNotFoundError when a client wrote
    no interval log.
    """
    phase_start = min(s.start_epoch_ms for s in summaries)
    phase_end = max(s.end_epoch_ms for s in summaries)
    intervals = _intervals(summaries)
    step_ms = (statistics.median([i.end_ms - i.start_ms for i in intervals]) if intervals else 0) or 1000.0
    rates = per_second_rates(intervals, phase_start, step_ms)
    floor_k = math.ceil(after_s * 1000.0 / step_ms - 1e-9)
    found = levelled_from(rates, floor_k) if from_data else None
    cut = phase_start + max(after_s * 1000.0, (found if found is not None else 0) * step_ms)
    total = HdrHistogram(1, 3_600_000_000, 3)
    rows = 0.0
    starts: list[float] = []
    ends: list[float] = []
    for i in intervals:
        if i.start_ms < cut - START_SLACK_MS:
            continue
        add_into(total, i.hist)
        rows += i.rows
        starts.append(i.start_ms)
        ends.append(i.end_ms)
    kept_s = (max(ends) - min(starts)) / 1000.0 if starts else 0.0
    state = SteadyState(
        min(starts) if starts else cut,
        max(ends) if ends else cut,
        rows,
        total,
        phase_start,
        phase_end,
        after_s,
        found is not None or not from_data,  # a fixed cut says nothing about levelling off
        want_s,
        float(sum(s.rows for s in summaries)),
        sum(s.threads for s in summaries),
    )
    if kept_s < MIN_STEADY_S or not total.get_total_count():
        enough = state.rows_enough()
        raise TooShort(
            f"the phase ran {(phase_end - phase_start) / 1000.0:.1f} s: leaving its first "
            f"{(cut - phase_start) / 1000.0:g} s out (floor {after_s:g} s) keeps {kept_s:.1f} s, less than "
            f"{MIN_STEADY_S:g} s"
            + (f"; --rows={enough} per thread would have been enough" if enough else "")
            + " (more rows at this scale, or a shorter steady_after_s)"
        )
    return state
