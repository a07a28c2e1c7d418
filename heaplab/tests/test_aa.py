"""A/A runs (heaplab.lab.aa): the claims of a variant against its twin, the spec an A/A run is read with, and
how the loaders keep A/A runs apart from the lab's own runs.  No run here: fabricated run directories."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from heaplab.analysis.metrics import measure_all
from heaplab.judge.claim_source import claims_to_judge
from heaplab.lab.aa import aa_claims, aa_spec, twin_name
from heaplab.lab.expectation import parse_expectation
from heaplab.lab.schema import Claim, Precondition, SpecError
from heaplab.lab.spec import load_spec
from heaplab.lab.subjects import ENGINE
from heaplab.runfiles.rundir import RunError, load_run, newest_run_of, run_name
from heaplab.runfiles.series import runs_to_judge
from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec

LAB07 = load_spec(REPO / "labs/07-write-pipeline/experiment.yml")


def test_twin_name_is_a_variant_name_of_the_expectations_and_the_playbook() -> None:
    twin = twin_name("sync-preassign")
    assert twin == "sync-preassign-aa"
    assert parse_expectation(f"sync-preassign >= 1.3 * {twin}").right == twin


def test_aa_claims_rewrite_every_claim_of_the_variants_experiments_and_keep_the_rest() -> None:
    variant, twin = "sync-preassign", "sync-preassign-aa"
    got = aa_claims(LAB07.claims, variant, twin, LAB07.variants_of)
    # sync-preassign is in both experiments: every claim between two variants of either is kept
    # (a claim's copies on its subjects, `<id>@<subject>`, are left out: rewritten they are the claim again)
    expected_ids = [
        c.id
        for c in LAB07.claims
        if c.measurable and parse_expectation(str(c.expect)).right and "@" not in c.id
    ]
    assert any("@" in c.id for c in LAB07.claims)  # lab 07 has copies on HBase 1.4 to leave out
    assert [c.id for c in got] == expected_ids and len(got) == 6
    by_id = {c.id: c for c in LAB07.claims}
    for c in got:
        original = by_id[c.id]
        exp = parse_expectation(str(original.expect))
        # the same claim (metric, kind, figure, source, tolerance, margin, ...), only the expectation differs
        assert c.expect == f"{variant} {exp.op} {exp.factor:g} * {twin}"
        assert c == dataclasses.replace(original, expect=c.expect)
    assert by_id["preassign-sync-wal"].expect == "sync-preassign >= 1.3 * sync-legacy-mvcc"
    assert {c.id: c.expect for c in got}["preassign-sync-wal"] == "sync-preassign >= 1.3 * sync-preassign-aa"


def test_aa_claims_drop_the_experiments_without_the_variant() -> None:
    got = aa_claims(LAB07.claims, "async-preassign", "async-preassign-aa", LAB07.variants_of)
    assert {c.experiment for c in got} == {"mvcc_preassign"}  # async-preassign is not in staged_write_path
    assert len(got) == 4
    assert aa_claims(LAB07.claims, "nowhere", "nowhere-aa", LAB07.variants_of) == []


def _claim(cid: str, expect: str, experiment: str = "e1", **kw: object) -> Claim:
    return Claim(id=cid, experiment=experiment, metric="throughput", expect=expect, **kw)  # type: ignore[arg-type]


def test_aa_claims_drop_constants_unmeasurable_claims_and_subject_copies() -> None:
    claims = [
        _claim("ratio", "a >= 1.5 * b", tolerance=0.3, margin=0.05, kind="inference", figure="1.5x"),
        _claim("ratio@apache-hbase", "ha >= 1.5 * hb", subject="apache-hbase"),
        _claim("constant", "a <= 10"),
        Claim(id="never", experiment=None, metric=None, expect=None, measurable=False, why="no target"),
        _claim("plain", "b < a"),
        _claim("other-experiment", "c < 0.5 * d", experiment="e2"),
    ]
    variants_of = {"e1": ["a", "b", "ha", "hb"], "e2": ["c", "d"]}.__getitem__
    got = aa_claims(claims, "b", "b-aa", variants_of)
    assert [(c.id, c.expect) for c in got] == [("ratio", "b >= 1.5 * b-aa"), ("plain", "b < b-aa")]
    assert (got[0].tolerance, got[0].margin, got[0].kind, got[0].figure) == (0.3, 0.05, "inference", "1.5x")


def test_aa_claims_on_another_server_and_preconditions() -> None:
    pre = (Precondition("gc_pause_fraction", "b >= 0.05", "the on-heap arm collects"),)
    claims = [
        _claim("gc", "a <= 0.5 * b", preconditions=pre),
        dataclasses.replace(_claim("copies", "a <= 0.5 * b"), metric="heap_copy_bytes_per_op"),
        dataclasses.replace(_claim("alloc", "a <= 0.5 * b"), metric="alloc_bytes_per_op"),
    ]
    variants_of = {"e1": ["a", "b"]}.__getitem__
    engine = aa_claims(claims, "a", "a-aa", variants_of, subject=ENGINE)
    assert [c.measurable for c in engine] == [True, True, True] and {c.subject for c in engine} == {ENGINE}
    assert engine[2].metric == "alloc_bytes_per_op"  # the engine's own counter on the engine
    # the precondition on the claim's right side is on the twin now
    assert engine[0].preconditions == (Precondition("gc_pause_fraction", "a-aa >= 0.05", pre[0].why),)
    hbase = aa_claims(claims, "a", "a-aa", variants_of, subject="apache-hbase")
    assert {c.subject for c in hbase} == {"apache-hbase"}
    assert hbase[0].measurable and not hbase[1].measurable
    assert "the engine's own instrumentation" in str(hbase[1].why)
    assert hbase[2].measurable and hbase[2].metric == "gc_alloc_bytes_per_op"  # read from the GC log


def test_aa_spec_adds_the_twin_beside_its_variant() -> None:
    spec = aa_spec(LAB07, "sync-preassign")
    names = list(spec.variants)
    assert names[names.index("sync-preassign") + 1] == "sync-preassign-aa"
    twin, original = spec.variants["sync-preassign-aa"], LAB07.variants["sync-preassign"]
    assert twin == dataclasses.replace(original, name="sync-preassign-aa", published=None)
    params = spec.params("ci")
    assert spec.site_for(params, twin) == spec.site_for(params, original)
    assert spec.server_jvm_flags(twin, params) == spec.server_jvm_flags(original, params)
    assert spec.phases_for(params, twin) == spec.phases_for(params, original)
    assert spec.variants_of("staged_write_path") == ["sync-preassign", "sync-preassign-aa", "sync-staged"]
    assert "sync-preassign-aa" in spec.variants_of("mvcc_preassign")
    assert spec.claims == aa_claims(LAB07.claims, "sync-preassign", "sync-preassign-aa", LAB07.variants_of)
    assert LAB07.variants_of("staged_write_path") == ["sync-preassign", "sync-staged"]  # untouched


def test_aa_spec_refuses_an_unknown_variant_and_a_taken_twin_name() -> None:
    with pytest.raises(SpecError, match="has no variant 'nope'"):
        aa_spec(LAB07, "nope")
    taken = aa_spec(LAB07, "sync-preassign")
    with pytest.raises(SpecError, match="already has a variant 'sync-preassign-aa'"):
        aa_spec(taken, "sync-preassign")


def _aa_run(dest: Path, variant: str = "hbase1-onheap") -> Path:
    """A fabricated lab 03 run of ``variant`` and its twin (a copy of its directory), as `--aa` leaves it."""
    fabricate_run(dest, lab03_spec(), {variant: Shape()})
    twin = twin_name(variant)
    shutil.copytree(dest / variant, dest / twin)
    manifest = json.loads((dest / "run.json").read_text(encoding="utf-8"))
    manifest["variants"][twin] = {**manifest["variants"][variant], "log": f"{twin}/ansible.log"}
    manifest["aa"] = {"variant": variant, "twin": twin}
    (dest / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return dest


def test_an_aa_run_is_loaded_with_the_twin_and_the_aa_claims(tmp_path: Path) -> None:
    run = load_run(
        _aa_run(tmp_path / run_name("03-offheap-write", "ci", "20261129T100000Z", "hbase1-onheap"))
    )
    assert run.path.name == "03-offheap-write-aa-hbase1-onheap-ci-20261129T100000Z"
    assert "hbase1-onheap-aa" in run.spec.variants_of("single_put")
    assert run.spec.claims and all(
        str(c.expect).startswith("hbase1-onheap ") and str(c.expect).endswith(" hbase1-onheap-aa")
        for c in run.spec.claims
    )
    claims, _ = claims_to_judge(run)  # what the report judges: the A/A claims
    assert claims == run.spec.claims
    measured = measure_all(run)["single_put"]
    assert measured["hbase1-onheap-aa"].problem is None
    assert measured["hbase1-onheap-aa"].values == measured["hbase1-onheap"].values  # a copy, here


def test_an_aa_run_that_does_not_fit_its_spec_is_a_run_error(tmp_path: Path) -> None:
    path = _aa_run(tmp_path / "run")
    manifest = json.loads((path / "run.json").read_text(encoding="utf-8"))
    manifest["aa"] = {"variant": "gone", "twin": "gone-aa"}
    (path / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(RunError, match="does not fit the spec as run"):
        load_run(path)


def test_aa_runs_are_judged_only_with_aa_runs_of_the_same_variant(tmp_path: Path) -> None:
    aa = _aa_run(tmp_path / "aa")
    plain = fabricate_run(tmp_path / "plain", lab03_spec(), {"hbase1-onheap": Shape()})
    with pytest.raises(RunError, match="an A/A run is judged only with A/A runs of the same variant"):
        runs_to_judge(aa, [plain])
    with pytest.raises(RunError, match="no A/A run"):
        runs_to_judge(plain, [aa])
    assert len(runs_to_judge(aa, [_aa_run(tmp_path / "aa2")])) == 2


def test_the_notebooks_newest_run_of_a_lab_is_never_an_aa_run(tmp_path: Path) -> None:
    lab = "03-offheap-write"
    older = fabricate_run(tmp_path / f"{lab}-ci-20261129T100000Z", lab03_spec(), {"hbase1-onheap": Shape()})
    _aa_run(tmp_path / run_name(lab, "ci", "20261129T110000Z", "hbase1-onheap"))
    assert newest_run_of(lab, tmp_path) == older
