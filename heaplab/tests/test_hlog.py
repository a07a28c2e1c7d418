"""The .hlog decoder against the client summary written alongside it (same run, same histograms)."""

import io
import json
import random
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader, HistogramLogWriter

from heaplab.runfiles.client_summary import load_phase_summaries
from heaplab.runfiles.hlog import add_into, mean_value, read_intervals, read_total, value_at_percentile
from heaplab.tests.conftest import reference_series

CLIENT = "hbase1-onheap/client"
# a YCSB load log of a real run: its intervals are smaller histograms than the total (fewer buckets)
LAB02_LOAD = reference_series("02-g1-tuning")[0] / "g1-default/client/load-localhost.hlog"


def _hdr_close(a: float, b: float) -> bool:
    """Equal within HdrHistogram's 3 significant digits (plus one unit)."""
    return abs(a - b) <= max(1.0, 0.002 * max(abs(a), abs(b)))


def test_merged_intervals_agree_with_summary(fixture_run: Path) -> None:
    (summary,) = load_phase_summaries(fixture_run / CLIENT, "single_put")
    assert summary.hlog is not None
    total = read_total([summary.hlog])
    assert total.get_total_count() == summary.operations
    for key, pct in (("p50", 50), ("p95", 95), ("p99", 99), ("p999", 99.9)):
        assert _hdr_close(total.get_value_at_percentile(pct), summary.latency_us[key]), key
    assert _hdr_close(total.get_max_value(), summary.latency_us["max"])


def test_intervals_lie_in_the_measured_window(fixture_run: Path) -> None:
    (summary,) = load_phase_summaries(fixture_run / CLIENT, "single_put")
    intervals = read_intervals(summary.hlog)
    assert intervals, "no intervals decoded"
    assert sum(i.count for i in intervals) == summary.operations
    assert intervals[0].start_epoch_ms >= summary.start_epoch_ms - 1
    assert intervals[-1].end_epoch_ms <= summary.end_epoch_ms + 1000
    for i in intervals:
        assert i.p50_ms <= i.p99_ms <= i.p999_ms <= i.max_ms


def test_round_trip_with_relative_timestamps(tmp_path: Path) -> None:
    """A log written like Java's HistogramLogWriter (BaseTime + relative stamps) decodes to absolute times."""
    base = 1_700_000_000_000
    buf = io.StringIO()
    w = HistogramLogWriter(buf)
    buf.write(f"#[StartTime: {base / 1000:.3f} (seconds since epoch), x]\n")
    w.output_base_time(base)
    w.base_time = base
    w.output_legend()
    for k, values in enumerate(([1000, 2000, 3000], [50_000])):
        h = HdrHistogram(1, 3_600_000_000, 3)
        for v in values:
            h.record_value(v)
        h.set_start_time_stamp(base + k * 1000)
        h.set_end_time_stamp(base + (k + 1) * 1000)
        w.output_interval_histogram(h, max_value_unit_ratio=1000.0)
    path = tmp_path / "x.hlog"
    path.write_text(buf.getvalue())
    a, b = read_intervals(path)
    assert (a.start_epoch_ms, b.start_epoch_ms) == (base, base + 1000)
    assert a.count == 3 and b.count == 1
    assert _hdr_close(a.max_ms * 1000, 3000) and _hdr_close(b.p99_ms * 1000, 50_000)


def test_summary_loader_reads_contract_fields(fixture_run: Path) -> None:
    path = fixture_run / CLIENT / "single_put-localhost.json"
    raw = json.loads(path.read_text())
    (s,) = load_phase_summaries(path.parent, "single_put")
    assert s.host == "localhost"
    assert s.throughput == raw["throughput"]
    assert s.latency_us["p999"] == raw["latency_us"]["p999"]
    assert (s.start_epoch_ms, s.end_epoch_ms) == (raw["start_epoch_ms"], raw["end_epoch_ms"])
    assert s.hlog == path.parent / raw["hlog"] and s.hlog.is_file()


def test_remote_hlog_path_resolves_in_the_client_dir(fixture_run: Path) -> None:
    path = fixture_run / CLIENT / "single_put-localhost.json"
    raw = json.loads(path.read_text())
    raw["hlog"] = "/home/student/heaplab/work/client/out/" + raw["hlog"]
    path.write_text(json.dumps(raw))
    (s,) = load_phase_summaries(path.parent, "single_put")
    assert s.hlog == path.parent / "single_put-localhost.hlog"


def test_the_fast_mean_is_the_packages_mean_to_the_last_bit() -> None:
    """mean_value must give exactly what HdrHistogram.get_mean_value gives (claims.json recorded means are
    recomputed with it), on values in the first bucket, across many buckets and near the top of the range."""
    rng = random.Random(7)
    empty = HdrHistogram(1, 3_600_000_000, 3)
    assert mean_value(empty) == empty.get_mean_value() == 0.0
    for values in (
        [1, 2, 3, 2047],
        [rng.randint(1, 5_000) for _ in range(2_000)],
        [int(rng.lognormvariate(7, 2)) + 1 for _ in range(20_000)],
        [3_500_000_000, 1, 40_000_000],
    ):
        h = HdrHistogram(1, 3_600_000_000, 3)
        for v in values:
            h.record_value(min(v, 3_600_000_000))
        assert mean_value(h) == h.get_mean_value()
    # and it is a mean of the recorded values, not of something else: one value moved moves it
    h = HdrHistogram(1, 3_600_000_000, 3)
    h.record_value(1000)
    before = mean_value(h)
    h.record_value(900_000)
    assert mean_value(h) > before


def test_adding_decoded_intervals_gives_what_the_package_gives() -> None:
    """add_into must leave the same histogram as HdrHistogram.add: every decoded interval of a real log
    written by the engine's YCSB client (each sized to its own largest value, so not the shape of the
    total) added both ways."""
    hlog = LAB02_LOAD
    ours, theirs = HdrHistogram(1, 3_600_000_000, 3), HdrHistogram(1, 3_600_000_000, 3)
    reader = HistogramLogReader(str(hlog), HdrHistogram(1, 3_600_000_000, 3))
    shapes = set()
    while (h := reader.get_next_interval_histogram()) is not None:
        shapes.add(h.bucket_count)
        add_into(ours, h)
        theirs.add(h)
    reader.input_file.close()
    assert shapes and ours.bucket_count not in shapes, "the intervals must differ in shape from the total"
    assert list(ours.counts) == list(theirs.counts)
    assert (ours.total_count, ours.min_value, ours.max_value) == (
        theirs.total_count,
        theirs.min_value,
        theirs.max_value,
    )
    assert ours.get_total_count() == read_total([hlog]).get_total_count() > 0
    # a value too large for the total is refused, as the package's add refuses it
    small = HdrHistogram(1, 1000, 3)
    with pytest.raises(IndexError):
        add_into(small, theirs)


def test_the_fast_percentile_is_the_packages_percentile() -> None:
    """value_at_percentile must give exactly HdrHistogram.get_value_at_percentile, at 0 (the lowest
    bucket value), the usual percentiles and 100, on random histograms and a decoded interval."""
    rng = random.Random(11)
    histograms = []
    for values in (
        [5],
        [1, 2, 3, 2047, 2048, 2049],
        [int(rng.lognormvariate(8, 1.5)) + 1 for _ in range(5_000)],
    ):
        h = HdrHistogram(1, 3_600_000_000, 3)
        for v in values:
            h.record_value(v)
        histograms.append(h)
    histograms.append(HdrHistogram(1, 3_600_000_000, 3))  # empty: 0
    reader = HistogramLogReader(str(LAB02_LOAD), HdrHistogram(1, 3_600_000_000, 3))
    histograms.append(reader.get_next_interval_histogram())
    reader.input_file.close()
    for h in histograms:
        for pct in (0, 1, 50, 90, 99, 99.9, 99.99, 100):
            assert value_at_percentile(h, pct) == h.get_value_at_percentile(pct), (pct, h.get_total_count())
