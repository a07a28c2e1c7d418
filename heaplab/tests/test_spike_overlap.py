"""heaplab.analysis.spike_overlap: tail requests against the servers' stops and the hiccup control, per
request.

Small timelines fabricated by hand: 100 ms intervals of known latencies, pauses and safepoints at known
times, a control log with one stall; every expected figure is counted by hand below.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from heaplab.analysis.gc_stats import ServerGc, ServerPause
from heaplab.analysis.metrics import Measurement
from heaplab.analysis.spike_overlap import (
    Interval,
    Span,
    count_above,
    covered_share,
    lift,
    overlap_lines,
    overlap_values,
    read_intervals,
    shares,
    stall_spans,
    stops,
)
from heaplab.runfiles.gc_records import Safepoint
from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import write_interval_log

T0 = 1_795_000_000_000.0
FAST_US, SLOW_US = 500, 60_000  # a get of 0.5 ms, a tail get of 60 ms


def _hist(values: dict[int, int], start_ms: float, end_ms: float) -> HdrHistogram:
    h = HdrHistogram(1, 3_600_000_000, 3)
    for value, count in values.items():
        h.record_value(value, count)
    h.set_start_time_stamp(int(start_ms))
    h.set_end_time_stamp(int(end_ms))
    return h


def _interval(k: int, values: dict[int, int]) -> Interval:
    """The k-th 100 ms interval of the phase."""
    start = T0 + 100 * k
    return Interval(start, start + 100, _hist(values, start, start + 100))


def _pause(at_ms: float, ms: float) -> ServerPause:
    return ServerPause("rs1", T0 + at_ms, ms, "young", None, None)


def _safepoint(at_ms: float, ms: float) -> Safepoint:
    return Safepoint("Cleanup", T0 + at_ms + ms, 0.0, 0.0, ms)


def _ten_intervals(fast: int = 98) -> list[Interval]:
    """10 intervals of fast + 2 gets: intervals 3 and 7 hold 2 slow gets each, the rest only fast ones."""
    return [
        _interval(k, {FAST_US: fast, SLOW_US: 2} if k in (3, 7) else {FAST_US: fast + 2}) for k in range(10)
    ]


def test_count_above_counts_only_the_values_above_the_threshold() -> None:
    h = _hist({FAST_US: 98, SLOW_US: 2}, T0, T0 + 100)
    assert count_above(h, 10_000) == 2
    assert count_above(h, 100) == 100
    assert count_above(h, SLOW_US * 2) == 0


def _count_above_bucket_by_bucket(h: HdrHistogram, threshold_us: float) -> int:
    """The definition, one bucket at a time: what count_above's bisection must agree with."""
    return sum(
        count
        for value, count in (
            (h.get_highest_equivalent_value(v.value_iterated_to), v.count_at_value_iterated_to)
            for v in h.get_recorded_iterator()
        )
        if value > threshold_us
    )


def test_count_above_agrees_with_the_bucket_by_bucket_count_on_a_real_log() -> None:
    (hlog,) = sorted(
        REPO.glob("results/reference/03-offheap-write-local-*/hbase1-onheap/client/single_put-*.hlog")
    )[:1]
    intervals = read_intervals([hlog], (0, float("inf")))[:10]
    assert intervals
    for i in intervals:
        for threshold in (0, 500, 1_000, 5_000, 20_000, 1e9):
            assert count_above(i.hist, threshold) == _count_above_bucket_by_bucket(i.hist, threshold), (
                threshold
            )


def test_tail_share_lift_and_chance_by_hand() -> None:
    intervals = _ten_intervals()
    # one 20 ms pause inside interval 3: with a lookback of T = 10 ms it touches interval 3 only
    spans = [Span(T0 + 320, T0 + 340)]
    s = shares(intervals, spans, threshold_us=10_000)
    assert s.tail_requests == 4
    assert s.tail_share == pytest.approx(2 / 4)  # interval 3's two slow gets of the four
    assert s.all_share == pytest.approx(100 / 1000)  # one interval of ten
    assert lift(s) == pytest.approx(5.0)


def test_the_lookback_reaches_a_pause_just_before_the_interval() -> None:
    intervals = _ten_intervals()
    # a pause that ended 5 ms before interval 7 began: a 10 ms tail get completed in 7 was waiting in it
    spans = [Span(T0 + 690, T0 + 695)]
    near = shares(intervals, spans, threshold_us=10_000)
    assert near.tail_share == pytest.approx(2 / 4)
    far = shares(intervals, [Span(T0 + 600, T0 + 601)], threshold_us=10_000)  # 99 ms earlier: too far
    assert far.tail_share == pytest.approx(0.0)


def test_pauses_everywhere_give_a_lift_of_one() -> None:
    """A stop in every interval: the tail is no likelier to touch one than any request (no evidence)."""
    intervals = _ten_intervals()
    spans = [Span(T0 + 100 * k + 50, T0 + 100 * k + 52) for k in range(10)]
    s = shares(intervals, spans, threshold_us=10_000)
    assert s.tail_share == pytest.approx(1.0) and s.all_share == pytest.approx(1.0)
    assert lift(s) == pytest.approx(1.0)


def test_no_stop_at_all_leaves_the_lift_out() -> None:
    s = shares(_ten_intervals(), [], threshold_us=10_000)
    assert s.tail_share == 0.0 and s.all_share == 0.0
    assert lift(s) is None  # 0 / 0: nothing to compare with chance


def test_stops_keep_pauses_and_safepoints_of_at_least_a_millisecond() -> None:
    gc = ServerGc(
        "rs1",
        "gc-regionserver.log",
        [_pause(100, 12.0), _pause(200, 0.4)],
        [_safepoint(500, 3.0), _safepoint(600, 0.05)],
    )
    found = stops([gc], (T0, T0 + 1000))
    assert [(s.start_ms - T0, round(s.end_ms - s.start_ms, 3)) for s in found] == [(100, 12.0), (500, 3.0)]


def test_covered_share_counts_overlapping_stops_once() -> None:
    spans = [Span(T0 + 100, T0 + 200), Span(T0 + 150, T0 + 250), Span(T0 + 900, T0 + 1100)]
    assert covered_share(spans, (T0, T0 + 1000)) == pytest.approx((150 + 100) / 1000)


def test_stall_spans_are_control_intervals_with_a_long_overrun() -> None:
    control = [_interval(k, {80: 99, 30_000: 1} if k == 7 else {80: 100}) for k in range(10)]
    assert stall_spans(control, threshold_us=10_000) == [Span(T0 + 700, T0 + 800)]  # 30 ms >= 0.5 x 10 ms


def _write_log(path: Path, intervals: list[Interval]) -> Path:
    """An interval log as pe writes it: StartTime and BaseTime, stamps relative to them, microseconds."""
    return write_interval_log(path, T0, [i.hist for i in intervals])


def test_overlap_values_from_logs(tmp_path: Path) -> None:
    """The whole measure from interval logs on disk: the client's, the server's pauses, the control's."""
    # 10,000 gets, 4 of them slow: the P99.9 (T) is a fast get's 0.5 ms, and the tail is the 4 slow gets
    client = _write_log(tmp_path / "get-localhost.hlog", _ten_intervals(fast=998))
    control_intervals = [_interval(k, {80: 99, 40_000: 1} if k == 7 else {80: 100}) for k in range(10)]
    control = _write_log(tmp_path / "hiccup-localhost.hlog", control_intervals)
    gc = ServerGc("rs1", "gc-regionserver.log", [_pause(330, 25.0)], [])
    values, tail = overlap_values([client], [gc], [control], (T0, T0 + 1000))
    assert tail == 4
    assert values["all_gc_share"] == pytest.approx(0.1)  # interval 3: 1,000 of the 10,000 gets
    assert values["tail_gc_share"] == pytest.approx(0.5)  # interval 3's two slow gets of the four
    assert values["tail_gc_lift"] == pytest.approx(5.0)
    assert values["pause_time_share"] == pytest.approx(25 / 1000)
    assert values["hiccup_max"] == pytest.approx(40.0, rel=0.01)
    assert values["hiccup_p999"] == pytest.approx(0.08, rel=0.01)  # 999 of the 1,000 sleeps overran 80 us
    assert values["hiccup_p999_over_latency_p999"] == pytest.approx(80 / FAST_US, rel=0.01)
    assert values["tail_stall_share"] == pytest.approx(0.5)  # interval 7's stall, interval 7's tail


def test_report_section_lists_each_variant_with_the_figures() -> None:
    g1 = Measurement("g1", "e", "complete", {"tail_gc_share": 0.9, "all_gc_share": 0.2, "tail_gc_lift": 4.5})
    g1.events["tail_gc_share"] = 40
    eps = Measurement("eps", "e", "complete", {"tail_gc_share": 0.0, "all_gc_share": 0.0, "hiccup_p999": 2.5})
    gone = Measurement("gone", "e", "failed", problem="variant failed")
    text = "\n".join(overlap_lines({"e": {"g1": g1, "eps": eps, "gone": gone}}))
    assert "| g1 | 40 | 90% | 20% | 4.5 |" in text
    assert "| eps | - | 0% | 0% | - | - | 2.5 |" in text
    assert "gone" not in text
    assert overlap_lines({"e": {"gone": gone}}) == []
