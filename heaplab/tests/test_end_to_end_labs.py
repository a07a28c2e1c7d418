"""Labs 07 and 08 end to end at --scale ci: the real spec, CLI, ansible-playbook, playbooks and engine.

As test_end_to_end.py does for lab 03: ``python -m heaplab run <lab> --scale ci --report`` at a throw-away
root whose spec is the real one plus ``hbase.regionserver.port: "<free port>"`` under its ``site:``.  Only
the variants the spec marks available run (the others wait for their engine feature and are recorded as
unavailable); the tests judge whatever ran:
- every available variant completed, and the engine-site.xml it started with carries its own overrides;
- lab 07: the measured write phase wrote the ci rows into a table created with the variant's durability;
- lab 08: both `admin metrics` reports were collected and parse, and the memstore holds the ci data set;
- claims are judged on the run's values exactly when all their variants ran (else not measurable here).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heaplab.analysis.memory import load_admin_metrics
from heaplab.analysis.metrics import flushed_phase
from heaplab.judge.verdict import NOT_MEASURABLE
from heaplab.tests.conftest import REPO, FinishedRun
from heaplab.tests.judged import judged_ok
from heaplab.tests.shared_runs import (
    assert_run_completed,
    available_variants,
    only_variants,
    run_lab_at_ci,
    variant_names,
)
from heaplab.tests.test_end_to_end import spec_with_port

LABS = ("07-write-pipeline", "08-memstore-memory")
# Three of each lab's five variants run in CI, so that `make test` stays under 30 minutes on 2 cores; between
# them every switch is on and off once, and some claims are judged (lab 07: both MVCC orders, both WAL
# durabilities, the staged path against its baseline; lab 08: no MSLAB, MSLAB with the flattened chunk map,
# the off-heap memstore). The others are unavailable in the test's copy of the spec only, and the claims
# that need them must then read `not measurable here`.
CI_VARIANTS = {
    "07-write-pipeline": ("async-legacy-mvcc", "sync-preassign", "sync-staged"),
    "08-memstore-memory": ("plain", "mslab-chunkmap", "offheap-skiplist"),
}


@pytest.fixture(scope="module", params=LABS)
def e2e(request, lab_root, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    lab_name = request.param
    real = (REPO / "labs" / lab_name / "experiment.yml").read_text(encoding="utf-8")
    assert set(CI_VARIANTS[lab_name]) <= set(variant_names(real)), lab_name
    lab = lab_root(only_variants(spec_with_port(real), CI_VARIANTS[lab_name]), lab=lab_name)
    return run_lab_at_ci(lab, lab_name, tmp_path_factory.mktemp("runs"), timeout=1200)


def test_run_completes(e2e: FinishedRun) -> None:
    assert_run_completed(e2e)


def _site_xml(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_each_variant_started_with_its_own_overrides(e2e: FinishedRun) -> None:
    for name in available_variants(e2e):
        xml = _site_xml(e2e.run / name / "conf/engine-site.xml")
        for key, value in e2e.spec.site_for(e2e.params, e2e.spec.variants[name]).items():
            assert f"<name>{key}</name>" in xml and f"<value>{value}</value>" in xml, (name, key)


def test_measured_phases_left_their_files(e2e: FinishedRun) -> None:
    ci = e2e.params
    for name in available_variants(e2e):
        client = e2e.run / name / "client"
        variant = e2e.spec.variants[name]
        for exp in e2e.spec.experiments:
            pe = e2e.spec.measured_phase(exp)
            if pe is not None:
                summary = json.loads((client / f"{pe.name}-localhost.json").read_text(encoding="utf-8"))
                assert summary["rows"] == ci["threads"] * ci["rows"] and summary["throughput"] > 0
            memory = e2e.spec.memory_phase(exp)
            if memory is not None:
                after = load_admin_metrics(client / f"{memory.name}-localhost.json")
                before = load_admin_metrics(client / f"{memory.baseline}-localhost.json")
                assert after.gc_requested and before.cells == 0
                assert after.cells == ci["threads"] * ci["rows"], name
                flushed = flushed_phase(e2e.spec, memory) if memory.measures_memory else None
                if flushed is not None:  # lab 08: the table flushed, nothing left in its memstores
                    report = load_admin_metrics(client / f"{flushed.name}-localhost.json")
                    assert report.gc_requested and report.cells == 0 and report.memstore_data == 0, name
                    assert report.onheap_chunks == report.offheap_chunks == 0, name
        created = (client / "create-localhost.out").read_text(encoding="utf-8")
        assert created.startswith("created table TestTable"), created
        if "durability" in variant.vars:  # the table keeps the variant's durability: pe must not recreate it
            assert f"durability {variant.vars['durability']}" in created, created
        for err in client.glob("*.err"):
            assert "recreating" not in err.read_text(encoding="utf-8"), err


def test_claims_are_judged_exactly_when_their_variants_ran(e2e: FinishedRun) -> None:
    claims = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert set(claims) == {c.id for c in e2e.spec.claims}
    available = set(available_variants(e2e))
    for claim in e2e.spec.claims:
        judged = claims[claim.id]
        needed = set(judged["measured"])
        if not claim.measurable:
            assert judged["verdict"] == NOT_MEASURABLE and judged["why"] == claim.why, claim.id
        elif needed <= available:  # judged on the one run's values, at whatever level they give
            assert judged["n"] == 1, (claim.id, judged["why"])
            assert judged_ok(judged), claim.id
            assert judged["ratio"] is not None or "*" not in str(claim.expect)
        else:
            assert judged["verdict"] == NOT_MEASURABLE, claim.id
            assert " is unavailable here: " in judged["why"]
