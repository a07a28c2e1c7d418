"""Metrics and verdicts, recomputed from raw files; fabricated runs show the verdicts can go both ways."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.analysis import analyse
from heaplab.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from heaplab.metrics import measure
from heaplab.rundir import load_run
from heaplab.runjson import write_run_json
from heaplab.tests.conftest import PUBLISHED
from heaplab.tests.fabricate import Shape


def _verdicts(run_dir: Path) -> dict[str, str]:
    return {r.claim.id: r.verdict for r in analyse(run_dir, PUBLISHED).claims}


def test_fixture_metrics_come_from_the_summary(fixture_run: Path) -> None:
    raw = json.loads((fixture_run / "hbase1-onheap/client/single_put-localhost.json").read_text())
    m = measure(load_run(fixture_run), "hbase1-onheap", "single_put")
    assert m.problem is None
    assert m.values["throughput"] == raw["throughput"]
    for metric, key in (("latency_avg", "mean"), ("latency_p99", "p99"), ("latency_p999", "p999")):
        assert m.values[metric] == pytest.approx(raw["latency_us"][key] / 1000)
    assert m.window_ms == (raw["start_epoch_ms"], raw["end_epoch_ms"])


def test_unavailable_variant_has_no_numbers(fixture_run: Path) -> None:
    m = measure(load_run(fixture_run), "hbase2-offheap", "single_put")
    assert m.values == {}
    assert m.problem is not None and m.problem.startswith("not yet available: ")


def test_claims_with_an_unavailable_variant_are_inconclusive(fixture_run: Path) -> None:
    results = analyse(fixture_run, PUBLISHED).claims
    assert results, "the lab has claims"
    for r in results:
        assert r.verdict == INCONCLUSIVE
        assert "hbase2-offheap" in r.why and "not yet available" in r.why
        assert r.measured["hbase2-offheap"] is None


def test_large_p999_drop_is_reproduced(make_pair: Callable[..., Path]) -> None:
    run = make_pair(Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=2, gc_pause_ms=2))
    v = _verdicts(run)
    assert v["p999-drop"] == REPRODUCED
    assert v["fewer-young-gcs"] == REPRODUCED


def test_no_drop_is_not_reproduced(make_pair: Callable[..., Path]) -> None:
    run = make_pair(Shape(young_gcs=6, gc_pause_ms=45), Shape(young_gcs=6, gc_pause_ms=45))
    v = _verdicts(run)
    assert v["p999-drop"] == NOT_REPRODUCED
    assert v["fewer-young-gcs"] == NOT_REPRODUCED


def test_verdict_agrees_with_raw_summaries(make_pair: Callable[..., Path]) -> None:
    """Recompute the p999 verdict straight from the two summary files."""
    run = make_pair(Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=3, gc_pause_ms=30), name="mixed")
    p999 = {
        v: json.loads((run / v / "client/single_put-localhost.json").read_text())["latency_us"]["p999"] / 1000
        for v in ("hbase1-onheap", "hbase2-offheap")
    }
    expected = REPRODUCED if p999["hbase2-offheap"] <= 0.5 * p999["hbase1-onheap"] else NOT_REPRODUCED
    result = next(r for r in analyse(run, PUBLISHED).claims if r.claim.id == "p999-drop")
    assert result.verdict == expected
    assert result.measured["hbase2-offheap"] == pytest.approx(p999["hbase2-offheap"])
    assert result.article == {"hbase2-offheap": 5.0, "hbase1-onheap": 45.0}
    assert result.article_holds is True


def test_failed_variant_makes_claims_inconclusive(make_pair: Callable[..., Path]) -> None:
    run = make_pair(Shape(), Shape(status="failed", error="ansible-playbook exited with 2"))
    results = analyse(run, PUBLISHED).claims
    assert {r.verdict for r in results} == {INCONCLUSIVE}
    assert all("exited with 2" in r.why for r in results)


def test_missing_variant_and_missing_metric_are_inconclusive(make_pair: Callable[..., Path]) -> None:
    run = make_pair(Shape(), Shape(young_gcs=0))
    manifest = json.loads((run / "run.json").read_text())
    spec_text = (run / "experiment.yml").read_text()
    # A claim on the average young pause: hbase2-offheap had no young GC in its window, so no value.
    (run / "experiment.yml").write_text(spec_text.replace("metric: throughput", "metric: young_gc_avg_pause"))
    v = _verdicts(run)
    assert v["throughput-kept"] == INCONCLUSIVE
    del manifest["variants"]["hbase1-onheap"]
    write_run_json(run, manifest)
    assert set(_verdicts(run).values()) == {INCONCLUSIVE}
