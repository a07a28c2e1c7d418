"""The verdict rule (heaplab.verdict): each of the five levels reached, and the boundaries between them."""

from __future__ import annotations

import math

import pytest

from heaplab.expectation import parse_expectation
from heaplab.verdict import (
    BOUND,
    DIRECTION,
    EFFECT,
    INCONCLUSIVE,
    NOT_REPRODUCED,
    REPRODUCED,
    judge,
    rule_of,
)

DROP = parse_expectation("b <= 0.11 * a")  # the article: P999 45 ms -> 5 ms
RISE = parse_expectation("b >= 1.3 * a")  # the article: throughput +30%


@pytest.mark.parametrize(
    ("expect", "null", "rule"),
    [
        ("b <= 0.11 * a", None, EFFECT),
        ("b >= 1.3 * a", None, EFFECT),
        ("b >= 0.92 * a", None, BOUND),  # "at most 8% lower": a tolerance, not an effect
        ("b <= 1.1 * a", None, BOUND),
        ("b >= a", None, BOUND),
        ("b <= 10", None, BOUND),
        ("b >= 100", 1.0, EFFECT),
    ],
)
def test_rule_of(expect: str, null: float | None, rule: str) -> None:
    assert rule_of(parse_expectation(expect), null) == rule


def test_effect_reproduced_when_the_interval_clears_half_the_article() -> None:
    j = judge(DROP, [0.12, 0.10, 0.11], "latency_p999")
    assert j.level == REPRODUCED and j.n == 3
    assert j.low < 0.11 < j.high
    assert "article 0.11x" in j.why


def test_effect_direction_when_smaller_than_half() -> None:
    # sqrt(0.11) = 0.33 is half the article's effect in log terms; 0.5 is beyond noise but short of it
    j = judge(DROP, [0.50, 0.52, 0.48], "latency_p999")
    assert j.level == DIRECTION


def test_effect_not_reproduced_on_no_effect() -> None:
    assert judge(DROP, [1.0, 1.02, 0.98], "latency_p999").level == NOT_REPRODUCED
    assert judge(RISE, [1.0, 1.01, 0.99], "throughput").level == NOT_REPRODUCED


def test_effect_not_reproduced_on_the_opposite() -> None:
    assert judge(RISE, [0.7, 0.72, 0.69], "throughput").level == NOT_REPRODUCED


def test_effect_inconclusive_when_noise_covers_both() -> None:
    # the runs disagree: the interval holds both "no effect" and half the article's rise
    assert judge(RISE, [0.9, 1.6, 1.2], "throughput").level == INCONCLUSIVE


def test_one_run_uses_the_assumed_band() -> None:
    one = judge(RISE, [1.4], "throughput")
    assert one.n == 1 and "assumed +-25%" in one.band
    assert one.level == DIRECTION  # 1.4 / 1.25 = 1.12 is short of sqrt(1.3) = 1.14
    assert judge(RISE, [1.5], "throughput").level == REPRODUCED  # 1.5 / 1.25 = 1.2
    tail = judge(DROP, [0.11], "latency_p999")
    assert "assumed +-50%" in tail.band  # tails move more between runs


def test_zero_ratio_is_clamped_not_an_error() -> None:
    # no young GC at all on the new path: ratio 0, the strongest drop
    assert judge(DROP, [0.0, 0.0, 0.0], "young_gc_rate").level == REPRODUCED


def test_bound_on_a_ratio() -> None:
    close = parse_expectation("b >= 0.92 * a")
    assert judge(close, [1.0, 0.98, 1.01], "throughput").level == REPRODUCED
    assert judge(close, [0.5, 0.52, 0.49], "throughput").level == NOT_REPRODUCED
    assert judge(close, [0.8, 1.1, 0.95], "throughput").level == INCONCLUSIVE


def test_a_target_is_a_bound_however_large() -> None:
    """Lab 11's race target: 1.72x the peer is not "2x reproduced" by the half-effect rule, it falls short."""
    race = parse_expectation("engine >= 2.0 * hbase")
    assert rule_of(race, None) == EFFECT  # as an article's figure it would be an effect...
    assert rule_of(race, None, target=True) == BOUND  # ...as a target it is a bar
    short = [1.842, 1.675, 1.653]  # lab 11's single puts, 2026-11-28: 1.72x [1.49, 1.99]
    assert judge(race, short, "throughput").level == REPRODUCED  # the effect rule: half of 2x is 1.41x
    assert judge(race, short, "throughput", target=True).level == NOT_REPRODUCED  # all of it below 2x
    assert judge(race, [1.8, 2.4, 2.1], "throughput", target=True).level == INCONCLUSIVE
    assert judge(race, [2.4, 2.5, 2.6], "throughput", target=True).level == REPRODUCED


def test_bound_on_a_value_in_linear_space() -> None:
    never = parse_expectation("b <= 0")
    assert judge(never, [0, 0, 0], "full_gc_count").level == REPRODUCED
    assert judge(never, [2, 3, 2], "full_gc_count").level == NOT_REPRODUCED
    assert judge(parse_expectation("b <= 10"), [4, 5, 30], "latency_avg").level == INCONCLUSIVE


def test_constant_with_null_is_an_effect() -> None:
    far = parse_expectation("b >= 100")
    assert judge(far, [120, 90, 110], "latency_p999_over_avg", null=1.0).level == REPRODUCED
    assert judge(far, [30, 32, 29], "latency_p999_over_avg", null=1.0).level == REPRODUCED  # > sqrt(100)
    assert judge(far, [5, 5.2, 4.9], "latency_p999_over_avg", null=1.0).level == DIRECTION  # > 1, < 10
    assert judge(far, [1.0, 1.1, 0.95], "latency_p999_over_avg", null=1.0).level == NOT_REPRODUCED


def test_interval_is_student_t_on_logs() -> None:
    xs = [1.2, 1.4, 1.3]
    j = judge(RISE, xs, "throughput")
    logs = [math.log(x) for x in xs]
    mean = sum(logs) / 3
    assert j.mean == pytest.approx(math.exp(mean))
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2)
    assert j.high == pytest.approx(math.exp(mean + 4.303 * sd / math.sqrt(3)))


def test_no_values_is_an_error() -> None:
    with pytest.raises(ValueError):
        judge(RISE, [], "throughput")
