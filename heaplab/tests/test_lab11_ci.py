"""Lab 11 end to end at --scale ci: the engine and the real Apache HBase 2.6 standalone in one run.

`make test` fetches HBase (about 115 MB from Maven Central, once) and this is the one real HBase variant
that it always runs end to end; run alone (pytest), it is skipped with the command where HBase is not
fetched. The run is ``python -m heaplab run 11-vs-apache-hbase --scale ci --report`` at a
throw-away root (the real spec plus a free ``hbase.regionserver.port`` for the engine; HBase picks its own
free ports) with the fetched HBase linked in. Then:
- both variants completed; HBase ran standalone with no fixed default port and left its server log, its
  GC log (the engine launcher's -Xlog flags) and hbase-site.xml in the run; it was stopped in order (the
  cluster shutdown stop-hbase.sh asks for: its region server left ZooKeeper before ZooKeeper stopped);
- every measured pe phase of HBase has a client summary made from HBase PE's output (tool hbase-pe, the
  rows the phase asked for) and an interval log holding every measured operation, whose merged histogram
  gives its percentiles;
- report.md has one table with both variants for every workload, and every claim (a bound between the
  two servers) is judged on both servers' values.
"""

from __future__ import annotations

import gzip
import json

import pytest

from heaplab.runfiles.hlog import read_total
from heaplab.tests.conftest import REPO, FinishedRun
from heaplab.tests.judged import judged_ok
from heaplab.tests.shared_runs import (
    assert_run_completed,
    execute_notebook,
    fetched_apache_hbase,
    run_lab_at_ci,
)
from heaplab.tests.test_end_to_end import spec_with_port

LAB = "11-vs-apache-hbase"
SPEC = REPO / "labs" / LAB / "experiment.yml"
NOTEBOOK = REPO / "notebooks" / f"{LAB}.ipynb"
HBASE = "apache-hbase-2.6"
ENGINE = "engine-hbase2-offheap"
HBASE_DEFAULT_PORTS = ("16000", "16010", "16020", "16030", "2181")


@pytest.fixture(scope="module")
def e2e(request, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    archive, why = fetched_apache_hbase(always=True)
    if archive is None:
        pytest.skip(why)
    lab = request.getfixturevalue("lab_root")(spec_with_port(SPEC.read_text(encoding="utf-8")), lab=LAB)
    target = lab.root / "infra/apache-hbase/target"
    target.mkdir(parents=True)
    (target / archive.name).symlink_to(archive)
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=1200)


def test_both_servers_ran(e2e: FinishedRun) -> None:
    assert_run_completed(e2e)
    server = e2e.run / HBASE / "server/localhost"
    log = (server / "server.log").read_text(encoding="utf-8")
    assert "HMaster" in log
    assert "Pause Young" in gzip.decompress((server / "gc-regionserver.log.gz").read_bytes()).decode()
    assert (server / "gc-events.jsonl").read_text(encoding="utf-8").count('"young": true') > 0
    site = (e2e.run / HBASE / "conf/hbase-site.xml").read_text(encoding="utf-8")
    assert "<name>hbase.cluster.distributed</name><value>false</value>" in site
    for port in HBASE_DEFAULT_PORTS:
        assert f"<value>{port}</value>" not in site, f"HBase's fixed default port {port} in hbase-site.xml"


def test_hbase_stopped_in_order(e2e: FinishedRun) -> None:
    log = (e2e.run / HBASE / "server/localhost/server.log").read_text(encoding="utf-8")
    assert "Cluster shutdown requested" in log, "hbase-lab stop asks the master for a cluster shutdown"
    # a SIGTERM alone stops ZooKeeper first; the region server then retried its delete for ~20 s
    assert "Failed deleting my ephemeral node" not in log
    assert "Shutdown MiniZK cluster" in log


def test_hbase_pe_phases_have_summaries(e2e: FinishedRun) -> None:
    p = e2e.params
    expected = {
        "single_put": ("RandomWriteTest", p["rows"]),
        "batch_put": ("RandomWriteTest", p["batch_rows"]),
        "random_read": ("RandomReadTest", p["read_rows"]),
        "scan": ("ScanTest", p["read_rows"]),
    }
    for phase, (test, rows) in expected.items():
        summary = json.loads((e2e.run / HBASE / f"client/{phase}-localhost.json").read_text(encoding="utf-8"))
        assert summary["tool"] == "hbase-pe" and summary["test"] == test, phase
        assert summary["rows"] == rows * p["threads"], phase
        assert summary["throughput"] > 0, phase
        assert summary["hlog"] == f"{phase}-localhost.hlog" and summary["latency_method"] == "merged", phase
        assert summary["hlog_count"] == summary["operations"], phase
        total = read_total([e2e.run / HBASE / "client" / summary["hlog"]])
        assert summary["latency_us"]["p999"] == total.get_value_at_percentile(99.9), phase
        assert (e2e.run / HBASE / f"client/gc-{phase}-localhost.log.gz").is_file(), phase


def test_report_has_both_servers_and_judges_every_claim(e2e: FinishedRun) -> None:
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert HBASE in report and ENGINE in report
    doc = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))
    assert doc["format"] == 3 and set(doc["claims"]) == {c.id for c in e2e.spec.claims}
    for cid, claim in doc["claims"].items():  # peer bounds: both servers measured, judged on one run
        assert claim["measured"][HBASE] is not None, cid
        assert claim["measured"][ENGINE] is not None, cid
        assert claim["n"] == 1 and claim["rule"] == "bound", (cid, claim["why"])
        assert judged_ok(claim), cid


def test_notebook_executes_on_the_run(e2e: FinishedRun) -> None:
    _, text = execute_notebook(NOTEBOOK, e2e.run)
    assert HBASE in text and "TPS engine / HBase" in text
