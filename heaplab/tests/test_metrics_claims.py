"""Metrics and verdicts, recomputed from raw files; fabricated runs show the verdicts can go both ways."""

import json
import math
import statistics
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.analysis.metrics import measure
from heaplab.judge.claim_results import ClaimResult
from heaplab.judge.run_analysis import analyse
from heaplab.judge.verdict import (
    INCONCLUSIVE,
    LARGER,
    NO_EFFECT,
    NOT_MEASURABLE,
    OPPOSITE,
    REPRODUCED,
    region_label,
    regions,
)
from heaplab.runfiles.rundir import load_run
from heaplab.runfiles.runjson import write_run_json
from heaplab.tests.conftest import PUBLISHED
from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec


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


def test_claims_with_an_unavailable_variant_are_not_measurable_here(fixture_run: Path) -> None:
    results = analyse(fixture_run, PUBLISHED).claims
    assert results, "the lab has claims"
    for r in results:
        assert r.verdict == NOT_MEASURABLE
        assert "hbase2-offheap is unavailable here: the off-heap write path" in r.why  # the spec's why
        assert r.measured["hbase2-offheap"] is None and r.judgement is None


def _series(tmp_path: Path, onheap: Shape, offheap: Shape, name: str) -> list[Path]:
    """Three fabricated runs (seeds 3-5) of the same two shapes: a series, judged together."""
    shapes = {"hbase1-onheap": onheap, "hbase2-offheap": offheap}
    spec = lab03_spec(offheap_available=True)
    return [fabricate_run(tmp_path / f"{name}-{seed}", spec, shapes, seed=seed) for seed in (3, 4, 5)]


def _judged(runs: list[Path]) -> dict[str, ClaimResult]:
    return {r.claim.id: r for r in analyse(runs[0], PUBLISHED, with_runs=runs[1:]).claims}


def test_large_p999_drop_is_larger_than_the_article(tmp_path: Path) -> None:
    """60 ms young pauses -> 2 ms: a P99.9 about 0.04x, far beyond the fabricated article's 0.5x. Two young
    GCs in the off-heap window are too few to judge a rate by (Poisson), whatever their ratio."""
    results = _judged(
        _series(tmp_path, Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=2, gc_pause_ms=2), "big")
    )
    assert results["p999-drop"].verdict == LARGER, results["p999-drop"].why
    fewer = results["fewer-young-gcs"]
    assert fewer.verdict == INCONCLUSIVE and "too few young GCs to judge: 2 in a run" in fewer.why
    assert fewer.events and all(row == {"hbase2-offheap": 2, "hbase1-onheap": 8} for row in fewer.events)


def test_no_drop_is_no_effect_or_inconclusive(tmp_path: Path) -> None:
    """Three runs with the same GC in both variants: the same 20 young GCs give a rate ratio of exactly 1
    (`no effect`, an equivalence); the p99.9 ratios scatter around 1 more widely than the no-effect margin
    (`inconclusive`, never the article's effect). One run alone is only indicative."""
    same = Shape(young_gcs=20, gc_pause_ms=45)
    runs = _series(tmp_path, same, same, "flat")
    results = _judged(runs)
    p999 = results["p999-drop"]
    assert p999.verdict == INCONCLUSIVE, p999.why
    assert p999.judgement is not None and p999.judgement.n == 3 and "over 3 runs" in p999.judgement.band
    assert p999.judgement.low <= 1 <= p999.judgement.high
    assert results["fewer-young-gcs"].verdict == NO_EFFECT
    alone = {r.claim.id: r for r in analyse(runs[0], PUBLISHED).claims}["p999-drop"]
    assert alone.verdict == INCONCLUSIVE and "indicative only" in alone.why


def _raw_p999_ratio(run: Path) -> float:
    p999 = {
        v: json.loads((run / v / "client/single_put-localhost.json").read_text())["latency_us"]["p999"]
        for v in ("hbase1-onheap", "hbase2-offheap")
    }
    return p999["hbase2-offheap"] / p999["hbase1-onheap"]


@pytest.mark.parametrize(
    ("onheap", "offheap", "level"),
    [
        (Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=2, gc_pause_ms=2), LARGER),  # ~0.04x
        (Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=8, gc_pause_ms=35), REPRODUCED),  # ~0.6x
        (Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=8, gc_pause_ms=50), INCONCLUSIVE),  # ~0.8x
        (Shape(young_gcs=3, gc_pause_ms=10), Shape(young_gcs=8, gc_pause_ms=60), OPPOSITE),  # ~7x
    ],
)
def test_verdict_agrees_with_raw_summaries(tmp_path: Path, onheap: Shape, offheap: Shape, level: str) -> None:
    """Recompute the p999 verdict straight from the summary files of three runs: Student's t on the logs
    of the ratios, then the two regions of docs/analysis.md (the fabricated article's 0.5x +-15%, no effect
    1 +-5%); the four shapes give four labels."""
    runs = _series(tmp_path, onheap, offheap, "mixed")
    logs = [math.log(_raw_p999_ratio(r)) for r in runs]
    mean, sd = statistics.fmean(logs), statistics.stdev(logs)
    low, high = math.exp(mean - 4.303 * sd / math.sqrt(3)), math.exp(mean + 4.303 * sd / math.sqrt(3))
    result = _judged(runs)["p999-drop"]
    assert result.verdict == region_label(low, high, regions(0.5, 1.0)) == level, result.why
    assert result.ratio == pytest.approx(math.exp(mean))
    assert result.judgement is not None
    assert (result.judgement.low, result.judgement.high) == (pytest.approx(low), pytest.approx(high))
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
