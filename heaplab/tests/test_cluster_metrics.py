"""Cluster mode's per-server `admin metrics` reports: which files a phase has, and the cluster-wide sums
the memory and read metrics are computed from (pooled counters, not means of the servers' ratios)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from heaplab.analysis.cluster_metrics import load_phase_report, merge_raw, report_paths
from heaplab.analysis.memory import MB, memory_values
from heaplab.analysis.read_metrics import read_values
from heaplab.tests.fabricate import admin_metrics, read_groups


def _write(client: Path, name: str, report: dict[str, Any]) -> Path:
    path = client / f"{name}.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_standalone_phase_has_its_one_report(tmp_path: Path) -> None:
    _write(tmp_path, "after-localhost", admin_metrics(10 * MB))
    _write(tmp_path, "after_all-localhost", admin_metrics(10 * MB))  # another phase sharing the prefix
    assert [p.name for p in report_paths(tmp_path, "after")] == ["after-localhost.json"]
    assert report_paths(tmp_path, "missing") == []


def test_cluster_phase_has_one_report_per_server(tmp_path: Path) -> None:
    for server in ("n3", "n1", "n2"):
        _write(tmp_path, f"after-ctl@{server}", admin_metrics(10 * MB))
    assert [p.name for p in report_paths(tmp_path, "after")] == [
        "after-ctl@n1.json",
        "after-ctl@n2.json",
        "after-ctl@n3.json",
    ]


def test_read_metrics_pool_the_servers_counters(tmp_path: Path) -> None:
    # n1 served 1000 gets at a 90% hit ratio, n2 3000 at 50%: pooled 60%, not the mean of 70%.
    before = {s: read_groups(0) for s in ("n1", "n2")}
    after = {
        "n1": read_groups(1000, data_hits=900, data_misses=100, blocks_read=100, cpu_ms=100),
        "n2": read_groups(3000, data_hits=1500, data_misses=1500, blocks_read=1500, cpu_ms=300),
    }
    for s in ("n1", "n2"):
        _write(tmp_path, f"base-ctl@{s}", admin_metrics(10 * MB, gc_requested=False, reads=before[s]))
        _write(tmp_path, f"after-ctl@{s}", admin_metrics(11 * MB, gc_requested=False, reads=after[s]))
    a = load_phase_report(report_paths(tmp_path, "after"))
    b = load_phase_report(report_paths(tmp_path, "base"))
    v = read_values(a, b)
    assert v["gets"] == 4000
    assert v["data_block_hit_ratio"] == pytest.approx(2400 / 4000)
    assert v["disk_reads_per_get"] == pytest.approx(1600 / 4000)
    assert v["cpu_us_per_get"] == pytest.approx(400 * 1000 / 4000)
    assert a.path.name == "after-ctl@*.json"


def test_memory_metrics_are_the_clusters_totals(tmp_path: Path) -> None:
    for s, cells in (("n1", 1000), ("n2", 3000)):
        _write(tmp_path, f"base-ctl@{s}", admin_metrics(10 * MB))
        _write(
            tmp_path,
            f"after-ctl@{s}",
            admin_metrics(10 * MB + cells * 100, cells=cells, data_bytes=cells * 50),
        )
    v = memory_values(
        load_phase_report(report_paths(tmp_path, "after")), load_phase_report(report_paths(tmp_path, "base"))
    )
    assert v["cells"] == 4000
    assert v["heap_retained"] == pytest.approx(4000 * 100 / MB)
    assert v["heap_bytes_per_cell"] == pytest.approx(100)


def test_merge_sums_numbers_keeps_the_rest_and_merges_caches_by_name() -> None:
    a = {"format": 1, "tool": "admin", "gc_requested": True, "n": 2, "caches": [{"name": "L1", "hits": 1}]}
    b = {
        "format": 1,
        "tool": "admin",
        "gc_requested": True,
        "n": 3,
        "caches": [{"name": "L2", "hits": 5}, {"name": "L1", "hits": 4}],
        "only_b": 7,
    }
    assert merge_raw(a, b) == {
        "format": 1,
        "tool": "admin",
        "gc_requested": True,
        "n": 5,
        "caches": [{"name": "L1", "hits": 5}, {"name": "L2", "hits": 5}],
        "only_b": 7,
    }
