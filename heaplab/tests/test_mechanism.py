"""Mechanism metrics from fabricated runs whose summaries carry server_metrics: the per-operation
arithmetic recomputed from the raw files, several servers and client hosts, and what leaves them out."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from heaplab.analysis.mechanism import load_server_window
from heaplab.analysis.memory import MB
from heaplab.analysis.metrics import measure, measure_all
from heaplab.lab.catalogue import UNITS
from heaplab.report.mechanism_section import report_lines
from heaplab.runfiles.rundir import load_run
from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec, server_entry, server_report

VARIANT = "hbase1-onheap"
SUMMARY = f"{VARIANT}/client/single_put-localhost.json"
SERVER_SIDE = (
    "alloc_bytes_per_op",
    "alloc_rpc_bytes_per_op",
    "alloc_wal_bytes_per_op",
    "heap_copy_bytes_per_op",
    "request_copy_bytes_per_op",
    "response_copy_bytes_per_op",
    "direct_used_mb",
    "server_cpu_us_per_op",
)

BEFORE = server_report(
    {"handler": 1_000_000, "reader": 200_000, "wal": 300_000, "flush": 50_000, "other": 7_000},
    request_copy=400_000,
    response_copy=20_000,
    direct_used=8 * MB,
    cpu_ms=10_000,
)
AFTER = server_report(
    {"handler": 9_000_000, "reader": 1_800_000, "wal": 2_700_000, "flush": 450_000, "other": 63_000},
    request_copy=2_000_000,
    response_copy=180_000,
    direct_used=40 * MB,
    cpu_ms=13_000,
)


def _run(tmp_path: Path, server_metrics: list[dict[str, Any]] | None, **shape: Any) -> Path:
    return fabricate_run(
        tmp_path / "run", lab03_spec(), {VARIANT: Shape(server_metrics=server_metrics, **shape)}
    )


def _rows(run: Path, name: str = SUMMARY) -> int:
    return json.loads((run / name).read_text())["rows"]


def _alloc_total(report: dict[str, Any]) -> int:
    return sum(report["alloc"]["by_group"].values())


def test_units_are_registered() -> None:
    for metric in (*SERVER_SIDE, "young_gc_per_mop"):
        assert UNITS[metric] in ("B/op", "1/Mop", "MB", "us/op")


def test_per_operation_arithmetic(tmp_path: Path) -> None:
    run = _run(tmp_path, [server_entry("localhost:16020", BEFORE, AFTER)], young_gcs=6)
    ops = _rows(run)
    path = run / SUMMARY  # as a multiPut phase: per operation means per row, not per call
    path.write_text(json.dumps({**json.loads(path.read_text()), "operations": ops // 100}))
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem is None
    v = m.values
    assert v["alloc_bytes_per_op"] == pytest.approx((_alloc_total(AFTER) - _alloc_total(BEFORE)) / ops)
    assert v["alloc_rpc_bytes_per_op"] == pytest.approx((8_000_000 + 1_600_000) / ops)
    assert v["alloc_wal_bytes_per_op"] == pytest.approx(2_400_000 / ops)
    assert v["request_copy_bytes_per_op"] == pytest.approx(1_600_000 / ops)
    assert v["response_copy_bytes_per_op"] == pytest.approx(160_000 / ops)
    assert v["heap_copy_bytes_per_op"] == pytest.approx(1_760_000 / ops)
    assert v["direct_used_mb"] == pytest.approx(40.0)
    assert v["server_cpu_us_per_op"] == pytest.approx(3_000_000 / ops)  # 3 s of the process's CPU
    # the fabricator puts exactly young_gcs young pauses in the window (and others outside it)
    assert v["young_gc_per_mop"] == pytest.approx(6 * 1e6 / ops)


def _second_client(run: Path, rows: int, shift_ms: int, server_metrics: list[dict[str, Any]]) -> None:
    """Another client host's single_put summary: started shift_ms after localhost and ended after it."""
    client = run / VARIANT / "client"
    raw = json.loads((client / "single_put-localhost.json").read_text())
    raw.update(
        rows=rows,
        operations=rows,
        start_epoch_ms=raw["start_epoch_ms"] + shift_ms,
        end_epoch_ms=raw["end_epoch_ms"] + shift_ms,
        hlog="single_put-client2.hlog",
        server_metrics=server_metrics,
    )
    (client / "single_put-client2.json").write_text(json.dumps(raw))
    shutil.copy(client / "single_put-localhost.hlog", client / "single_put-client2.hlog")


def _report(handler: int, wal: int = 0, request_copy: int = 0, direct: int = 0) -> dict[str, Any]:
    return server_report({"handler": handler, "wal": wal}, request_copy=request_copy, direct_used=direct)


def test_several_servers_and_client_hosts(tmp_path: Path) -> None:
    """Servers are summed; a server's window runs from the first client's before to the last's after (the
    middle reports, localhost's after and client2's before, must not count)."""
    a, b = "rs1:16020", "rs2:16020"
    first = [
        server_entry(a, _report(1_000, 100, 10, MB), _report(50_000, 5_000, 500, 2 * MB)),
        server_entry(b, _report(2_000, 200, 20, MB), _report(70_000, 7_000, 700, 3 * MB)),
    ]
    last = [
        server_entry(a, _report(40_000, 4_000, 400, MB), _report(101_000, 10_100, 1_010, 5 * MB)),
        server_entry(b, _report(60_000, 6_000, 600, MB), _report(202_000, 20_200, 2_020, 7 * MB)),
    ]
    run = _run(tmp_path, first)
    _second_client(run, rows=3_000, shift_ms=500, server_metrics=last)
    ops = _rows(run) + 3_000
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem is None and len(m.summaries) == 2
    alloc = (101_000 + 10_100 - 1_000 - 100) + (202_000 + 20_200 - 2_000 - 200)
    assert m.values["alloc_bytes_per_op"] == pytest.approx(alloc / ops)
    assert m.values["alloc_rpc_bytes_per_op"] == pytest.approx((100_000 + 200_000) / ops)
    assert m.values["alloc_wal_bytes_per_op"] == pytest.approx((10_000 + 20_000) / ops)
    assert m.values["request_copy_bytes_per_op"] == pytest.approx((1_000 + 2_000) / ops)
    assert m.values["direct_used_mb"] == pytest.approx(12.0)
    assert m.values["young_gc_per_mop"] == pytest.approx(m.gc.count * 1e6 / ops)


def test_summary_without_server_metrics_leaves_them_out(tmp_path: Path) -> None:
    run = _run(tmp_path, None)
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem is None
    assert not set(SERVER_SIDE) & set(m.values)
    assert "young_gc_per_mop" in m.values  # needs only the GC events
    assert report_lines(measure_all(load_run(run))) == []


def test_one_client_host_without_server_metrics_leaves_them_out(tmp_path: Path) -> None:
    run = _run(tmp_path, [server_entry("localhost:16020", BEFORE, AFTER)])
    client = run / VARIANT / "client"
    raw = json.loads((client / "single_put-localhost.json").read_text())
    del raw["server_metrics"]
    (client / "single_put-client2.json").write_text(json.dumps({**raw, "hlog": None}))
    m = measure(load_run(run), VARIANT, "single_put")
    assert not set(SERVER_SIDE) & set(m.values)


def test_server_with_error_leaves_them_out_and_says_why(tmp_path: Path) -> None:
    entries = [
        server_entry("rs1:16020", BEFORE, AFTER),
        {"server": "rs2:16020", "error": "connection refused"},
    ]
    run = _run(tmp_path, entries)
    measured = measure_all(load_run(run))
    m = measured["single_put"][VARIANT]
    assert m.problem is None
    assert not set(SERVER_SIDE) & set(m.values)
    # no variant has server-side numbers, so there is no table; the section stays out of the report
    assert report_lines(measured) == []


def test_unsupported_allocation_counting_keeps_the_copies(tmp_path: Path) -> None:
    before = server_report({"handler": 0}, request_copy=1_000, supported=False)
    after = server_report({"handler": 0}, request_copy=9_000, supported=False)
    run = _run(tmp_path, [server_entry("localhost:16020", before, after)])
    m = measure(load_run(run), VARIANT, "single_put")
    assert "alloc_bytes_per_op" not in m.values
    assert m.values["request_copy_bytes_per_op"] == pytest.approx(8_000 / _rows(run))
    text = "\n".join(report_lines(measure_all(load_run(run))))
    assert "cannot count allocated bytes" in text


def test_a_counter_that_fell_is_not_a_negative_rate(tmp_path: Path) -> None:
    run = _run(tmp_path, [server_entry("localhost:16020", AFTER, BEFORE)])  # restarted: counters fell
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem is None
    assert "alloc_bytes_per_op" not in m.values and "heap_copy_bytes_per_op" not in m.values
    assert "direct_used_mb" in m.values


@pytest.mark.parametrize(
    ("side", "group", "field", "value", "expected"),
    [
        (
            "after",
            "alloc",
            "total_bytes",
            "lots",
            "server_metrics[0].after.alloc.total_bytes is not a number",
        ),
        ("before", "copies", "response_heap_bytes", None, "missing server_metrics[0].before.copies"),
        (
            "after",
            "alloc",
            "supported",
            "yes",
            "server_metrics[0].after.alloc.supported is not true or false",
        ),
    ],
)
def test_bad_field_is_one_line_naming_file_and_field(
    tmp_path: Path, side: str, group: str, field: str, value: Any, expected: str
) -> None:
    reports = {"before": json.loads(json.dumps(BEFORE)), "after": json.loads(json.dumps(AFTER))}
    if value is None:
        del reports[side][group][field]
    else:
        reports[side][group][field] = value
    run = _run(tmp_path, [server_entry("localhost:16020", reports["before"], reports["after"])])
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem is not None and "\n" not in m.problem
    assert m.problem.startswith(str(run / SUMMARY) + ": ")
    assert expected in m.problem


def test_server_metrics_not_a_list_is_an_error(tmp_path: Path) -> None:
    run = _run(tmp_path, [])
    path = run / SUMMARY
    path.write_text(json.dumps({**json.loads(path.read_text()), "server_metrics": {"rs1": {}}}))
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem == f"{path}: server_metrics is not a list"


def _pair(tmp_path: Path, offheap_metrics: list[dict[str, Any]] | None) -> Path:
    onheap = Shape(server_metrics=[server_entry("localhost:16020", BEFORE, AFTER)])
    offheap = Shape(server_metrics=offheap_metrics, young_gcs=2)
    shapes = {VARIANT: onheap, "hbase2-offheap": offheap}
    return fabricate_run(tmp_path / "pair", lab03_spec(offheap_available=True), shapes)


def test_report_section_rows_and_ratios(tmp_path: Path) -> None:
    half = server_report(
        {"handler": 5_000_000, "reader": 1_000_000, "wal": 1_500_000, "flush": 250_000, "other": 35_000},
        request_copy=1_200_000,
        response_copy=100_000,
    )
    run = _pair(tmp_path, [server_entry("localhost:16020", BEFORE, half)])
    measured = measure_all(load_run(run))
    lines = report_lines(measured)
    assert lines[0] == "## Mechanism"
    on, off = (measured["single_put"][v].values for v in (VARIANT, "hbase2-offheap"))
    rows = {line.split(" | ")[0]: line for line in lines if line.startswith("| hbase")}
    assert set(rows) == {f"| {VARIANT}", "| hbase2-offheap"}
    assert "(" not in rows[f"| {VARIANT}"]  # the first variant is the base: no ratio
    ratio = off["alloc_bytes_per_op"] / on["alloc_bytes_per_op"]
    assert f"{off['alloc_bytes_per_op']:,.0f} ({ratio:.2f}x)" in rows["| hbase2-offheap"]
    gc_ratio = off["young_gc_per_mop"] / on["young_gc_per_mop"]
    assert f"({gc_ratio:.2f}x)" in rows["| hbase2-offheap"]
    assert "### single_put" in lines and "### batch_put" in lines


def test_report_says_why_a_variant_lacks_the_server_numbers(tmp_path: Path) -> None:
    run = _pair(tmp_path, [{"server": "localhost:16020", "error": "connection refused"}])
    lines = report_lines(measure_all(load_run(run)))
    row = next(line for line in lines if line.startswith("| hbase2-offheap"))
    # young GCs, pause, P99.9 remain; the fabricated run has no GC log, so no allocation from it either
    # ... and a run made without the /proc samples has no server CPU from them
    assert row.startswith("| hbase2-offheap | - | - | - | - | - | - | - | - | ")
    assert row.count(" - ") == 8
    note = next(line for line in lines if line.startswith("- hbase2-offheap: "))
    assert note.startswith(
        "- hbase2-offheap: localhost:16020: connection refused (single_put-localhost.json)"
    )
    assert "; no gc_alloc_bytes_per_op: localhost left no GC log" in note
    assert "; no server_cpu_us_per_op: no `admin metrics` phases with a baseline bracket" in note
    assert "; no server_cpu_proc_us_per_op: no proc-cpu.jsonl from any region server host" in note


def test_servers_that_could_not_be_listed(tmp_path: Path) -> None:
    """The engine writes one entry with server "" when it cannot list the table's region servers."""
    run = _run(tmp_path, [{"server": "", "error": "cannot list the region servers of TestTable: refused"}])
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem is None
    assert not set(SERVER_SIDE) & set(m.values)
    window = load_server_window(m.summaries)
    assert window is not None
    why = "cannot list the region servers of TestTable: refused"
    assert window.notes == (f"the region servers: {why} (single_put-localhost.json)",)


def test_server_without_name_or_error_is_an_error(tmp_path: Path) -> None:
    run = _run(tmp_path, [{"server": "", "before": BEFORE, "after": AFTER}])
    m = measure(load_run(run), VARIANT, "single_put")
    assert m.problem == f"{run / SUMMARY}: server_metrics[0].server is missing"
