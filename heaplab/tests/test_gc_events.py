"""Young-GC statistics recomputed by hand from the raw gc-events.jsonl."""

import json
from pathlib import Path

import pytest

from heaplab.analysis.metrics import measure
from heaplab.runfiles.gc_events import load_gc_events, young_gc_stats
from heaplab.runfiles.rundir import load_run

VARIANT = "hbase1-onheap"


def _raw(run: Path) -> tuple[list[dict], float, float]:
    events = [
        json.loads(x) for x in (run / VARIANT / "server/localhost/gc-events.jsonl").read_text().splitlines()
    ]
    summary = json.loads((run / VARIANT / "client/single_put-localhost.json").read_text())
    return events, summary["start_epoch_ms"], summary["end_epoch_ms"]


def test_rate_is_young_events_in_window_over_window_length(fixture_run: Path) -> None:
    events, start, end = _raw(fixture_run)
    inside = [e for e in events if start <= e["start_epoch_ms"] <= end and e["young"]]
    # (Exclusion by window and by the young flag is pinned down by test_window_bounds_and_young_filter.)
    m = measure(load_run(fixture_run), VARIANT, "single_put")
    assert m.values["young_gc_rate"] == pytest.approx(len(inside) / ((end - start) / 1000))
    assert m.values["young_gc_avg_pause"] == pytest.approx(
        sum(e["duration_ms"] for e in inside) / len(inside)
    )


def test_window_bounds_and_young_filter(tmp_path: Path) -> None:
    lines = [
        {"start_epoch_ms": 999, "duration_ms": 100, "young": True},  # before
        {"start_epoch_ms": 1000, "duration_ms": 10, "young": True},  # on the start: counts
        {"start_epoch_ms": 1500, "duration_ms": 500, "young": False},  # not young
        {"start_epoch_ms": 3000, "duration_ms": 30, "young": True},  # on the end: counts
        {"start_epoch_ms": 3001, "duration_ms": 100, "young": True},  # after
    ]
    path = tmp_path / "gc-events.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    stats = young_gc_stats(load_gc_events(path, "h"), 1000, 3000, servers=1)
    assert (stats.count, stats.avg_pause_ms, stats.rate_per_s) == (2, 20.0, 1.0)
    assert young_gc_stats(load_gc_events(path, "h"), 1000, 3000, servers=2).rate_per_s == 0.5
    assert young_gc_stats([], 1000, 3000, servers=1).avg_pause_ms is None


def test_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "gc-events.jsonl"
    path.write_text('{"start_epoch_ms": 1, "duration_ms": 2}\n{"oops": 1}\n')
    with pytest.raises(ValueError, match=r"gc-events.jsonl:2"):
        load_gc_events(path, "h")
