"""hlog.decode reads an interval whatever range its values have, as the engine's IntervalLogReader does.

The fixture is YCSB's INSERT log of lab 02's g1-tuned load (5000 rows; one insert took 271 ms on a busy
machine): its second interval's header announces 32767 us while it holds a count at 34208 us, and hdrh's
decoder stopped the report with "Destination array overrun". The expected summary beside it was written by
the Java reader, and YcsbReportTest checks that the Java reader still reads the log so.
"""

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader, HistogramLogWriter

from heaplab.runfiles.hlog import read_intervals, read_intervals_hist, read_total, value_at_percentile
from heaplab.tests.conftest import REPO

RECORDED = REPO / "engine/ycsb/src/test/resources/recorded"
SLOW_LOAD = RECORDED / "g1-tuned-load.ycsb-INSERT.hdr"
PAUSE_US = 30_000_000  # a 30 s stall


def _java_summary() -> list[dict[str, int]]:
    lines = (RECORDED / "g1-tuned-load.ycsb-INSERT.intervals.csv").read_text().splitlines()
    rows = csv.DictReader(line for line in lines if not line.startswith("#"))
    return [{k: int(v) for k, v in row.items()} for row in rows]


def _buckets(h: HdrHistogram) -> tuple[int, int]:
    """(recorded buckets, sum of each one's highest value times its count), as the Java summary has them."""
    counts = np.ctypeslib.as_array(h.counts)
    filled = np.flatnonzero(counts).tolist()
    total = sum(int(counts[i]) * h.get_highest_equivalent_value(h.get_value_from_index(i)) for i in filled)
    return len(filled), total


def test_the_slow_load_decodes_as_the_java_reader_decodes_it() -> None:
    reader = HistogramLogReader(str(SLOW_LOAD), HdrHistogram(1, 3_600_000_000, 3))
    reader.get_next_interval_histogram()
    with pytest.raises(IndexError, match="overrun"):
        reader.get_next_interval_histogram()  # hdrh's own decode, sized from the header
    reader.close()

    intervals = read_intervals_hist(SLOW_LOAD)
    expected = _java_summary()
    assert len(intervals) == len(expected) == 5
    for h, java in zip(intervals, expected, strict=True):
        assert abs(h.get_start_time_stamp() - java["start_epoch_ms"]) < 1  # Java truncates to the ms
        assert abs(h.get_end_time_stamp() - java["end_epoch_ms"]) < 1
        assert h.get_total_count() == java["count"]
        assert (h.get_min_value() if h.get_total_count() else 0) == java["min_us"]
        assert h.get_max_value() == java["max_us"]
        assert _buckets(h) == (java["buckets"], java["bucket_sum_us"])
    assert sum(h.get_total_count() for h in intervals) == 5000, "the load inserted 5000 rows"
    total = read_total([SLOW_LOAD])
    assert (total.get_total_count(), total.get_max_value()) == (5000, 271_871)  # the 271 ms insert
    assert max(i.max_ms for i in read_intervals(SLOW_LOAD)) == pytest.approx(271.871)


def _pause_log(tmp_path: Path, announce_us: int | None = None) -> tuple[Path, list[HdrHistogram]]:
    """A log as heaplab's tests write them (hdrh's writer): an interval of small values in a small histogram,
    then one whose values reach a 30 s pause; ``announce_us`` makes that interval's header announce less
    (the defect of the YCSB log above)."""
    first, second = HdrHistogram(1, 10_000, 3), HdrHistogram(1, 3_600_000_000, 3)
    for v in range(100, 1100):
        first.record_value(v)
    for v in range(100, 1099):
        second.record_value(v)
    second.record_value(PAUSE_US)
    if announce_us is not None:
        second.encoder.payload.payload.highest_trackable_value = announce_us
    base = 1_795_921_115_628
    buf = io.StringIO()
    w = HistogramLogWriter(buf)
    buf.write(f"#[StartTime: {base / 1000:.3f} (seconds since epoch), x]\n")  # hdrh's output_start_time fails
    w.output_base_time(base)
    w.base_time = base
    w.output_legend()
    for k, h in enumerate((first, second)):
        h.set_start_time_stamp(base + 50 + 1000 * k)
        h.set_end_time_stamp(base + 1050 + 1000 * k)
        w.output_interval_histogram(h)
    path = tmp_path / "pause.hlog"
    path.write_text(buf.getvalue())
    return path, [first, second]


@pytest.mark.parametrize("announce_us", [None, 32_767])
def test_a_30s_pause_after_small_values_is_its_intervals_max(tmp_path: Path, announce_us: int | None) -> None:
    path, written = _pause_log(tmp_path, announce_us)
    if announce_us is not None:  # the case can fail: hdrh's decoder refuses it
        reader = HistogramLogReader(str(path), HdrHistogram(1, 3_600_000_000, 3))
        reader.get_next_interval_histogram()
        with pytest.raises(IndexError):
            reader.get_next_interval_histogram()
        reader.close()
    decoded = read_intervals_hist(path)
    for h, original in zip(decoded, written, strict=True):
        assert (h.get_total_count(), h.get_min_value(), h.get_max_value()) == (
            original.get_total_count(),
            original.get_min_value(),
            original.get_max_value(),
        )
        for pct in (50, 99, 99.9, 99.95, 100):
            assert value_at_percentile(h, pct) == value_at_percentile(original, pct), pct
    first, paused = read_intervals(path)
    assert first.max_ms == pytest.approx(1.099)
    assert paused.max_ms == pytest.approx(PAUSE_US / 1000, rel=1e-3), "the pause is its interval's max"
    assert paused.p50_ms == pytest.approx(0.599) and paused.p999_ms == pytest.approx(1.098)
    assert paused.start_epoch_ms == first.end_epoch_ms == 1_795_921_116_678
    total = read_total([path])
    assert total.get_total_count() == 2000 and value_at_percentile(total, 100) == paused.max_ms * 1000
