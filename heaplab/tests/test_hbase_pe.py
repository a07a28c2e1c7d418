"""heaplab.run.hbase_pe on real Apache HBase 2.6.4 PerformanceEvaluation output, and the `server:` key.

The fixtures under data/hbase-pe/ are the unedited stdout of HBase PE (hbase-lab pe) against HBase 2.6.4
standalone: randomWrite 2 threads x 2000 rows (single puts, then --multiPut=100), then randomRead and
scan of the flushed and major-compacted table.
"""

from __future__ import annotations

import json
from datetime import timezone
from pathlib import Path

import pytest

from heaplab.lab.schema import HBASE_VERSIONS, SpecError
from heaplab.lab.spec import load_spec, parse_spec
from heaplab.run import hbase_pe
from heaplab.run.variant_run import ansible_vars
from heaplab.runfiles.client_summary import load_client_summary
from heaplab.runfiles.gc_events import load_gc_events
from heaplab.runfiles.hlog import read_total
from heaplab.tests.conftest import reference_series

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


# HBase 1.4.14: the fixtures are the unedited stdout and interval logs of lab 03's hbase14-cms at ci scale
# (bin/hbase-lab pe --report: PE 1.4 with LabPeCommands' commands; 4 threads x 2000 rows).
ARGS_14 = (
    "--nomapred --oneCon=true --valueSize=200 --compress=SNAPPY --rows=2000 --autoFlush=true --presplit=4 "
    "randomWrite 4"
)
BATCH_ARGS_14 = ARGS_14.replace("--presplit=4", "--presplit=4 --multiPut=100")


def test_hbase_14_output_has_no_tps_line_and_is_parsed_from_its_threads() -> None:
    out, hlog = DATA / "lab-single-1.4.14.out", DATA / "lab-single-1.4.14.hlog"
    text = out.read_text(encoding="utf-8")
    assert "Avg TPS/QPS" not in text and "[LabRandomWrite] Summary of timings" in text
    s = hbase_pe.parse(text, args=ARGS_14, tz=timezone.utc, hlog=hlog)
    assert (s["command"], s["test"], s["threads"], s["rows"]) == ("randomWrite", "RandomWriteTest", 4, 8000)
    assert s["hbase_avg_tps"] is None and s["batch_substitute"] is None and s["batch_size"] == 1
    # PE 1.4 has no --measureAfter: every row is measured, and LabPeCommands logged each one
    assert s["operations"] == s["hlog_count"] == 8000 and s["latency_method"] == "merged"
    assert s["duration_ms"] == max(c["duration_ms"] for c in s["clients"])
    assert s["throughput"] == pytest.approx(8000 * 1000 / s["duration_ms"], rel=1e-4)
    assert s["latency_us"]["max"] == read_total([hlog]).get_max_value()
    # the per-thread maxima PE printed and the merged log's agree, to HdrHistogram's precision
    assert s["hbase_latency_us"]["max"] == pytest.approx(s["latency_us"]["max"], rel=0.001)


def test_hbase_14_batch_is_named_the_buffered_substitute() -> None:
    out, hlog = DATA / "lab-batch-1.4.14.out", DATA / "lab-batch-1.4.14.hlog"
    s = hbase_pe.parse(out.read_text(encoding="utf-8"), args=BATCH_ARGS_14, tz=timezone.utc, hlog=hlog)
    assert s["batch_size"] == 100 and s["rows"] == 8000
    assert s["batch_substitute"].startswith("buffered substitute for --multiPut=100 (HBase 1.4.14 PE")
    assert "--autoFlush=false --bufferSize=58399" in s["batch_substitute"]
    assert s["operations"] == s["hlog_count"] == 8000  # every put is a measure: per-row latencies


def test_an_unfinished_hbase_14_output_is_an_error() -> None:
    text = (DATA / "lab-single-1.4.14.out").read_text(encoding="utf-8")
    with pytest.raises(hbase_pe.HBasePeError, match="no finished HBase PE run"):
        hbase_pe.parse(text[: text.index("Summary of timings")], args=ARGS_14, source="x.out")


def test_the_report_names_the_substitute(tmp_path: Path) -> None:
    (tmp_path / "batch_put-localhost.out").write_text(
        (DATA / "lab-batch-1.4.14.out").read_text(encoding="utf-8")
    )
    phases = [{"name": "batch_put", "tool": "pe", "args": BATCH_ARGS_14}]
    (written,) = hbase_pe.convert_variant(tmp_path, phases, tz=timezone.utc)
    summary = load_client_summary(written, "batch_put", "localhost")
    assert summary.batch_substitute is not None and "--multiPut=100" in summary.batch_substitute


def test_archives_are_version_exact(tmp_path: Path) -> None:
    target = tmp_path / "infra/apache-hbase/target"
    target.mkdir(parents=True)
    (target / "apache-hbase-1.4.14.tar").write_bytes(b"")
    assert hbase_pe.find_archive(tmp_path) is None  # 1.4's archive is not the default 2.6.4's
    assert hbase_pe.unavailable_why("apache-hbase", tmp_path).startswith("Apache HBase 2.6.4 is not fetched")
    assert hbase_pe.unavailable_why("apache-hbase", tmp_path, "1.4.14") is None
    assert hbase_pe.ansible_vars("apache-hbase", tmp_path, "1.4.14")["heaplab_hbase_archive"] == str(
        (target / "apache-hbase-1.4.14.tar").resolve()
    )
    (target / "apache-hbase-1.4.14.tar").unlink()
    why = hbase_pe.unavailable_why("apache-hbase", tmp_path, "1.4.14")
    assert why.startswith("Apache HBase 1.4.14 is not fetched") and "make apache-hbase-1.4" in why


def test_the_versions_are_the_poms() -> None:
    """schema.HBASE_VERSIONS names what infra/apache-hbase's poms fetch, the default (2.6) first."""
    root = Path(__file__).parents[2] / "infra/apache-hbase"
    versions = []
    for pom in ("pom.xml", "pom-1.4.xml"):
        text = (root / pom).read_text(encoding="utf-8")
        versions.append(text.split("<hbase.version>")[1].split("</hbase.version>")[0])
    assert tuple(versions) == HBASE_VERSIONS
    assert set(hbase_pe.FETCH_HINTS) == set(HBASE_VERSIONS)
    assert (root / f"jars-{HBASE_VERSIONS[1]}.sha1").is_file()


def test_hbase_version_key() -> None:
    spec = parse_spec(
        {
            **SPEC,
            "variants": {**SPEC["variants"], "old": {"server": "apache-hbase", "hbase_version": "1.4.14"}},
        }
    )
    assert (spec.variants["old"].hbase_version, spec.variants["old"].hbase1) == ("1.4.14", True)
    assert (spec.variants["hbase"].hbase_version, spec.variants["hbase"].hbase1) == ("2.6.4", False)
    assert (spec.variants["engine"].hbase_version, spec.variants["engine"].hbase1) == ("", False)
    unknown = {**SPEC, "variants": {"v": {"server": "apache-hbase", "hbase_version": 1.4}}}
    with pytest.raises(SpecError, match=r"variant v: unknown hbase_version '1.4'; valid: 2.6.4, 1.4.14"):
        parse_spec(unknown)
    engine = {**SPEC, "variants": {"v": {"profile": "hbase1-onheap", "hbase_version": "1.4.14"}}}
    with pytest.raises(SpecError, match="variant v: hbase_version goes with server: apache-hbase"):
        parse_spec(engine)


def test_hbase_14_variants_run_no_ycsb() -> None:
    old = {**SPEC, "variants": {"old": {"server": "apache-hbase", "hbase_version": "1.4.14"}}}
    ycsb = {**old, "phases": [*SPEC["phases"], {"name": "y", "tool": "ycsb", "args": "run -P workloadc"}]}
    with pytest.raises(
        SpecError, match=r"phase y: variant old runs Apache HBase 1\.4\.14, which runs pe and admin"
    ):
        parse_spec(ycsb)
    parse_spec(old)  # pe and admin phases


def test_lab03s_hbase14_variant() -> None:
    spec = load_spec(Path(__file__).parents[2] / "labs/03-offheap-write/experiment.yml")
    v, cms = spec.variants["hbase14-cms"], spec.variants["cms-onheap-1.x"]
    assert (v.server, v.hbase_version, v.jdk) == ("apache-hbase", "1.4.14", 11)
    assert v.server_jvm == cms.server_jvm and v.client_jvm == cms.client_jvm
    assert v.site == {}  # its own 1.x write path: no 2.x-only keys to turn off


SAMPLED = reference_series("04-offheap-read")[-1] / "cms-onheap-1.x/client"


def test_a_sampling_read_counts_its_gets_not_its_share_of_the_rows() -> None:
    """HBase PE's `randomRead --sampleRate=R` (lab 04's committed series, R below 1): each client says "for
    N rows", its share of the key space, and makes about R times as many gets. The summary counts the gets,
    and its rate is theirs; the series' own summaries load the same way."""
    committed = json.loads((SAMPLED / "get_big-localhost.json").read_text(encoding="utf-8"))
    out = (SAMPLED / "get_big-localhost.out").read_text(encoding="utf-8")
    fresh = hbase_pe.parse(
        out, args=committed["args"], tz=timezone.utc, hlog=SAMPLED / "get_big-localhost.hlog"
    )
    args = committed["args"].split()
    (rate,) = [float(a.split("=", 1)[1]) for a in args if a.startswith("--sampleRate=")]
    (per_client,) = [int(a.split("=", 1)[1]) for a in args if a.startswith("--rows=")]
    share = int(args[-1]) * per_client  # the key space the clients cover: what "for N rows" adds up to
    assert rate < 1
    assert fresh["rows"] == fresh["operations"] == committed["operations"]
    assert 0.9 * share * rate < committed["operations"] < share * rate + 100
    assert fresh["throughput"] == pytest.approx(fresh["rows"] * 1000.0 / fresh["duration_ms"], abs=1e-3)
    loaded = load_client_summary(SAMPLED / "get_big-localhost.json", "get_big", "localhost")
    assert loaded.rows == fresh["rows"] and loaded.throughput == pytest.approx(fresh["throughput"], rel=1e-6)
    unsampled = load_client_summary(SAMPLED / "get_small-localhost.json", "get_small", "localhost")
    assert unsampled.rows == json.loads((SAMPLED / "get_small-localhost.json").read_text())["rows"]
