"""heaplab.lab.subjects: a lab's claims judged again on Apache HBase's variants; what refuses a bad
mapping."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from heaplab.lab.schema import SpecError
from heaplab.lab.spec import load_spec, parse_spec
from heaplab.report.verdict_table import tally, to_markdown
from heaplab.tests.conftest import REPO

SPEC = {
    "lab": "x",
    "reproduces": [
        {"doc": "000", "experiment": "put", "variants": ["onheap", "offheap", "min0", "hb1", "hb2"]},
        {"doc": "002", "experiment": "engine_only", "variants": ["onheap", "offheap"]},
    ],
    "variants": {
        "onheap": {"profile": "hbase1-onheap"},
        "offheap": {"profile": "hbase2-offheap"},
        "min0": {"profile": "hbase2-offheap"},
        "hb1": {"server": "apache-hbase"},
        "hb2": {"server": "apache-hbase"},
    },
    "scales": {"ci": {"threads": 2, "rows": 10}},
    "phases": [
        {"name": "w", "tool": "pe", "measure": ["put", "engine_only"], "args": "--rows={rows} randomWrite 2"}
    ],
    "subjects": {"apache-hbase": {"onheap": "hb1", "offheap": "hb2"}},
    "claims": [
        {"id": "p999", "experiment": "put", "metric": "latency_p999", "expect": "offheap <= 0.11 * onheap",
         "figure": "45 -> 5 ms", "source": "HBase 2.0 end-to-end off-heap", "says": "P999 fell"},
        {"id": "alloc", "experiment": "put", "metric": "alloc_bytes_per_op",
         "expect": "offheap <= 0.45 * onheap"},
        {"id": "copies", "experiment": "put", "metric": "heap_copy_bytes_per_op",
         "expect": "offheap <= 0.5 * onheap"},
        {"id": "tail", "experiment": "put", "metric": "latency_p999_over_avg", "expect": "onheap >= 100",
         "null": 1},
        {"id": "min0", "experiment": "put", "metric": "throughput", "expect": "min0 >= 1.0 * onheap"},
        {"id": "other", "experiment": "engine_only", "metric": "throughput",
         "expect": "offheap >= 1.2 * onheap"},
        {"id": "gone", "measurable": False, "why": "needs JDK 7"},
    ],
}  # fmt: skip


def _spec(**changes):
    raw = copy.deepcopy(SPEC)
    raw.update(changes)
    return parse_spec(raw)


def test_each_claim_is_judged_again_on_the_subject_right_after_its_engine_claim() -> None:
    ids = [c.id for c in _spec().claims]
    assert ids == [
        "p999", "p999@apache-hbase", "alloc", "alloc@apache-hbase", "copies", "copies@apache-hbase",
        "tail", "tail@apache-hbase", "min0", "other", "gone",
    ]  # fmt: skip
    claims = {c.id: c for c in _spec().claims}
    on_hbase = claims["p999@apache-hbase"]
    assert (on_hbase.expect, on_hbase.subject, on_hbase.metric) == (
        "hb2 <= 0.11 * hb1",
        "apache-hbase",
        "latency_p999",
    )
    assert (on_hbase.figure, on_hbase.source, on_hbase.says) == (
        "45 -> 5 ms",
        "HBase 2.0 end-to-end off-heap",
        "P999 fell",
    )
    assert claims["tail@apache-hbase"].expect == "hb1 >= 100" and claims["tail@apache-hbase"].null == 1
    assert claims["p999"].subject == "engine"


def test_a_claim_on_an_engine_only_counter_is_not_measurable_on_the_subject() -> None:
    copies = {c.id: c for c in _spec().claims}["copies@apache-hbase"]
    assert not copies.measurable
    assert (
        copies.why
        == "apache-hbase has no counter of heap_copy_bytes_per_op: the engine's own instrumentation counts it"
    )


def test_a_claim_on_the_engines_allocation_counter_is_judged_on_the_gc_log_on_the_subject() -> None:
    claims = {c.id: c for c in _spec().claims}
    alloc = claims["alloc@apache-hbase"]
    assert alloc.measurable and alloc.metric == "gc_alloc_bytes_per_op"
    assert alloc.expect == "hb2 <= 0.45 * hb1"
    assert str(alloc.why).startswith("from the GC log: gc_alloc_bytes_per_op")
    assert "apache-hbase has no counter of alloc_bytes_per_op" in str(alloc.why)
    assert (claims["alloc"].metric, claims["alloc"].why) == ("alloc_bytes_per_op", None)  # the engine's own


def test_claims_without_a_counterpart_or_not_compared_there_stay_engine_only() -> None:
    ids = {c.id for c in _spec().claims}
    assert "min0@apache-hbase" not in ids  # min0 has no counterpart
    assert "other@apache-hbase" not in ids  # engine_only does not compare hb1 and hb2
    assert "gone@apache-hbase" not in ids  # not measurable anywhere


@pytest.mark.parametrize(
    ("subjects", "message"),
    [
        ({"apache-hbase": {"onheap": "nope"}}, "subjects.apache-hbase: unknown variant 'nope'"),
        ({"apache-hbase": {"hb1": "hb2"}}, "subjects.apache-hbase: 'hb1' is not an engine variant"),
        ({"engine": {"onheap": "hb1"}}, "subjects.engine: 'engine' is the subject of the claims as written"),
        ({"apache-hbase": []}, "subjects.apache-hbase: expected {engine variant: its counterpart}"),
        (["apache-hbase"], "subjects must map a subject name"),
    ],
)
def test_a_bad_mapping_is_one_line_naming_it(subjects, message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("{", r"\{").replace("}", r"\}")):
        _spec(subjects=subjects)


def test_the_labs_with_cms_variants_judge_their_claims_on_apache_hbase() -> None:
    for lab, pairs in {
        "01-tail-latency": {"hbase1-onheap": "cms-onheap-1.x"},
        "03-offheap-write": {"hbase1-onheap": "cms-onheap-1.x", "hbase2-offheap": "cms-offheap-2.x"},
        "04-offheap-read": {"hbase1-onheap": "cms-onheap-1.x", "hbase2-offheap": "cms-offheap-2.x"},
    }.items():
        spec = load_spec(REPO / "labs" / lab / "experiment.yml")
        assert spec.subjects["apache-hbase"] == pairs, lab
        assert all(spec.variants[v].server == "apache-hbase" for v in pairs.values()), lab
        assert any(c.id.endswith("@apache-hbase") and c.measurable for c in spec.claims), lab


def test_the_off_heap_labs_judge_the_article_on_hbase_14_against_26() -> None:
    """The article's 1.x and 2.x as open-source releases: HBase 1.4.14 for the engine's 1.x variant and, where
    the lab has a 2.x, HBase 2.6.4 as it ships; each lab's claims are judged on that subject too."""
    for lab, subject in {
        "01-tail-latency": "apache-hbase-1.4",
        "03-offheap-write": "apache-hbase-1.4-2.6",
        "04-offheap-read": "apache-hbase-1.4-2.6",
    }.items():
        spec = load_spec(REPO / "labs" / lab / "experiment.yml")
        pairs = spec.subjects[subject]
        assert spec.variants[pairs["hbase1-onheap"]].hbase_version == "1.4.14", lab
        if "hbase2-offheap" in pairs:
            assert spec.variants[pairs["hbase2-offheap"]].hbase_version == "2.6.4", lab
        assert any(c.id.endswith(f"@{subject}") and c.measurable for c in spec.claims), lab


def test_verdicts_count_each_subject_in_a_row_of_its_own(tmp_path: Path) -> None:
    run = tmp_path / "x-ci-1"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({"format": 1, "lab": "x", "scale": "ci", "variants": {}}))
    raw = copy.deepcopy(SPEC)
    (run / "experiment.yml").write_text(json.dumps(raw))
    claims = {
        "p999": {"experiment": "put", "verdict": "reproduced", "subject": "engine"},
        "p999@apache-hbase": {"experiment": "put", "verdict": "direction", "subject": "apache-hbase"},
        "other": {"experiment": "engine_only", "verdict": "not reproduced"},  # older files: no subject
    }
    (run / "claims.json").write_text(json.dumps({"claims": claims}))
    tables = tally([run])  # an older claims.json: no kind (article), no doc (the experiment's)
    assert list(tables) == ["article"]
    table = tables["article"]
    article, lift = "HBase 2.0 end-to-end off-heap", "Lift the Ceiling of Throughputs"
    assert table.rows[(article, "engine")] == {"reproduced": 1}
    assert table.rows[(article, "apache-hbase")] == {"direction": 1}  # a level of its time: its own column
    assert table.rows[(lift, "engine")] == {"not reproduced": 1}
    rows = [line.split(" | ")[:2] for line in to_markdown(tables).splitlines()[4:]]
    assert rows == [[f"| {article}", "engine"], [f"| {article}", "apache-hbase"], [f"| {lift}", "engine"]]
