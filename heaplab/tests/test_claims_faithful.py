"""Every claim of every lab: it carries the article's figure and source, its factor is the article's own
ratio wherever the published CSV has it, and it can fail.

For each claim, three runs' worth of values are fed through heaplab.claims.judge_claim (the code the
report uses):
- data that contradicts the article (no effect, or the bound clearly violated) must not be `reproduced`;
- data with only 40% of the article's effect (in log terms) must not be `reproduced` either;
- data at the article's own figure must be `reproduced` (a claim nobody could meet is no claim).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from heaplab.claims import judge_claim
from heaplab.expectation import Expectation, parse_expectation
from heaplab.metrics import Measurement
from heaplab.published import load_published
from heaplab.rundir import Run
from heaplab.spec import CLAIM_KINDS, PEER, Claim, Spec, load_spec
from heaplab.tests.conftest import PUBLISHED, REPO
from heaplab.verdict import (
    DIRECTION,
    EFFECT,
    INCONCLUSIVE,
    NOT_MEASURABLE,
    NOT_REPRODUCED,
    REPRODUCED,
    rule_of,
)

SPECS = {p.parent.name: load_spec(p) for p in sorted((REPO / "labs").glob("*/experiment.yml"))}
CLAIMS = [(lab, c) for lab, spec in SPECS.items() for c in spec.claims]
IDS = [f"{lab}/{c.id}" for lab, c in CLAIMS]
JUDGED = [(lab, c) for lab, c in CLAIMS if c.measurable]
JUDGED_IDS = [f"{lab}/{c.id}" for lab, c in JUDGED]
BIG_HOST = {"name": "big", "cores": 64, "memory_mb": 1 << 20}
RIGHT = 100.0  # the right-hand variant's value in fabricated ratio claims


def _runs(spec: Spec, claim: Claim, quantities: list[float]) -> tuple[list[Run], list[dict]]:
    """One fake run per quantity: ratio claims get L = q x RIGHT and R = RIGHT, constant claims L = q."""
    exp = parse_expectation(str(claim.expect))
    runs, measured = [], []
    for i, q in enumerate(quantities):
        manifest = {
            "lab": spec.lab,
            "scale": "local",
            "hosts": [BIG_HOST],
            "variants": {v: {"status": "complete"} for v in spec.variants},
        }
        runs.append(Run(Path(f"/runs/{spec.lab}-{i}"), manifest, spec))
        values = {exp.left: q * RIGHT if exp.right else q}
        if exp.right:
            values[exp.right] = RIGHT
        experiment, metric = str(claim.experiment), str(claim.metric)
        measured.append(
            {experiment: {v: Measurement(v, experiment, "complete", {metric: x}) for v, x in values.items()}}
        )
    return runs, measured


def _verdict(lab: str, claim: Claim, quantities: list[float]) -> str:
    runs, measured = _runs(SPECS[lab], claim, quantities)
    return judge_claim(runs, claim, measured, None).verdict


def _around(x: float) -> list[float]:
    """Three runs close together around x (a quiet machine)."""
    return [x * 0.99, x, x * 1.01] if x else [0.0, 0.0, 0.0]


def _null(exp: Expectation, claim: Claim) -> float:
    return 1.0 if exp.right else float(claim.null or 1.0)


def _rule(exp: Expectation, claim: Claim) -> str:
    return rule_of(exp, claim.null, target=claim.kind == PEER)


def _contradicting(exp: Expectation, claim: Claim) -> float:
    """No effect for an effect claim; a value well on the wrong side of a bound."""
    if _rule(exp, claim) == EFFECT:
        return _null(exp, claim)
    f = exp.factor
    if exp.right:
        return f * 0.5 if exp.op in (">", ">=") else f * 2
    step = max(abs(f), 1.0) * 0.5
    return f - step if exp.op in (">", ">=") else f + step


def _meeting(exp: Expectation, claim: Claim) -> float:
    """The article's own figure for an effect claim; a value well inside a bound."""
    if _rule(exp, claim) == EFFECT:
        return exp.factor
    f = exp.factor
    if exp.right:
        return f * 2 if exp.op in (">", ">=") else f * 0.5
    if exp.op in (">", ">="):
        return f + max(abs(f), 1.0) * 0.5
    if f > 0:
        return f * 0.5
    return f if exp.op == "<=" else f - 1.0


def test_every_lab_has_claims() -> None:
    assert len(SPECS) >= 11 and all(spec.claims for spec in SPECS.values())


@pytest.mark.parametrize(("lab", "claim"), CLAIMS, ids=IDS)
def test_claim_says_where_its_figure_comes_from(lab: str, claim: Claim) -> None:
    assert claim.kind in CLAIM_KINDS
    assert claim.figure and claim.source and claim.says, f"{lab}/{claim.id}: figure, source and says"
    for text in (claim.figure, claim.source, claim.says):
        assert "seed 00" not in text.lower() and "issue " not in text.lower(), text
    if not claim.measurable:
        assert claim.why, f"{lab}/{claim.id}: measurable: false needs why"


@pytest.mark.parametrize(("lab", "claim"), JUDGED, ids=JUDGED_IDS)
def test_article_claims_use_the_articles_ratio(lab: str, claim: Claim) -> None:
    """A two-variant article claim's factor is the article's ratio (within 5%) wherever the CSV has it."""
    exp = parse_expectation(str(claim.expect))
    if claim.kind != "article" or exp.right is None:
        pytest.skip("not a two-variant article claim")
    spec, published = SPECS[lab], load_published(PUBLISHED)
    doc = spec.doc_of(str(claim.experiment))
    if claim.article_ratio:
        row = published.get(doc, str(claim.experiment), claim.article_ratio, f"{claim.metric}_ratio")
        assert row is not None, f"{lab}/{claim.id}: no {claim.metric}_ratio row for {claim.article_ratio}"
        ratio = row.value
    else:
        names = [spec.variants[v].published_for(str(claim.experiment)) for v in exp.variants]
        rows = [published.get(doc, str(claim.experiment), n, str(claim.metric)) if n else None for n in names]
        if any(r is None for r in rows):
            pytest.skip("the CSV does not hold the article's value of both variants")
        ratio = rows[0].value / rows[1].value
    assert exp.factor == pytest.approx(ratio, rel=0.05), f"{lab}/{claim.id}: article ratio {ratio:.3g}"


@pytest.mark.parametrize(("lab", "claim"), JUDGED, ids=JUDGED_IDS)
def test_claim_fails_on_data_that_contradicts_the_article(lab: str, claim: Claim) -> None:
    exp = parse_expectation(str(claim.expect))
    verdict = _verdict(lab, claim, _around(_contradicting(exp, claim)))
    assert verdict == NOT_REPRODUCED, f"{lab}/{claim.id} ({claim.expect}): {verdict}"


@pytest.mark.parametrize(("lab", "claim"), JUDGED, ids=JUDGED_IDS)
def test_claim_is_not_reproduced_by_a_smaller_effect(lab: str, claim: Claim) -> None:
    exp = parse_expectation(str(claim.expect))
    if _rule(exp, claim) != EFFECT:
        pytest.skip("a bound has no magnitude")
    null = _null(exp, claim)
    weak = null * (exp.factor / null) ** 0.4  # 40% of the article's effect in log terms
    assert _verdict(lab, claim, _around(weak)) == DIRECTION


TARGETS = [(lab, c) for lab, c in JUDGED if c.kind == PEER]


@pytest.mark.parametrize(("lab", "claim"), TARGETS, ids=[f"{lab}/{c.id}" for lab, c in TARGETS])
def test_a_target_fails_just_short_of_its_bar(lab: str, claim: Claim) -> None:
    """A target (lab 11's race against Apache HBase) is met or not: 10% short of it is not reproduced."""
    exp = parse_expectation(str(claim.expect))
    short = exp.factor * (0.9 if exp.op in (">", ">=") else 1.1)
    assert _verdict(lab, claim, _around(short)) == NOT_REPRODUCED


@pytest.mark.parametrize(("lab", "claim"), JUDGED, ids=JUDGED_IDS)
def test_claim_is_reproduced_at_the_articles_figure(lab: str, claim: Claim) -> None:
    exp = parse_expectation(str(claim.expect))
    verdict = _verdict(lab, claim, _around(_meeting(exp, claim)))
    assert verdict == REPRODUCED, f"{lab}/{claim.id} ({claim.expect}): {verdict}"


@pytest.mark.parametrize(("lab", "claim"), [c for c in CLAIMS if not c[1].measurable] or [(None, None)])
def test_unmeasurable_claims_say_so(lab: str, claim: Claim) -> None:
    if claim is None:
        pytest.skip("no claim is declared unmeasurable")
    assert _verdict_unmeasurable(lab, claim) == NOT_MEASURABLE


def _verdict_unmeasurable(lab: str, claim: Claim) -> str:
    run = Run(Path("/runs/x"), {"lab": lab, "scale": "local", "variants": {}}, SPECS[lab])
    return judge_claim([run], claim, [{}], None).verdict


def test_a_claim_needing_a_bigger_host_shows_what_this_one_measured() -> None:
    """ParallelRefProcEnabled's -75% remark needs 4 GC threads: on 2 cores the verdict is not measurable
    here, with the reason, but the remark times of both variants are still shown, not left blank."""
    claim = next(c for c in SPECS["02-g1-tuning"].claims if c.id == "refproc-remark")
    runs, measured = _runs(SPECS["02-g1-tuning"], claim, [0.6, 0.6, 0.6])
    small = [
        Run(r.path, {**r.manifest, "hosts": [{"name": "vm", "cores": 2, "memory_mb": 24576}]}, r.spec)
        for r in runs
    ]
    result = judge_claim(small, claim, measured, None)
    assert result.verdict == NOT_MEASURABLE
    assert result.why == "needs 4 cores (the smallest host here has 2)"
    assert result.measured == {"g1-default": pytest.approx(60.0), "g1-no-refproc": pytest.approx(100.0)}
    assert judge_claim(runs, claim, measured, None).verdict == DIRECTION  # 0.6x against 0.25x, on 64 cores


def test_a_missing_value_says_why_it_can_be_missing() -> None:
    """A run without a spike second has no latency_spike_gc_lift: the claim is inconclusive and says so."""
    claim = next(c for c in SPECS["01-tail-latency"].claims if c.id == "spikes-are-gc")
    runs, measured = _runs(SPECS["01-tail-latency"], claim, [3.0])
    for m in measured[0][str(claim.experiment)].values():
        m.values.clear()
    result = judge_claim(runs, claim, measured, None)
    assert result.verdict == INCONCLUSIVE
    assert (
        "has no latency_spike_gc_lift (no spike second: no second's p99 above the phase's p99.9" in result.why
    )
