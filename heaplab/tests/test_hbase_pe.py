"""heaplab.hbase_pe on real Apache HBase 2.6.4 PerformanceEvaluation output, and the `server:` key.

The fixtures under data/hbase-pe/ are the unedited stdout of HBase PE (hbase-lab pe) against HBase 2.6.4
standalone: randomWrite 2 threads x 2000 rows (single puts, then --multiPut=100), then randomRead and
scan of the flushed and major-compacted table.
"""

from __future__ import annotations

import json
from datetime import timezone
from pathlib import Path

import pytest

from heaplab import hbase_pe
from heaplab.client_summary import load_client_summary
from heaplab.gc_events import load_gc_events
from heaplab.hlog import read_total
from heaplab.runner import ansible_vars
from heaplab.spec import SpecError, load_spec, parse_spec

DATA = Path(__file__).parent / "data" / "hbase-pe"
SINGLE_ARGS = (
    "--nomapred --oneCon=true --valueSize=200 --presplit=4 --autoFlush=true --rows=2000 randomWrite 2"
)


def _parse(name: str, args: str) -> dict:
    return hbase_pe.parse((DATA / name).read_text(encoding="utf-8"), args=args, tz=timezone.utc)


def test_single_put_output() -> None:
    s = _parse("single-2.6.4.out", SINGLE_ARGS)
    assert (s["tool"], s["command"], s["test"], s["threads"]) == (
        "hbase-pe",
        "randomWrite",
        "RandomWriteTest",
        2,
    )
    assert (s["rows_per_thread"], s["value_size"], s["batch_size"]) == (2000, 200, 1)
    assert s["rows"] == 4000 and s["operations"] == 3998  # HBase PE's "Num measures" per thread: 1999
    assert s["duration_ms"] == 15445.0  # the slower thread
    assert s["throughput"] == pytest.approx(4000 * 1000 / 15445, rel=1e-4)
    assert s["hbase_avg_tps"] == 261.0
    lat = s["latency_us"]
    # exact: the measures-weighted mean, the extremes; estimated: the percentiles (mean of the threads')
    assert lat["mean"] == pytest.approx((7536.28 + 7640.87) / 2, abs=0.01)
    assert (lat["min"], lat["max"]) == (352.0, 797539.0)
    assert lat["p999"] == pytest.approx((752065.0 + 709637.0) / 2)
    assert s["hlog"] is None
    assert [c["client"] for c in s["clients"]] == ["TestClient-0", "TestClient-1"]
    assert s["end_epoch_ms"] - s["start_epoch_ms"] == pytest.approx(15477, abs=5)


def test_batch_put_counts_calls_as_operations() -> None:
    s = _parse("batch-2.6.4.out", "--multiPut=100 --rows=2000 randomWrite 2")
    assert s["batch_size"] == 100 and s["rows"] == 4000
    assert s["operations"] == 40  # one measure per 100-row call


@pytest.mark.parametrize(
    ("name", "args", "test"),
    [
        ("read-2.6.4.out", "--rows=2000 randomRead 2", "RandomReadTest"),
        ("scan-2.6.4.out", "--rows=2000 scan 2", "ScanTest"),
    ],
)
def test_read_outputs(name: str, args: str, test: str) -> None:
    s = _parse(name, args)
    assert s["test"] == test and s["rows"] == 4000 and s["throughput"] > 0
    assert (
        s["latency_us"]["min"] <= s["latency_us"]["p50"] <= s["latency_us"]["p99"] <= s["latency_us"]["max"]
    )


def test_unfinished_output_is_an_error_naming_the_source() -> None:
    text = (DATA / "single-2.6.4.out").read_text(encoding="utf-8")
    cut = text[: text.index("Summary of timings")]
    with pytest.raises(hbase_pe.HBasePeError, match=r"x\.out: no finished HBase PE run"):
        hbase_pe.parse(cut, args=SINGLE_ARGS, source="x.out")


def test_convert_variant_writes_summaries_the_readers_load(tmp_path: Path) -> None:
    (tmp_path / "single_put-localhost.out").write_text(
        (DATA / "single-2.6.4.out").read_text(encoding="utf-8")
    )
    (tmp_path / "stopped-localhost.out").write_text("killed before the summary\n")
    (tmp_path / "flush-localhost.out").write_text("flush ReadTable: done\n")
    phases = [
        {"name": "single_put", "tool": "pe", "args": SINGLE_ARGS},
        {"name": "stopped", "tool": "pe", "args": "randomWrite 2"},
        {"name": "flush", "tool": "admin", "args": "flush ReadTable"},
    ]
    written = hbase_pe.convert_variant(tmp_path, phases, tz=timezone.utc)
    assert written == [tmp_path / "single_put-localhost.json"]
    summary = load_client_summary(written[0], "single_put", "localhost")
    assert summary.rows == 4000 and summary.hlog is None
    assert json.loads(written[0].read_text())["format"] == 1


SPEC = {
    "lab": "x",
    "reproduces": [{"doc": "000", "experiment": "e"}],
    "variants": {"engine": {"profile": "hbase2-offheap"}, "hbase": {"server": "apache-hbase"}},
    "scales": {"ci": {"threads": 2, "rows": 10}},
    "phases": [
        {"name": "w", "tool": "pe", "measure": "e", "args": "--rows={rows} randomWrite {threads}"},
        {"name": "f", "tool": "admin", "args": "flush TestTable"},
    ],
}


def test_server_key_defaults_to_engine_and_needs_no_profile_for_hbase() -> None:
    spec = parse_spec(SPEC)
    assert spec.variants["engine"].server == "engine"
    assert (spec.variants["hbase"].server, spec.variants["hbase"].profile) == ("apache-hbase", "apache-hbase")


def test_unknown_server_is_one_line_naming_the_valid_ones() -> None:
    bad = {**SPEC, "variants": {"v": {"server": "cassandra"}}}
    with pytest.raises(SpecError, match="variant v: unknown server 'cassandra'; valid: engine, apache-hbase"):
        parse_spec(bad)


def test_hbase_variant_rejects_admin_commands_it_cannot_run() -> None:
    bad = {**SPEC, "phases": [*SPEC["phases"], {"name": "m", "tool": "admin", "args": "split TestTable"}]}
    expected = "phase m: an apache-hbase variant runs pe and ycsb phases and admin create"
    with pytest.raises(SpecError, match=expected):
        parse_spec(bad)
    ok = {**SPEC, "phases": [*SPEC["phases"], {"name": "m", "tool": "admin", "args": "metrics --gc"}]}
    parse_spec(ok)  # HBase's region server counters over JMX (LabAdmin)
    ycsb = {**SPEC, "phases": [*SPEC["phases"], {"name": "y", "tool": "ycsb", "args": "run -P workloadc"}]}
    parse_spec(ycsb)  # the engine's YCSB launcher with HBase's binding (hbase-lab ycsb)


def test_ansible_vars_of_an_hbase_variant(tmp_path: Path) -> None:
    spec = parse_spec(SPEC)
    params = spec.params("ci")
    engine_vars = ansible_vars(spec, spec.variants["engine"], params, Path("/a.tar.gz"), Path("/r"))
    assert "heaplab_server" not in engine_vars  # engine runs keep their extra vars unchanged
    assert hbase_pe.ansible_vars("engine", tmp_path) == {}
    assert hbase_pe.unavailable_why("apache-hbase", tmp_path).startswith("Apache HBase 2.6.4 is not fetched")
    packed = tmp_path / "infra/apache-hbase/target/apache-hbase-2.6.4.tar"
    packed.parent.mkdir(parents=True)
    packed.write_bytes(b"")
    assert hbase_pe.unavailable_why("apache-hbase", tmp_path) is None
    assert hbase_pe.ansible_vars("apache-hbase", tmp_path) == {
        "heaplab_server": "apache-hbase",
        "heaplab_hbase_archive": str(packed.resolve()),
    }


def test_lab11_spec_compares_both_servers_on_every_workload() -> None:
    spec = load_spec(Path(__file__).parents[2] / "labs/11-vs-apache-hbase/experiment.yml")
    assert {v.server for v in spec.variants.values()} == {"engine", "apache-hbase"}
    for exp in spec.experiments:
        assert spec.measured_phase(exp) is not None, exp
        assert any(c.experiment == exp and c.metric == "throughput" for c in spec.claims), exp
    for scale in spec.scales:  # the same pe command line for both servers
        params = spec.params(scale)
        engine, hbase = (spec.phases_for(params, v) for v in spec.variants.values())
        assert [p["args"] for p in engine] == [p["args"] for p in hbase]


def test_gc_events_derived_from_hbase_gc_log(tmp_path: Path) -> None:
    src = Path(__file__).parent / "data/lab11-ci-run/apache-hbase-2.6/server/localhost/gc-regionserver.log"
    (tmp_path / "gc-regionserver.log").write_bytes(src.read_bytes())
    path = hbase_pe.gc_events_from_log(tmp_path)
    events = load_gc_events(path, "localhost")
    young_in_log = sum(
        1 for line in src.read_text().splitlines() if "Pause Young" in line and line.endswith("ms")
    )
    assert young_in_log > 0 and sum(e.young for e in events) == young_in_log
    assert all(e.duration_ms > 0 and e.start_epoch_ms > 1.7e12 for e in events)
    assert hbase_pe.gc_events_from_log(tmp_path / "nothing") is None


def test_mark_unavailable_until_fetched(tmp_path: Path) -> None:
    spec = parse_spec(SPEC)
    entries = {name: {"available": True, "why": None, "status": "pending"} for name in spec.variants}
    hbase_pe.mark_unavailable(entries, spec, tmp_path)
    assert entries["engine"] == {"available": True, "why": None, "status": "pending"}
    assert (
        entries["hbase"]["status"] == "unavailable"
        and "infra/apache-hbase/fetch.sh" in entries["hbase"]["why"]
    )


def test_with_its_interval_log_the_percentiles_come_from_the_merged_histogram() -> None:
    """hbase-lab pe --report: HBase PE's randomWrite run as LabRandomWrite (LabPeCommands.java), which also
    wrote every measured latency into the engine's interval log (the fixture pair: its stdout and .hlog,
    unedited, from lab 11 at ci scale)."""
    out, hlog = DATA / "lab-single-2.6.4.out", DATA / "lab-single-2.6.4.hlog"
    args = "--nomapred --oneCon=true --valueSize=200 --presplit=4 --autoFlush=true --rows=500 randomWrite 2"
    s = hbase_pe.parse(out.read_text(encoding="utf-8"), args=args, tz=timezone.utc, hlog=hlog)
    assert s["test"] == "RandomWriteTest"  # PE names the class LabRandomWrite: the summary names PE's test
    assert (s["hlog"], s["latency_method"]) == ("lab-single-2.6.4.hlog", "merged")
    assert s["hlog_count"] == s["operations"] == sum(c["measures"] for c in s["clients"])
    total = read_total([hlog])
    assert s["latency_us"]["p999"] == total.get_value_at_percentile(99.9)
    assert s["latency_us"]["max"] == total.get_max_value()
    # HBase PE's own per-thread figures are kept: its max is the merged one's, to HdrHistogram's precision
    assert s["hbase_latency_us"]["max"] == pytest.approx(s["latency_us"]["max"], rel=0.001)
    without = hbase_pe.parse(out.read_text(encoding="utf-8"), args=args, tz=timezone.utc)
    assert (without["hlog"], without["latency_method"]) == (None, "thread-weighted")
    assert without["latency_us"] == s["hbase_latency_us"]
