"""Metrics and verdicts, recomputed from raw files; fabricated runs show the verdicts can go both ways."""

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.analysis import analyse
from heaplab.claims import DIRECTION, INCONCLUSIVE, NOT_MEASURABLE, NOT_REPRODUCED, REPRODUCED
from heaplab.metrics import measure
from heaplab.rundir import load_run
from heaplab.runjson import write_run_json
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


def test_large_p999_drop_is_reproduced(make_pair: Callable[..., Path]) -> None:
    run = make_pair(Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=2, gc_pause_ms=2))
    v = _verdicts(run)
    assert v["p999-drop"] == REPRODUCED
    assert v["fewer-young-gcs"] == REPRODUCED


def test_no_drop_is_not_reproduced(tmp_path: Path) -> None:
    """Three runs (seeds) with the same GC in both variants: p99.9 ratios near 1 (20 young GCs in the
    window keep their spread small) put half the article's effect (0.71x) outside the interval.  One such
    run alone is inconclusive: the assumed +-50% band of a tail metric around a ratio of 1 holds 0.71x."""
    same = Shape(young_gcs=20, gc_pause_ms=45)
    runs = [
        fabricate_run(
            tmp_path / f"flat-{seed}",
            lab03_spec(offheap_available=True),
            {"hbase1-onheap": same, "hbase2-offheap": same},
            seed=seed,
        )
        for seed in (3, 4, 5)
    ]
    results = {r.claim.id: r for r in analyse(runs[0], PUBLISHED, with_runs=runs[1:]).claims}
    p999 = results["p999-drop"]
    assert p999.verdict == NOT_REPRODUCED, p999.why
    assert p999.judgement is not None and p999.judgement.n == 3 and "over 3 runs" in p999.judgement.band
    assert p999.judgement.low <= 1 and p999.judgement.high < 0.5**-0.5
    assert results["fewer-young-gcs"].verdict == NOT_REPRODUCED  # the same 20 young GCs: ratio exactly 1
    assert _verdicts(runs[0])["p999-drop"] == INCONCLUSIVE  # each run judged alone: its series is itself


def _one_run_level(ratio: float, factor: float, band: float) -> str:
    """docs/analysis.md's effect rule for a `<= factor` claim on one run: the band is ratio / (1 + band) to
    ratio * (1 + band); reproduced when all of it is at or below half the article's effect, sqrt(factor)."""
    low, high, half = ratio / (1 + band), ratio * (1 + band), math.sqrt(factor)
    if high <= half:
        return REPRODUCED
    if high < 1:
        return DIRECTION
    if low > half:
        return NOT_REPRODUCED
    return INCONCLUSIVE


@pytest.mark.parametrize(
    ("onheap", "offheap", "level"),
    [
        (Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=2, gc_pause_ms=2), REPRODUCED),  # ~0.04x
        (Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=8, gc_pause_ms=35), DIRECTION),  # ~0.6x
        (Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=8, gc_pause_ms=50), INCONCLUSIVE),  # ~0.87x
        (Shape(young_gcs=3, gc_pause_ms=10), Shape(young_gcs=8, gc_pause_ms=60), NOT_REPRODUCED),  # ~7x
    ],
)
def test_verdict_agrees_with_raw_summaries(
    make_pair: Callable[..., Path], onheap: Shape, offheap: Shape, level: str
) -> None:
    """Recompute the p999 verdict straight from the two summary files (one run: the assumed +-50% band of
    a tail metric); the four shapes give the four levels."""
    run = make_pair(onheap, offheap, name="mixed")
    p999 = {
        v: json.loads((run / v / "client/single_put-localhost.json").read_text())["latency_us"]["p999"] / 1000
        for v in ("hbase1-onheap", "hbase2-offheap")
    }
    ratio = p999["hbase2-offheap"] / p999["hbase1-onheap"]
    result = next(r for r in analyse(run, PUBLISHED).claims if r.claim.id == "p999-drop")
    assert result.verdict == _one_run_level(ratio, 0.5, 0.5) == level
    assert result.ratio == pytest.approx(ratio)
    assert result.judgement is not None
    assert (result.judgement.low, result.judgement.high) == (
        pytest.approx(ratio / 1.5),
        pytest.approx(ratio * 1.5),
    )
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
