"""The verdict rule: a claim's per-run values and the article's figure -> one of five verdict levels.

Pure arithmetic, no run directories: heaplab.claims feeds it the per-run quantity of a claim (the ratio
L / R for a claim between two variants, the value of L for a claim against a constant) and reads back the
level, the interval and a sentence.  docs/analysis.md ("Verdicts") states the rule for students.

- Effect rule (the claim states an effect: ``L < f * R`` with f < 1, ``L > f * R`` with f > 1, or a constant
  claim with a ``null``, the value of "no effect"): the effect of a run is ln(quantity / null), null = 1
  for a ratio, oriented so the article's direction is positive; the article's magnitude is |ln f|.  Over
  the runs, the 95% interval [lo, hi] of the mean effect:
    reproduced      lo >= magnitude / 2   (at least half the article's effect, beyond noise)
    direction       0 < lo < magnitude / 2  (the article's direction beyond noise, smaller)
    not reproduced  hi < magnitude / 2 and lo <= 0  (no effect or the opposite; the article's excluded)
    inconclusive    otherwise (the interval holds both no effect and half the article's effect)
- Bound rule (every other claim: ``L >= 0.92 * R``, ``L <= 1.1 * R``, ``L <= 10``, and every target, such
  as lab 11's race against Apache HBase, ``engine >= 2.0 * hbase``): reproduced when the
  whole interval satisfies the inequality, not reproduced when the whole interval violates it, else
  inconclusive.  Ratios are judged in log space, plain values in linear space (counts can be 0).

With one run there is no interval from the data: the band is the labs' typical run-to-run spread
(ASSUMED_BAND, wider for tail metrics) around the single value, and the verdict says so.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from heaplab.expectation import Expectation
from heaplab.repeats import t975

REPRODUCED = "reproduced"
DIRECTION = "direction"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
NOT_MEASURABLE = "not measurable here"
LEVELS = (REPRODUCED, DIRECTION, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURABLE)

EFFECT = "effect"
BOUND = "bound"

# The relative band assumed around a single run: the spread the labs' reference runs showed between
# repeats (20-30% for throughput and means; tails and maxima move about twice as much).
ASSUMED_BAND = 0.25
ASSUMED_TAIL_BAND = 0.5
TAIL_METRICS = frozenset(
    {"latency_p999", "latency_max", "gc_pause_max", "gc_pause_initial_peak", "latency_p999_over_p50",
     "latency_p999_over_avg", "gc_pause_stddev", "latency_spike_gc_lift"}
)  # fmt: skip
# A ratio of 0 (a variant with no young GC at all) has no logarithm: clamp the ratio into this range.
RATIO_FLOOR = 1e-3


@dataclass(frozen=True)
class Judgement:
    level: str
    rule: str  # EFFECT or BOUND
    n: int
    mean: float  # the mean per-run quantity (ratio or value); for ratios the geometric mean
    low: float  # the interval on the quantity's own scale
    high: float
    band: str  # how the interval was obtained: "95% t over 3 runs" or "1 run: assumed +-25%"
    why: str


def rule_of(exp: Expectation, null: float | None, target: bool = False) -> str:
    """EFFECT when the expectation states an effect away from "no effect", else BOUND. A target (a claim
    of kind peer: the engine's own bar, not an article's finding) is always a bound: half of it is not it."""
    if target:
        return BOUND
    if exp.right is None:
        return EFFECT if null is not None else BOUND
    if exp.op in ("<", "<="):
        return EFFECT if exp.factor < 1 else BOUND
    return EFFECT if exp.factor > 1 else BOUND


def _log_interval(xs: list[float], metric: str) -> tuple[float, float, float, str]:
    """Mean and 95% interval of ln(xs)."""
    logs = [math.log(x) for x in xs]
    mean = statistics.fmean(logs)
    if len(logs) >= 2:
        half = t975(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
        return mean, mean - half, mean + half, f"95% t over {len(logs)} runs"
    band = ASSUMED_TAIL_BAND if metric in TAIL_METRICS else ASSUMED_BAND
    half = math.log(1 + band)
    return mean, mean - half, mean + half, f"1 run: assumed +-{band:.0%}"


def _linear_interval(xs: list[float], metric: str) -> tuple[float, float, float, str]:
    mean = statistics.fmean(xs)
    if len(xs) >= 2:
        half = t975(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
        return mean, mean - half, mean + half, f"95% t over {len(xs)} runs"
    band = ASSUMED_TAIL_BAND if metric in TAIL_METRICS else ASSUMED_BAND
    return mean, mean - abs(mean) * band, mean + abs(mean) * band, f"1 run: assumed +-{band:.0%}"


def _clamp(x: float) -> float:
    return min(max(x, RATIO_FLOOR), 1 / RATIO_FLOOR)


def judge(
    exp: Expectation, values: list[float], metric: str, null: float | None = None, target: bool = False
) -> Judgement:
    """Judge per-run quantities (ratios L / R for a two-variant claim, values of L otherwise); ``target``:
    the expectation is a bar to meet (the bound rule), not an article's effect."""
    if not values:
        raise ValueError("a verdict needs at least one run's value")
    rule = rule_of(exp, null, target)
    ratio = exp.right is not None
    if rule == EFFECT:
        return _effect(exp, values, metric, null if not ratio else 1.0)
    return _bound(exp, values, metric, ratio)


def _effect(exp: Expectation, values: list[float], metric: str, null: float | None) -> Judgement:
    base = null if null is not None else 1.0
    target = exp.factor  # the article's ratio, or the article's constant
    if base <= 0 or target <= 0 or any(v < 0 for v in values):
        raise ValueError(f"an effect claim needs positive values and null, not {values} / {base}")
    sign = -1.0 if exp.op in ("<", "<=") else 1.0
    magnitude = abs(math.log(target / base))
    quantities = [_clamp(v / base) for v in values]
    mean, lo, hi, band = _log_interval(quantities, metric)
    # oriented so the article's direction is positive
    olo, ohi = (lo, hi) if sign > 0 else (-hi, -lo)
    half = magnitude / 2
    if olo >= half:
        level = REPRODUCED
    elif olo > 0:
        level = DIRECTION
    elif ohi < half:
        level = NOT_REPRODUCED
    else:
        level = INCONCLUSIVE
    q = "ratio" if exp.right is not None else f"value / {base:g}"
    article = f"{target / base:.3g}x"
    halfway = f"{math.exp(sign * half):.3g}x"
    measured = f"{q} {math.exp(mean):.3g}x [{math.exp(lo):.3g}, {math.exp(hi):.3g}] ({band})"
    why = f"{measured}; article {article}, half its effect {halfway}"
    low, high = math.exp(lo) * base, math.exp(hi) * base
    return Judgement(level, EFFECT, len(values), math.exp(mean) * base, low, high, band, why)


def _bound(exp: Expectation, values: list[float], metric: str, ratio: bool) -> Judgement:
    if ratio:
        mean, lo, hi, band = _log_interval([_clamp(v) for v in values], metric)
        mean, lo, hi = math.exp(mean), math.exp(lo), math.exp(hi)
        what = "ratio"
    else:
        mean, lo, hi, band = _linear_interval(values, metric)
        what = "value"
    bound = exp.factor
    if exp.op in ("<", "<="):
        ok_all, bad_all = _holds(exp.op, hi, bound), not _holds(exp.op, lo, bound)
    else:
        ok_all, bad_all = _holds(exp.op, lo, bound), not _holds(exp.op, hi, bound)
    level = REPRODUCED if ok_all else NOT_REPRODUCED if bad_all else INCONCLUSIVE
    why = f"{what} {mean:.4g} [{lo:.4g}, {hi:.4g}] ({band}); must be {exp.op} {bound:g}"
    return Judgement(level, BOUND, len(values), mean, lo, hi, band, why)


def _holds(op: str, x: float, bound: float) -> bool:
    return {"<": x < bound, "<=": x <= bound, ">": x > bound, ">=": x >= bound}[op]
