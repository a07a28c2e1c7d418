"""The verdict rule (heaplab.judge.verdict): every label reached, and the boundaries between them."""

from __future__ import annotations

import math

import pytest

from heaplab.judge.verdict import (
    BOUND,
    CHECK,
    FAILED,
    INCONCLUSIVE,
    LARGER,
    LEVELS,
    LEVELS_BY_KIND,
    MET,
    NO_EFFECT,
    NOT_MET,
    NOT_REPRODUCED,
    OPPOSITE,
    PASSED,
    PEER,
    REGION,
    REPRODUCED,
    SMALLER,
    judge,
    region_label,
    regions,
    rule_of,
)
from heaplab.lab.expectation import parse_expectation

DROP = parse_expectation("b <= 0.11 * a")  # the article: P999 45 ms -> 5 ms
RISE = parse_expectation("b >= 1.3 * a")  # the article: throughput +30%


def _tight(x: float) -> list[float]:
    """Three runs within +-1% of x: an interval about +-2.5% wide."""
    return [x * 0.99, x, x * 1.01]


@pytest.mark.parametrize(
    ("expect", "null", "kind", "rule"),
    [
        ("b <= 0.11 * a", None, "article", REGION),
        ("b >= 1.3 * a", None, "article", REGION),
        ("b >= 0.92 * a", None, "article", BOUND),  # "at most 8% lower": a tolerance, not an effect
        ("b <= 1.1 * a", None, "article", BOUND),
        ("b >= a", None, "inference", BOUND),
        ("b <= 10", None, "article", BOUND),
        ("b >= 100", 1.0, "article", REGION),
        ("b <= 0.5 * a", None, CHECK, BOUND),  # a mechanism check is a bar, never an effect to size
        ("b >= 2.0 * a", None, PEER, BOUND),  # so is a target against a peer
    ],
)
def test_rule_of(expect: str, null: float | None, kind: str, rule: str) -> None:
    assert rule_of(parse_expectation(expect), null, kind) == rule


def test_reproduced_means_the_articles_region() -> None:
    assert judge(DROP, _tight(0.11)).level == REPRODUCED
    assert judge(DROP, _tight(0.125)).level == REPRODUCED  # inside 0.11 +-15%
    assert judge(RISE, _tight(1.3)).level == REPRODUCED
    # half the article's effect in log terms used to count: no longer
    assert judge(DROP, _tight(0.5)).level == SMALLER  # beyond no effect, short of 0.11 +15%
    assert judge(parse_expectation("b >= 2 * a"), _tight(1.41)).level == SMALLER


def test_overshoot_is_larger_than_the_article() -> None:
    """An interval beyond the article's region, away from no effect, is not the article's figure."""
    fewer = parse_expectation("b <= 0.88 * a")  # the article's young GCs 0.4/s -> 0.35/s
    j = judge(fewer, [0.38, 0.42, 0.46])  # 0.42x [0.28, 0.62] in the committed Apache HBase series
    assert j.level == LARGER
    assert judge(RISE, _tight(2.0)).level == LARGER


def test_no_effect_is_an_equivalence_not_a_failure_to_find_one() -> None:
    assert judge(DROP, _tight(1.0)).level == NO_EFFECT
    assert judge(DROP, [0.6, 1.0, 1.6]).level == INCONCLUSIVE  # holds no effect and much more


def test_opposite() -> None:
    assert judge(DROP, _tight(1.5)).level == OPPOSITE
    assert judge(RISE, _tight(0.7)).level == OPPOSITE


def test_interval_over_both_regions_is_inconclusive_and_undecided() -> None:
    j = judge(RISE, [0.95, 1.3, 1.6])
    assert j.level == INCONCLUSIVE
    assert not j.decided  # more runs can still say either
    k = judge(RISE, [1.05, 1.06, 1.07])  # short of R, touching N: no more runs make it reproduced
    assert k.level == INCONCLUSIVE
    assert k.decided


def test_half_lines_for_at_least_claims() -> None:
    far = parse_expectation("b >= 100")
    assert judge(far, _tight(300), null=1.0, region="at-least").level == REPRODUCED
    assert judge(far, _tight(300), null=1.0).level == LARGER  # without the half-line, 3x the figure
    assert judge(far, _tight(29), null=1.0, region="at-least").level == SMALLER  # lab 01's 29x
    assert judge(far, _tight(1.0), null=1.0, region="at-least").level == NO_EFFECT


def test_regions() -> None:
    rg = regions(0.11, 1.0)
    assert rg.article == pytest.approx((0.0935, 0.1265))
    assert rg.no_effect == pytest.approx((0.95, 1.05))
    assert regions(2.0, 1.0, 0.1, 0.02, "at-least").article == pytest.approx((1.8, math.inf))
    assert regions(0.5, 1.0, region="at-most").article == pytest.approx((0.0, 0.575))
    assert regions(1.25, 1.0, 0.25).article == pytest.approx((1.05, 1.5625))  # never into N or past it
    assert judge(parse_expectation("b >= 1.25 * a"), _tight(0.9), tolerance=0.25).level == OPPOSITE
    # an interval straddling R and below N
    assert region_label(0.09, 0.2, rg) == REPRODUCED
    assert region_label(0.3, 0.5, rg) == SMALLER
    assert region_label(0.01, 0.05, rg) == LARGER


def test_fewer_than_three_runs_are_indicative_only() -> None:
    j = judge(DROP, [0.11, 0.11])
    assert j.level == INCONCLUSIVE and j.indicative and not j.decided
    assert "indicative only" in j.why
    one = judge(DROP, [0.11])
    assert one.low == one.high == pytest.approx(0.11)
    assert one.level == INCONCLUSIVE


def test_zero_ratios_are_judged_in_linear_space_not_clamped() -> None:
    copies = parse_expectation("b <= 0.5 * a")
    j = judge(copies, [0.0, 0.0, 0.0], kind=CHECK)
    assert (j.low, j.high, j.level, j.log_scale) == (0.0, 0.0, PASSED, False)
    assert judge(copies, [0.6, 0.7, 0.65], kind=CHECK).level == FAILED


def test_peer_targets_are_met_or_not() -> None:
    race = parse_expectation("engine >= 2.0 * hbase")
    short = [1.842, 1.675, 1.653]  # lab 11's single puts, 2026-11-28: 1.72x [1.49, 1.99]
    assert judge(race, short, kind=PEER).level == NOT_MET
    assert judge(race, [1.8, 2.4, 2.1], kind=PEER).level == INCONCLUSIVE
    assert judge(race, [2.4, 2.5, 2.6], kind=PEER).level == MET


def test_bound_on_a_value_in_linear_space() -> None:
    never = parse_expectation("b <= 0")
    assert judge(never, [0, 0, 0]).level == REPRODUCED
    assert judge(never, [2, 3, 2]).level == NOT_REPRODUCED
    assert judge(parse_expectation("b <= 10"), [4, 5, 30]).level == INCONCLUSIVE


def test_every_kind_has_its_own_labels() -> None:
    assert REPRODUCED not in LEVELS_BY_KIND[CHECK] and REPRODUCED not in LEVELS_BY_KIND[PEER]
    assert set(LEVELS) == {level for levels in LEVELS_BY_KIND.values() for level in levels}


def test_interval_is_student_t_on_logs() -> None:
    xs = [1.2, 1.4, 1.3]
    j = judge(RISE, xs)
    logs = [math.log(x) for x in xs]
    mean = sum(logs) / 3
    assert j.mean == pytest.approx(math.exp(mean))
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2)
    assert j.high == pytest.approx(math.exp(mean + 4.303 * sd / math.sqrt(3)))


def test_no_values_is_an_error() -> None:
    with pytest.raises(ValueError):
        judge(RISE, [])
