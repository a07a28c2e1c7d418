"""``bin/engine ycsb`` end to end through ``heaplab run`` at --scale ci.

A throw-away lab (conftest ``lab_root``: the real playbooks and engine, a free port) creates ``usertable``
pre-split for YCSB's keys (``admin create --splits=ycsb``), loads it with YCSB's ``load`` and runs
workloada (a few thousand operations) as the measured phase, both as ``tool: ycsb`` phases that get
``--report`` from the playbook like pe, with a ycsb reader in the background beside the run, stopped
when it ends.  One run serves every test (module fixture).  It checks that the
summaries count what YCSB counted (its own JSON export), that the merged ``.hlog`` decodes to the same
number of operations in about-1-s intervals, that YCSB's per-operation interval logs are collected, and
that the claims on ``throughput`` and ``latency_p999`` are judged from the ycsb summary in report.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heaplab.runfiles.client_summary import load_phase_summaries
from heaplab.runfiles.hlog import read_intervals, read_total
from heaplab.tests.conftest import FinishedRun
from heaplab.tests.shared_runs import assert_run_completed, run_lab_at_ci

LAB = "98-ycsb-ci"
# {port}: conftest's free port; the ci scale keeps both ycsb phases to a few seconds.
SPEC = """\
lab: 98-ycsb-ci
title: bin/engine ycsb through heaplab run (test)
reproduces:
  - {doc: "003", experiment: ycsb_read}
variants:
  engine:
    profile: hbase1-onheap
    published: cluster-4rs
    server_jvm: ["-XX:+UseG1GC"]
    client_jvm: ["-XX:+UseG1GC"]
scales:
  ci: {heap: 256m, client_heap: 256m, records: 2000, ops: 3000, threads: 4, regions: 4}
site:
  hbase.regionserver.port: "{port}"
phases:
  - {name: create, tool: admin,
     args: "create usertable --family=family --presplit={regions} --rows={records} --splits=ycsb"}
  - {name: load, tool: ycsb, args: "load -P workloada -p recordcount={records} -threads {threads}"}
  # a reader beside the measured run, stopped (SIGTERM) when the run ends: exit 143, no report
  - {name: reader, tool: ycsb, background: true, until: run,
     args: "run -P workloadc -p recordcount={records} -p operationcount=100000000"}
  - {name: run, tool: ycsb, measure: ycsb_read,
     args: "run -P workloada -p recordcount={records} -p operationcount={ops} -threads {threads}"}
claims:
  - {id: ycsb-throughput, experiment: ycsb_read, metric: throughput, expect: "engine >= 1"}
  - {id: ycsb-tail, experiment: ycsb_read, metric: latency_p999, expect: "engine <= 600000"}
"""


@pytest.fixture(scope="module")
def e2e(request, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    lab = request.getfixturevalue("lab_root")(SPEC, lab=LAB)
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=300)


def _client(e2e: FinishedRun) -> Path:
    return e2e.run / "engine" / "client"


def _exported(client: Path, phase: str) -> dict[str, dict[str, float]]:
    """YCSB's own JSON export of a phase: metric -> measurement -> value."""
    out: dict[str, dict[str, float]] = {}
    for row in json.loads((client / f"{phase}-localhost.ycsb.json").read_text(encoding="utf-8")):
        out.setdefault(row["metric"], {})[row["measurement"]] = row["value"]
    return out


def test_run_completes(e2e: FinishedRun) -> None:
    assert_run_completed(e2e)


def test_summaries_count_what_ycsb_counted(e2e: FinishedRun) -> None:
    p = e2e.params
    client = _client(e2e)
    (load,) = load_phase_summaries(client, "load")
    assert load.tool == "ycsb" and load.command == "load" and load.test == "workloada"
    assert load.operations == p["records"] == _exported(client, "load")["INSERT"]["Operations"]
    assert set(load.ops) == {"INSERT"} and not load.failed
    (run,) = load_phase_summaries(client, "run")
    export = _exported(client, "run")
    assert run.command == "run" and run.threads == p["threads"]
    assert run.operations == p["ops"] == export["READ"]["Operations"] + export["UPDATE"]["Operations"]
    assert {name: op.operations for name, op in run.ops.items()} == {
        "READ": export["READ"]["Operations"],
        "UPDATE": export["UPDATE"]["Operations"],
    }
    assert run.throughput == pytest.approx(export["OVERALL"]["Throughput(ops/sec)"], rel=1e-3)
    assert run.latency_us["max"] == max(export["READ"]["MaxLatency(us)"], export["UPDATE"]["MaxLatency(us)"])


def test_merged_hlog_holds_every_operation(e2e: FinishedRun) -> None:
    client = _client(e2e)
    for phase in ("load", "run"):
        (s,) = load_phase_summaries(client, phase)
        assert s.hlog == client / f"{phase}-localhost.hlog"
        assert read_total([s.hlog]).get_total_count() == s.operations
        intervals = read_intervals(s.hlog)
        assert sum(i.count for i in intervals) == s.operations
        assert all(i.end_epoch_ms - i.start_epoch_ms <= 1500 for i in intervals), "about 1 s intervals"
    for op in ("READ", "UPDATE"):  # YCSB's own interval log per operation is collected too
        assert (client / f"run-localhost.ycsb-{op}.hdr").is_file(), op


def test_a_background_ycsb_phase_is_stopped_without_a_report(e2e: FinishedRun) -> None:
    client = _client(e2e)
    assert not (client / "reader-localhost.json").exists(), "stopped by its until phase: no summary"
    assert (client / "gc-reader-localhost.log.gz").is_file(), "its GC log (gc-ycsb.log) is kept"
    assert "stopped by a signal" in (client / "reader-localhost.err").read_text(encoding="utf-8")


def test_claims_come_out_of_the_ycsb_summary(e2e: FinishedRun) -> None:
    claims = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))["claims"]
    # judged on the run's own YCSB numbers; one run only shows them (a verdict needs three)
    assert set(claims) == {"ycsb-throughput", "ycsb-tail"}
    for cid, c in claims.items():
        assert c["verdict"] == "inconclusive" and c["indicative"] and c["n"] == 1, cid
        assert c["mean"] is not None and "indicative only" in c["why"], cid
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert "ycsb-throughput" in report and "ycsb-tail" in report
    assert "## ycsb_read" in report
