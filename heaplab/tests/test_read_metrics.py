"""Read-path metrics from `admin metrics` counter deltas, their one-line errors, and background phases in
the spec (validation and what the playbook receives)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from heaplab.analysis.memory import MB, MetricsFileError, load_admin_metrics
from heaplab.analysis.metrics import measure
from heaplab.analysis.read_metrics import frozen, read_values, reads_asked
from heaplab.lab.schema import SpecError
from heaplab.lab.spec import parse_spec
from heaplab.report.report import _frozen_lines
from heaplab.run.variant_run import ansible_vars
from heaplab.runfiles.client_summary import ClientSummary, OpSummary
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import admin_metrics, read_groups


def _load(tmp_path: Path, name: str, report: dict[str, Any]):
    path = tmp_path / f"{name}-localhost.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return load_admin_metrics(path)


def _pair(tmp_path: Path, before: dict[str, Any], after: dict[str, Any]):
    b = _load(tmp_path, "before", admin_metrics(40 * MB, gc_requested=False, reads=before))
    a = _load(tmp_path, "after", admin_metrics(41 * MB, gc_requested=False, reads=after))
    return a, b


def test_deltas_per_get(tmp_path: Path) -> None:
    """Only the growth between the reports counts: the warm-up's gets and misses before it do not."""
    before = read_groups(1000, data_hits=100, data_misses=900, blocks_read=900, cpu_ms=500, qc_misses=1000)
    after = read_groups(
        5000, data_hits=2500, data_misses=2500, blocks_read=2000, cpu_ms=900, qc_hits=3000, qc_misses=2000
    )
    v = read_values(*_pair(tmp_path, before, after))
    assert v["gets"] == 4000
    assert v["data_block_hit_ratio"] == pytest.approx(2400 / 4000)
    assert v["disk_reads_per_get"] == pytest.approx(1100 / 4000)
    assert v["cpu_us_per_get"] == pytest.approx(400 * 1000 / 4000)
    assert v["query_cache_hit_ratio"] == pytest.approx(3000 / 4000)


def test_store_file_size_is_the_reports_own(tmp_path: Path) -> None:
    """The store files' bytes on disk after the read, when the engine reports them (older runs do not)."""
    before, after = read_groups(0), read_groups(100)
    assert "store_file_mb" not in read_values(*_pair(tmp_path, before, after))
    before["store_files"]["size_bytes"] = 1_000_000
    after["store_files"]["size_bytes"] = 7_500_000
    assert read_values(*_pair(tmp_path, before, after))["store_file_mb"] == pytest.approx(7.5)


def test_data_hits_summed_over_l1_and_l2(tmp_path: Path) -> None:
    before = read_groups(0, caches=("lru", "bucket"))
    after = read_groups(100, data_hits=40, data_misses=60, caches=("lru", "bucket"))
    after["block_cache"]["caches"][0]["by_type"]["data"] = {"hits": 10, "misses": 0, "hit_ratio": 1}
    v = read_values(*_pair(tmp_path, before, after))
    assert v["data_block_hit_ratio"] == pytest.approx(50 / 110)


def test_no_lookups_no_ratio_and_no_group_no_metric(tmp_path: Path) -> None:
    """An engine without the read groups leaves the metrics out; a claim on them is inconclusive."""
    v = read_values(*_pair(tmp_path, {}, {}))
    assert v == {}
    same = read_groups(10, data_hits=5, data_misses=5)
    v = read_values(*_pair(tmp_path, same, same))
    assert "data_block_hit_ratio" not in v and "query_cache_hit_ratio" not in v
    assert v["gets"] == 0 and "disk_reads_per_get" not in v and "cpu_us_per_get" not in v


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        (lambda r: r["reads"].pop("gets"), "after-localhost.json: missing reads.gets"),
        (lambda r: r["process"].update(cpu_ms="12"), "process.cpu_ms is not a number: '12'"),
        (
            lambda r: r["block_cache"]["caches"][0]["by_type"].pop("data"),
            "missing block_cache.caches[0].by_type.data.hits",
        ),
        (lambda r: r["block_cache"].update(caches={}), "block_cache.caches is not a list"),
    ],
)
def test_a_broken_group_is_a_one_line_error(tmp_path: Path, break_it, message: str) -> None:
    after = read_groups(10)
    break_it(after)
    with pytest.raises(MetricsFileError) as e:
        read_values(*_pair(tmp_path, read_groups(0), after))
    assert message in str(e.value) and "\n" not in str(e.value)


def bg_spec() -> dict[str, Any]:
    return {
        "lab": "99-test",
        "reproduces": [{"doc": "000", "experiment": "mixed_read_write"}],
        "variants": {"a": {"profile": "hbase1-onheap"}},
        "scales": {"ci": {"threads": 2, "rows": 10}},
        "phases": [
            {"name": "create", "tool": "admin", "args": "create T"},
            {
                "name": "writer",
                "tool": "pe",
                "args": "--table=W randomWrite 1",
                "background": True,
                "until": "read",
            },
            {"name": "before", "tool": "admin", "args": "metrics"},
            {
                "name": "read",
                "tool": "pe",
                "args": "--rows={rows} randomRead {threads}",
                "measure": "mixed_read_write",
            },
            {
                "name": "after",
                "tool": "admin",
                "args": "metrics",
                "measure": "mixed_read_write",
                "baseline": "before",
            },
        ],
    }


def test_background_phase_reaches_the_playbook() -> None:
    spec = parse_spec(bg_spec())
    phases = ansible_vars(spec, spec.variants["a"], spec.params("ci"), Path("/a.tar.gz"), Path("/r"))[
        "heaplab_phases"
    ]
    writer = next(p for p in phases if p["name"] == "writer")
    assert writer == {
        "name": "writer",
        "tool": "pe",
        "args": "--table=W randomWrite 1",
        "record": False,
        "background": True,
        "until": "read",
    }
    assert all(set(p) == {"name", "tool", "args", "record"} for p in phases if p["name"] != "writer")
    assert not spec.memory_phase("mixed_read_write").measures_memory


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda p: p[1].update(until="create"),
            "until 'create' is not a later phase; valid: before, read, after",
        ),
        (lambda p: p[1].update(background="yes"), "background must be true or false"),
        (
            lambda p: p[0].update(background=True),
            "only a pe, ycsb or hiccup phase can run in the background, not admin",
        ),
        (lambda p: p[1].update(measure="mixed_read_write"), "a background phase cannot measure"),
        (lambda p: p[3].update(until="after"), "until is only for a phase with background: true"),
        (lambda p: p[3].update(wait=True), "unknown key(s) wait; valid: name, tool, args, measure"),
        (lambda p: p[2].update(name="create"), "a phase of that name comes earlier"),
    ],
)
def test_background_phase_errors_are_one_line(change, message: str) -> None:
    raw = copy.deepcopy(bg_spec())
    change(raw["phases"])
    with pytest.raises(SpecError) as e:
        parse_spec(raw)
    assert message in str(e.value) and "\n" not in str(e.value)


def _summary(command: str, rows: int, tool: str = "pe", reads: int | None = None) -> ClientSummary:
    ops = {"READ": OpSummary(reads, {})} if reads is not None else {}
    return ClientSummary(
        Path("read-localhost.json"),
        "localhost",
        "read",
        command,
        1,
        rows,
        rows,
        1000.0,
        1.0,
        {},
        0.0,
        1.0,
        None,
        tool=tool,
        ops=ops,
    )


def test_reads_asked_counts_gets_not_writes_or_scans() -> None:
    assert reads_asked([_summary("randomRead", 300), _summary("sequentialRead", 200, tool="hbase-pe")]) == 500
    assert reads_asked([_summary("sequentialWrite", 300), _summary("scan", 300)]) == 0
    assert reads_asked([_summary("run", 900, tool="ycsb", reads=450)]) == 450


def test_counters_that_did_not_move_over_reads_are_frozen(tmp_path: Path) -> None:
    """Apache HBase's JMX cache repeats the previous report: no gets counted while the client read."""
    same = read_groups(3615, data_hits=3368, data_misses=240, cpu_ms=14670)
    later = read_groups(3615, data_hits=3368, data_misses=240, cpu_ms=19630)
    after, before = _pair(tmp_path, same, later)
    why = frozen(after, before, 14400)
    assert why is not None and "14,400 reads" in why and "before-localhost.json" in why
    assert frozen(after, before, 0) is None  # a write or an idle window: nothing to count
    moved = _pair(tmp_path, same, read_groups(18017, data_hits=17768, data_misses=240))
    assert frozen(*moved, 14400) is None


def test_a_frozen_read_in_the_committed_series_leaves_its_counters_out() -> None:
    """Lab 06's first v0.3 run: HBase 2.6.4's reports around the 1000-byte DIFF read are the same, so its
    gets, hit ratio and CPU per get are absent with the reason; the next run's are measured."""
    runs = sorted((REPO / "results/reference").glob("06-row-index-local-20261205T*"))
    if len(runs) < 2:
        pytest.skip("lab 06's v0.3 series is not in results/reference")
    first = measure(load_run(runs[0]), "hbase-diff-1000", "row_index_encoding_1000")
    assert first.problem is None and "throughput" in first.values
    for metric in ("gets", "data_block_hit_ratio", "cpu_us_per_get"):
        assert metric not in first.values and "did not move" in first.absent[metric]
    second = measure(load_run(runs[1]), "hbase-diff-1000", "row_index_encoding_1000")
    assert second.values["gets"] > 0 and second.values["data_block_hit_ratio"] == pytest.approx(1, abs=0.02)
    assert "gets" not in second.absent
    # the report says why the variant's counter columns are empty, and names no measured variant
    a = SimpleNamespace(measurements={"row_index_encoding_1000": {"hbase-diff-1000": first, "other": second}})
    lines = _frozen_lines(a, "row_index_encoding_1000")
    assert len(lines) == 1 and lines[0].startswith("- hbase-diff-1000: no server counters: ")
