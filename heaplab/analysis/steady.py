"""Leave a measured phase's warm-up out: throughput and latency over its steady state only.

A client JVM starts cold for every phase, and so does its JIT: on two cores Apache HBase's PE client takes
about 20 s to reach its steady rate, the engine's pe about 3 s (labs/11-vs-apache-hbase/README.md). A phase
mean then says as much about how fast a client warms up as about the server. A measured phase with
``steady_after_s: N`` in experiment.yml is judged on its per-second interval log (heaplab.runfiles.hlog) from
N s after its start to its end, the same N for every variant: throughput is the rows of the kept intervals
over their span, percentiles come from the kept intervals merged into one histogram. The GC figures use the
same window; the per-operation mechanism counters (heaplab.analysis.mechanism) cover the whole phase, as the
server reports them only at the phase's ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from hdrh.histogram import HdrHistogram

from heaplab.runfiles.client_summary import ClientSummary
from heaplab.runfiles.hlog import add_into, read_intervals_hist

# Intervals start about every 1000 ms from the log's start, a few ms late; one that starts this close
# before the cut belongs to the steady state.
START_SLACK_MS = 100
# Fewer kept seconds than this and the figure would rest on one or two intervals: not measured.
MIN_STEADY_S = 3.0


@dataclass(frozen=True)
class SteadyState:
    start_epoch_ms: float
    end_epoch_ms: float
    rows: float  # the kept intervals' operations times each client's rows per operation
    total: HdrHistogram  # the kept intervals merged (microseconds)

    @property
    def seconds(self) -> float:
        return (self.end_epoch_ms - self.start_epoch_ms) / 1000.0

    @property
    def throughput(self) -> float:
        return self.rows / self.seconds


class TooShort(ValueError):
    """The phase leaves less than MIN_STEADY_S seconds once its warm-up is left out."""


def steady_state(summaries: list[ClientSummary], after_s: float) -> SteadyState:
    """The phase from ``after_s`` seconds past its first client's start, over every client host's log.

    Raises TooShort when too little is left, and FileNotFoundError when a client wrote no interval log.
    """
    phase_start = min(s.start_epoch_ms for s in summaries)
    phase_end = max(s.end_epoch_ms for s in summaries)
    cut = phase_start + after_s * 1000.0
    total = HdrHistogram(1, 3_600_000_000, 3)
    rows = 0.0
    starts: list[float] = []
    ends: list[float] = []
    for s in summaries:
        if s.hlog is None or not s.hlog.is_file():
            raise FileNotFoundError(f"{s.path.name}: no interval log, so no steady state can be cut")
        rows_per_op = s.rows / s.operations if s.operations else 1.0
        for h in read_intervals_hist(s.hlog):
            if h.get_start_time_stamp() < cut - START_SLACK_MS:
                continue
            add_into(total, h)
            rows += h.get_total_count() * rows_per_op
            starts.append(h.get_start_time_stamp())
            ends.append(h.get_end_time_stamp())
    kept_s = (max(ends) - min(starts)) / 1000.0 if starts else 0.0
    if kept_s < MIN_STEADY_S or not total.get_total_count():
        raise TooShort(
            f"the phase ran {(phase_end - phase_start) / 1000.0:.1f} s: leaving its first {after_s:g} s out "
            f"keeps {kept_s:.1f} s, less than {MIN_STEADY_S:g} s (more rows at this scale, or a shorter "
            "steady_after_s)"
        )
    return SteadyState(min(starts), max(ends), rows, total)
