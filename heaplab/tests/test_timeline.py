"""heaplab.analysis.timeline: per-second latency merged over client hosts, the GC pauses beside it, the spike
share."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.analysis.gc_stats import ServerPause
from heaplab.analysis.timeline import Row, Timeline, latency_timeline, spike_gc_lift, spike_gc_share
from heaplab.report.figures import timeline_figure
from heaplab.report.report import write_report
from heaplab.runfiles.hlog import read_intervals
from heaplab.runfiles.rundir import load_run
from heaplab.tests.fabricate import Shape

T0 = 1_795_000_000_000.0


def _second_client_host(run_dir: Path, phase: str = "single_put") -> None:
    """A copy of localhost's summary and .hlog as host "other": the same requests a second time."""
    client = run_dir / "hbase1-onheap/client"
    shutil.copy(client / f"{phase}-localhost.hlog", client / f"{phase}-other.hlog")
    raw = json.loads((client / f"{phase}-localhost.json").read_text())
    raw["hlog"] = f"{phase}-other.hlog"
    (client / f"{phase}-other.json").write_text(json.dumps(raw))


def test_timeline_merges_client_hosts(make_pair: Callable[..., Path]) -> None:
    run_dir = make_pair(Shape(young_gcs=3, gc_pause_ms=40.0), None)
    one = latency_timeline(load_run(run_dir), "hbase1-onheap", "single_put")
    _second_client_host(run_dir)
    two = latency_timeline(load_run(run_dir), "hbase1-onheap", "single_put")
    assert one is not None and two is not None
    intervals = read_intervals(run_dir / "hbase1-onheap/client/single_put-localhost.hlog")
    assert [r.count for r in one.rows] == [i.count for i in intervals]
    assert [r.t_s for r in one.rows] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert [r.count for r in two.rows] == [2 * r.count for r in one.rows]
    for a, b in zip(one.rows, two.rows, strict=True):  # the same values twice: the same percentiles
        assert (a.p50_ms, a.p99_ms, a.p999_ms, a.max_ms) == (b.p50_ms, b.p99_ms, b.p999_ms, b.max_ms)
    young_in_window = [p for p in two.pauses if p.kind == "young" and two.start_epoch_ms <= p.start_epoch_ms]
    assert len(young_in_window) >= 3
    assert sum(d["gc_pause_ms"] for d in two.as_dicts()) > 0


def _row(t: float, p99_ms: float) -> Row:
    return Row(t, 100, 1.0, p99_ms, p99_ms, p99_ms)


def _pause(at_s: float, ms: float) -> ServerPause:
    return ServerPause("rs1", T0 + at_s * 1000, ms, "young", None, None)


def test_spike_share_and_lift_by_hand() -> None:
    tl = Timeline("v", "e", T0, T0 + 6000, p50_ms=1.0, p999_ms=20.0)
    # spikes: a second whose p99 is above the phase's p99.9 (20 ms): seconds 1, 2, 3, 4
    tl.rows = [_row(0, 5), _row(1, 25), _row(2, 30), _row(3, 50), _row(4, 21), _row(5, 3)]
    # a pause inside second 1, one that starts in second 2 and runs into second 3 (both overlap it)
    tl.pauses = [_pause(1.5, 10), _pause(2.99, 20)]
    assert [len(tl.pauses_in(r)) for r in tl.rows] == [0, 1, 1, 1, 0, 0]
    assert spike_gc_share(tl) == pytest.approx(3 / 4)
    # (3 + 0.5) / (4 + 1) over (0 + 0.5) / (2 + 1): spikes are 4.2x as likely to hold a pause
    assert spike_gc_lift(tl) == pytest.approx((3.5 / 5) / (0.5 / 3))


def test_pauses_everywhere_give_no_lift() -> None:
    """The control: pauses in every second (ZGC's) explain nothing, however high the share."""
    tl = Timeline("v", "e", T0, T0 + 4000, p50_ms=1.0, p999_ms=20.0)
    tl.rows = [_row(0, 25), _row(1, 3), _row(2, 30), _row(3, 4)]
    tl.pauses = [_pause(t + 0.5, 0.2) for t in range(4)]
    assert spike_gc_share(tl) == 1.0
    assert spike_gc_lift(tl) == pytest.approx(1.0)


def test_no_spike_no_share() -> None:
    tl = Timeline("v", "e", T0, T0 + 2000, p50_ms=2.0, p999_ms=20.0)
    tl.rows = [_row(0, 5), _row(1, 19)]
    tl.pauses = [_pause(0.5, 10)]
    assert spike_gc_share(tl) is None and spike_gc_lift(tl) is None


def test_report_has_gc_section_and_timeline_figure(fixture_run: Path) -> None:
    report = write_report(fixture_run)
    text = report.read_text()
    assert "## GC" in text
    assert "figures/timeline-single_put.png" in text
    assert (fixture_run / "figures/timeline-single_put.png").stat().st_size > 1000
    fig = timeline_figure(load_run(fixture_run), "single_put", [])
    assert fig.axes[0].texts  # "no latency timeline" instead of an empty plot
