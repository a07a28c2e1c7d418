"""heaplab.analysis.gc_stats and the GC metrics of heaplab.analysis.metrics, on hand-computable pauses and
real log excerpts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from heaplab.analysis.gc_stats import (
    ServerGc,
    ServerPause,
    gc_values,
    load_server_gc,
    pause_stats,
    report_lines,
    young_timeline,
)
from heaplab.analysis.metrics import measure
from heaplab.lab.catalogue import UNITS
from heaplab.runfiles.gc_records import Safepoint
from heaplab.runfiles.rundir import load_run
from heaplab.stats import percentile

DATA = Path(__file__).parent / "data" / "gc"
T0 = 1_795_000_000_000.0


def _p(start_s: float, ms: float, kind: str = "young", host: str = "a", uptime=None, eden=None):
    return ServerPause(host, T0 + start_s * 1000, ms, kind, uptime, eden)


def test_pause_stats_by_hand():
    pauses = [_p(0, 10), _p(1, 20), _p(2, 30, "full"), _p(3, 40)]
    s = pause_stats(pauses, window_s=7200, servers=2)
    assert s["gc_count"] == 4
    assert s["full_gc_count"] == 1
    assert s["gc_pause_avg"] == 25
    assert (s["gc_pause_min"], s["gc_pause_max"]) == (10, 40)
    assert s["gc_pause_stddev"] == pytest.approx(125**0.5)  # population: mean of (15^2, 5^2, 5^2, 15^2)
    assert s["gc_pause_p99"] == 40  # nearest rank: ceil(0.99 x 4) = 4th
    assert s["gc_pause_total"] == 50  # 100 ms over 2 servers
    assert s["gc_count_per_hour"] == 1  # 4 pauses / 2 servers / 2 hours


def test_no_pause_gives_counts_but_no_average():
    s = pause_stats([], window_s=10)
    assert s == {"gc_count": 0, "full_gc_count": 0, "gc_pause_total": 0, "gc_count_per_hour": 0}


def test_nearest_rank_percentile():
    values = [float(v) for v in range(1, 201)]  # 1..200 ms
    assert percentile(values, 99) == 198
    assert percentile(values, 50) == 100
    assert percentile([5.0], 99) == 5


def test_gc_values_window_safepoints_initial_peak_and_eden_rate():
    gib = 1024**3
    a = ServerGc(
        "a",
        "gc-regionserver.log",
        [
            _p(-5, 300, uptime=2.0),  # before the window (the load phase): not even the initial peak
            _p(1, 100, eden=gib, uptime=70.0),  # 1 GiB in 100 ms: 10 GB/s
            _p(2, 50, "remark", uptime=71.0),
            _p(20, 999, uptime=90.0),  # after the window
        ],
        [
            Safepoint("G1CollectForAllocation", T0 + 1100, 70.1, 0.5, 100.0),
            Safepoint("Cleanup", T0 + 30_000, 99.0, 1.0, 1.0),  # after the window
        ],
    )
    b = ServerGc("b", "gc-regionserver.log", [_p(3, 200, eden=gib // 2, host="b", uptime=80.0)], [])
    v = gc_values([a, b], T0, T0 + 10_000, 2)
    assert v["gc_count"] == 3
    assert v["gc_pause_total"] == 175  # (100 + 50 + 200) / 2 servers
    assert v["gc_count_per_hour"] == pytest.approx(3 / 2 / 10 * 3600)
    assert v["safepoint_total"] == pytest.approx(100.5 / 2)
    assert v["gc_pause_initial_peak"] == 200  # b's, the longest of the window's first minute
    assert v["eden_evacuation_rate"] == pytest.approx((10 + 2.5) / 2)  # b: 0.5 GiB in 200 ms
    assert v["gc_remark_avg"] == 50  # a's one remark in the window
    assert v["gc_remark_total"] == 25  # 50 ms over 2 servers


def test_remark_metrics_need_the_log_and_count_only_remarks():
    """ParallelRefProcEnabled's effect is on remark pauses (G1 GC tuning for 100% YCSB reads): young,
    mixed and cleanup pauses are left out; gc-events.jsonl has no remarks, so no value at all."""
    pauses = [_p(1, 10, "remark"), _p(2, 30, "remark"), _p(3, 500), _p(4, 70, "cleanup"), _p(5, 90, "mixed")]
    logged = gc_values([ServerGc("a", "gc-regionserver.log", pauses, None)], T0, T0 + 10_000, 1)
    assert (logged["gc_remark_avg"], logged["gc_remark_total"]) == (20, 40)
    no_remark = gc_values([ServerGc("a", "gc-regionserver.log", pauses[2:], None)], T0, T0 + 10_000, 1)
    assert no_remark["gc_remark_total"] == 0 and "gc_remark_avg" not in no_remark
    events = gc_values([ServerGc("a", "gc-events.jsonl", pauses[2:], None)], T0, T0 + 10_000, 1)
    assert "gc_remark_total" not in events and "gc_remark_avg" not in events


def test_initial_peak_is_the_first_minute_of_the_measured_window():
    """G1 GC tuning for 100% YCSB reads: "even the highest initial peak fell from 3.792 s to 1.684 s",
    the start of the measured read run, not the server's start-up or the load before it."""
    pauses = [
        _p(-30, 3000, uptime=5.0),  # start-up / load phase, before the window
        _p(0, 40, uptime=100.0),  # the window's first pause
        _p(59.9, 120, uptime=160.0),  # still in the first minute
        _p(60.1, 900, uptime=160.2),  # after the first minute: in the window, not the initial peak
    ]
    servers = [ServerGc("a", "gc-regionserver.log", pauses, None)]
    v = gc_values(servers, T0, T0 + 600_000, 1)
    assert v["gc_pause_initial_peak"] == 120
    assert v["gc_pause_max"] == 900
    short = gc_values(servers, T0, T0 + 30_000, 1)  # a window shorter than a minute: the whole window
    assert short["gc_pause_initial_peak"] == 40
    empty = gc_values(servers, T0 + 61_000, T0 + 62_000, 1)
    assert "gc_pause_initial_peak" not in empty


def test_real_g1_log_feeds_eden_rate(tmp_path):
    server = tmp_path / "localhost"
    server.mkdir()
    shutil.copy(DATA / "g1-jdk17.log", server / "gc-regionserver.log")
    gc = load_server_gc(server, "localhost")
    assert gc is not None and gc.source == "gc-regionserver.log"
    first = gc.pauses[0]
    assert first.eden_evacuated_bytes == 25 * 1024**2
    v = gc_values([gc], first.start_epoch_ms, first.start_epoch_ms + 10, 1)  # GC(0) and its safepoint
    assert v["eden_evacuation_rate"] == pytest.approx(25 / 1024 / 0.004107)
    assert v["safepoint_total"] == pytest.approx(3.972082 + 4.189524)


def test_fixture_run_falls_back_to_gc_events(fixture_run):
    """Without the unified log, pauses come from gc-events.jsonl and there are no safepoints."""
    (fixture_run / "hbase1-onheap/server/localhost/gc-regionserver.log").unlink(missing_ok=True)
    run = load_run(fixture_run)
    m = measure(run, "hbase1-onheap", "single_put")
    assert m.problem is None
    assert m.window_ms is not None
    start, end = m.window_ms
    events = [
        json.loads(line)
        for line in (fixture_run / "hbase1-onheap/server/localhost/gc-events.jsonl").read_text().splitlines()
    ]
    inside = [e for e in events if start <= e["start_epoch_ms"] <= end]
    assert m.values["gc_count"] == len(inside)
    assert m.values["gc_pause_max"] == max(e["duration_ms"] for e in inside)
    assert "safepoint_total" not in m.values
    assert "eden_evacuation_rate" not in m.values
    names = ("gc_pause_avg", "gc_pause_p99", "gc_count_per_hour", "latency_p50")  # no spike second in 1.3 s
    for name in names:
        assert name in m.values and name in UNITS
    rows = young_timeline(run, "hbase1-onheap", "single_put")
    assert len(rows) == sum(1 for e in inside if e["young"])
    assert all(0 <= r["t_s"] <= (end - start) / 1000 for r in rows)


def test_cms_log_in_a_run_gives_failures_and_the_report_column(fixture_run):
    """A variant whose server ran CMS (the JDK 11 fixture log): the measured window over the whole log
    counts its concurrent-mode failures, and report.md's GC table shows them and the pauses by kind."""
    server = fixture_run / "hbase1-onheap/server/localhost"
    shutil.copy(DATA / "cms-jdk11.log", server / "gc-regionserver.log")
    gc = load_server_gc(server, "localhost")
    assert gc is not None and gc.collector == "Concurrent Mark Sweep"
    summary_path = fixture_run / "hbase1-onheap/client/single_put-localhost.json"
    summary = json.loads(summary_path.read_text())
    summary["start_epoch_ms"] = int(gc.pauses[0].start_epoch_ms) - 1
    summary["end_epoch_ms"] = int(gc.pauses[-1].end_epoch_ms) + 1
    summary_path.write_text(json.dumps(summary))
    run = load_run(fixture_run)
    m = measure(run, "hbase1-onheap", "single_put")
    assert m.problem is None
    assert m.values["cms_concurrent_mode_failures"] == 3
    assert m.values["full_gc_count"] == 5
    assert m.values["gc_count"] == 23
    assert UNITS["cms_concurrent_mode_failures"] == "failures"
    text = "\n".join(report_lines(run, {"single_put": {"hbase1-onheap": m}}))
    assert "| concurrent-mode failures |" in text
    row = next(line for line in text.splitlines() if line.startswith("| hbase1-onheap"))
    assert "| young 13, full 5, initial-mark 4, remark 1 |" in row  # in the order of gc_log.KINDS
    assert "| 5 | 3 |" in row  # full GCs, then concurrent-mode failures


def test_report_without_cms_has_no_failure_column(fixture_run):
    run = load_run(fixture_run)
    m = measure(run, "hbase1-onheap", "single_put")
    assert "cms_concurrent_mode_failures" not in m.values
    text = "\n".join(report_lines(run, {"single_put": {"hbase1-onheap": m}}))
    assert "concurrent-mode failures" not in text
    assert "| by kind |" in text
