"""Lab 10 end to end at --scale ci: the real spec, CLI, ansible-playbook, playbooks, engine and YCSB.

``python -m heaplab run 10-ycsb-cluster --scale ci --report`` at a throw-away root whose spec is the real
one plus a free ``hbase.regionserver.port`` (one run for the whole module), and, where
infra/apache-hbase/fetch.sh has run, the same workloads on Apache HBase (hbase-lab ycsb: the engine's YCSB
launcher with HBase's binding). Then, for each variant that ran:
- the run completed, the tables were loaded with YCSB (records rows; inc_records counters);
- every step of every sweep ran exactly its operationcount of the right YCSB operation (ci sets no time
  cap) at the step's ``-threads``, with no failed operation;
- report.md has the sweep overview and one table per workload with its threads, and the figures;
- every latency ceiling has its value in the run and is judged on it when the host is as large as the
  article's (else not measurable here, saying what the host lacks); the sweep-level claims are not
  measurable here with their reason; the notebook executes on the run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from heaplab.analysis.metrics import measure
from heaplab.judge.verdict import INCONCLUSIVE, NOT_MEASURABLE, NOT_REPRODUCED, REPRODUCED
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import REPO, FinishedRun
from heaplab.tests.shared_runs import (
    assert_run_completed,
    available_variants,
    execute_notebook,
    link_apache_hbase,
    run_lab_at_ci,
)
from heaplab.tests.test_end_to_end import spec_with_port

LAB = "10-ycsb-cluster"
SPEC = REPO / "labs" / LAB / "experiment.yml"
VARIANT = "hbase1-onheap"  # the engine's; Apache HBase's counterpart comes from the spec's subjects
# workload -> (phase prefix, operations parameter, the YCSB operations its steps do)
WORKLOADS = {
    "ycsb_insert": ("insert", "insert_ops", {"INSERT"}),
    "ycsb_read": ("read", "read_ops", {"READ"}),
    "ycsb_scan": ("scan", "scan_ops", {"SCAN"}),
    "ycsb_read_insert": ("read_insert", "mix_ops", {"READ", "INSERT"}),
    "ycsb_insert_heavy": ("insert_heavy", "heavy_ops", {"READ", "INSERT"}),
    "ycsb_read_heavy": ("read_heavy", "heavy_ops", {"READ", "INSERT"}),
    "ycsb_increment": ("increment", "inc_ops", {"INCREMENT"}),
}


@pytest.fixture(scope="module")
def e2e(request, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    lab = request.getfixturevalue("lab_root")(spec_with_port(SPEC.read_text(encoding="utf-8")), lab=LAB)
    link_apache_hbase(lab.root)  # the hbase-onheap variant runs where HBase is fetched
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=1200)


def _summary(e2e: FinishedRun, phase: str, variant: str = VARIANT) -> dict[str, Any]:
    path = e2e.run / variant / "client" / f"{phase}-localhost.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_run_completes_and_loads_both_tables(e2e: FinishedRun) -> None:
    assert_run_completed(e2e)
    p = e2e.params
    assert VARIANT in available_variants(e2e)
    for variant in available_variants(e2e):
        load, counters = _summary(e2e, "load", variant), _summary(e2e, "load_counters", variant)
        assert (load["tool"], load["command"], load["operations"]) == ("ycsb", "load", p["records"]), variant
        assert (counters["command"], counters["operations"]) == ("load", p["inc_records"]), variant
        assert not load.get("failed") and not counters.get("failed"), variant


def test_every_step_did_its_operations_at_its_threads(e2e: FinishedRun) -> None:
    p = e2e.params
    assert p["max_s"] == 0  # no time cap at ci: each step runs exactly its operationcount
    for variant in available_variants(e2e):
        _every_step_did_its_operations(e2e, variant)


def _every_step_did_its_operations(e2e: FinishedRun, variant: str) -> None:
    p = e2e.params
    for workload, (prefix, ops, kinds) in WORKLOADS.items():
        for i in (1, 2, 3):
            s = _summary(e2e, f"{prefix}_{i}", variant)
            where = (variant, workload, i)
            assert (s["tool"], s["command"]) == ("ycsb", "run"), where
            assert s["threads"] == p[f"threads_{i}"], where
            assert s["operations"] == p[ops], where
            assert sum(o["operations"] for o in s["ops"].values()) == p[ops], where
            assert set(s["ops"]) <= kinds and kinds & set(s["ops"]), (where, s["ops"].keys())
            assert not s.get("failed"), (where, s["failed"])
            assert s["throughput"] > 0 and s["latency_us"]["mean"] > 0, where
            assert (e2e.run / variant / "client" / f"{prefix}_{i}-localhost.hlog").is_file(), where


def test_report_has_the_sweeps_and_every_claim_is_judged(e2e: FinishedRun) -> None:
    p = e2e.params
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert "## Thread sweeps" in report and "| sweep | variant | peak TPS |" in report
    for workload in WORKLOADS:
        assert f"### {workload}\n" in report, workload
        for i, exp in enumerate([f"{workload}_t1", f"{workload}_t2", workload], start=1):
            assert f"| {exp} | {p[f'threads_{i}']} | " in report, exp
        assert (e2e.run / f"figures/sweep-{workload}.png").is_file(), workload
    claims = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert set(claims) == {c.id for c in e2e.spec.claims}
    host = e2e.manifest["hosts"][0]
    run = load_run(e2e.run)
    for claim in e2e.spec.claims:
        judged = claims[claim.id]
        if not claim.measurable:
            assert judged["verdict"] == NOT_MEASURABLE and judged["why"] == claim.why, claim.id
            continue
        variant = VARIANT if claim.subject == "engine" else e2e.spec.subjects[claim.subject][VARIANT]
        if variant not in available_variants(e2e):  # Apache HBase's twin where HBase is not fetched
            assert judged["verdict"] == NOT_MEASURABLE, claim.id
            continue
        # the value the ceiling needs is in the run, whatever the host
        m = measure(run, variant, str(claim.experiment))
        assert m.problem is None and claim.metric in m.values, (claim.id, m.problem)
        large = host["cores"] >= claim.needs["cores"] and host["memory_mb"] >= 1024 * claim.needs["memory_gb"]
        if large:
            assert judged["n"] == 1 and judged["quantity"] == [pytest.approx(m.values[claim.metric])], (
                claim.id
            )
            assert judged["verdict"] in (REPRODUCED, NOT_REPRODUCED, INCONCLUSIVE), claim.id  # a bound
        else:
            assert judged["verdict"] == NOT_MEASURABLE and judged["why"].startswith("needs "), claim.id


def test_notebook_reads_the_real_run(e2e: FinishedRun) -> None:
    nb, text = execute_notebook(REPO / "notebooks" / f"{LAB}.ipynb", e2e.run)
    for workload in WORKLOADS:
        assert f"| {workload} |" in text, workload
    for claim in e2e.spec.claims:
        assert f"| {claim.id} |" in text, claim.id
    assert sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])) >= 1
