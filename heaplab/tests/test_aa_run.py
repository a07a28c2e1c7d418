"""An A/A run end to end: `heaplab run 07-write-pipeline --scale ci --aa sync-preassign --repeat 1` through
the REAL ansible-playbook, playbooks and engine (as test_end_to_end_labs.py runs lab 07), at a throw-away
root whose spec is the real one plus a free port.

sync-preassign runs twice, as itself and as its twin sync-preassign-aa, in the run's random order; nothing
else of the lab runs.  run.json records aa, order_seed and variant_order; both variant directories hold the
measured write; the run, loaded as the report loads it, measures the twin and judges the A/A claims."""

from __future__ import annotations

import json

import pytest

from heaplab.judge.run_analysis import judge_runs
from heaplab.judge.verdict import NOT_MEASURABLE
from heaplab.lab.aa import aa_claims
from heaplab.lab.published import load_published
from heaplab.run.options import variant_order
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import PUBLISHED, REPO, FinishedRun
from heaplab.tests.shared_runs import run_lab_at_ci
from heaplab.tests.test_end_to_end import spec_with_port

LAB = "07-write-pipeline"
VARIANT, TWIN = "sync-preassign", "sync-preassign-aa"


@pytest.fixture(scope="module")
def aa_run(lab_root, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    real = (REPO / "labs" / LAB / "experiment.yml").read_text(encoding="utf-8")
    lab = lab_root(spec_with_port(real), lab=LAB)
    extra = ["--aa", VARIANT, "--repeat", "1"]
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=300, extra=extra, report=False)


def test_the_aa_run_completes_under_its_own_name(aa_run: FinishedRun) -> None:
    assert aa_run.proc.returncode == 0, aa_run.output()
    assert "Traceback" not in aa_run.proc.stderr
    assert aa_run.run.name.startswith(f"{LAB}-aa-{VARIANT}-ci-")
    m = aa_run.manifest
    assert m["status"] == "complete" and "series" not in m  # one run: no series
    assert aa_run.lab.leftover_processes() == [], "a server outlived the run"


def test_run_json_records_the_aa_pair_and_the_order_run(aa_run: FinishedRun) -> None:
    m = aa_run.manifest
    assert m["aa"] == {"variant": VARIANT, "twin": TWIN}
    assert m["order"] == "random" and isinstance(m["order_seed"], int)
    assert sorted(m["variant_order"]) == [VARIANT, TWIN]
    assert m["variant_order"] == variant_order([VARIANT, TWIN], m["order_seed"], 1)  # drawn again
    seed_line = f"variant order (random, seed {m['order_seed']}, repeat 1): {', '.join(m['variant_order'])}"
    assert seed_line in aa_run.proc.stdout
    first, second = m["variant_order"]
    out = aa_run.proc.stdout
    assert out.index(f"[{first}] variant 1 of 2") < out.index(f"[{second}] variant 2 of 2")
    # only the pair ran; the lab's other variants say why not
    for name, entry in m["variants"].items():
        if name in (VARIANT, TWIN):
            assert entry["status"] == "complete" and entry["error"] is None, name
        else:
            assert entry["status"] == "unavailable" and entry["why"] == f"not selected (--aa {VARIANT})"
    # the twin is configured as its variant is
    twin, original = m["variants"][TWIN], m["variants"][VARIANT]
    for key in ("profile", "server_jvm_flags", "client_jvm_flags", "site", "vars"):
        assert twin[key] == original[key], key
    assert original["site"]["hbase.hregion.mvcc.preassign"] == "true"


def test_both_variant_directories_hold_the_measured_write(aa_run: FinishedRun) -> None:
    ci = aa_run.params
    started = {}
    for name in (VARIANT, TWIN):
        vdir = aa_run.run / name
        summary = json.loads((vdir / "client/write-localhost.json").read_text(encoding="utf-8"))
        assert summary["rows"] == ci["threads"] * ci["rows"] and summary["throughput"] > 0, name
        vars_ = json.loads((vdir / "ansible-vars.json").read_text(encoding="utf-8"))
        assert vars_.pop("heaplab_variant") == name
        started[name] = (vars_, (vdir / "conf/engine-site.xml").read_text(encoding="utf-8"))
    assert started[VARIANT] == started[TWIN]  # the same playbook input and server configuration


def test_the_loaded_run_measures_the_twin_and_judges_the_aa_claims(aa_run: FinishedRun) -> None:
    run = load_run(aa_run.run)
    assert run.spec.variants_of("staged_write_path") == [VARIANT, TWIN, "sync-staged"]
    expected = aa_claims(aa_run.spec.claims, VARIANT, TWIN, run.spec.variants_of)
    assert [c.id for c in run.spec.claims] == [c.id for c in expected] and len(expected) == 6
    measured, results = judge_runs([run], load_published(PUBLISHED))
    for experiment in ("mvcc_preassign", "staged_write_path"):
        assert measured[0][experiment][TWIN].problem is None
        assert measured[0][experiment][TWIN].values["throughput"] > 0
    for r in results:
        assert str(r.claim.expect).endswith(f"* {TWIN}"), r.claim.expect
        assert r.verdict != NOT_MEASURABLE and r.judgement is not None and r.judgement.n == 1, r.why
