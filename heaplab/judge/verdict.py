"""The verdict rule: a claim's per-run quantities -> an interval -> a label, from two regions.

Pure arithmetic, no run directories: heaplab.judge.claims feeds it the per-run quantity of a claim (the ratio
L / R for a claim between two variants, the value of L for a claim against a constant) and reads back the
label, the interval, the regions and a sentence.  docs/analysis.md ("Verdicts") states the rule for
students, with worked examples.

- The interval I: the 95% Student-t interval of the mean quantity over the runs, in log space for ratios
  and for constants with a ``null`` (effects multiply), in linear space otherwise and whenever a run's
  quantity is exactly 0 (a ratio of 0 is a real result, 0 heap copies, not a number to clamp).  A verdict
  needs MIN_RUNS runs; with fewer the values are shown as indicative and the claim is `inconclusive`.
- Region rule (the claim states an article's effect away from "no effect": ``L <= 0.11 * R``, or a constant
  with a ``null``): the article's region R is its figure x (1 +- tolerance), a half-line from there for an
  "at least" / "at most" claim; the no-effect region N is null x (1 +- margin) (null = 1 for a ratio).
    reproduced                 I overlaps R and excludes N
    smaller / larger than the article   I excludes both, on the article's side of N, short of / beyond R
    opposite                   I excludes N on the other side
    no effect                  I lies inside N (an equivalence test, not a failure to find an effect)
    inconclusive               otherwise (I holds N and more)
- Bound rule (every other claim: ``L >= 1.0 * R`` "not lower", ``L <= 10`` ms, ``L <= 0`` full GCs, every
  mechanism check and every peer target): the whole interval meets the bound, or the whole of it misses it,
  else inconclusive.  The labels say what the claim is: an article's or the lab's bound (reproduced / not
  reproduced), a mechanism check (passed / failed), a target against a peer (met / not met).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass

from heaplab.lab.expectation import Expectation
from heaplab.stats import half_width

REPRODUCED = "reproduced"
SMALLER = "smaller than the article"
LARGER = "larger than the article"
NO_EFFECT = "no effect"
OPPOSITE = "opposite"
NOT_REPRODUCED = "not reproduced"  # a bound the whole interval misses
PASSED = "passed"
FAILED = "failed"
MET = "met"
NOT_MET = "not met"
INCONCLUSIVE = "inconclusive"
NOT_MEASURABLE = "not measurable here"

ARTICLE, INFERENCE, CHECK, PEER = "article", "inference", "check", "peer"
_FINDING = (REPRODUCED, SMALLER, LARGER, NO_EFFECT, OPPOSITE, NOT_REPRODUCED, INCONCLUSIVE, NOT_MEASURABLE)
LEVELS_BY_KIND = {
    ARTICLE: _FINDING,
    INFERENCE: _FINDING,
    CHECK: (PASSED, FAILED, INCONCLUSIVE, NOT_MEASURABLE),
    PEER: (MET, NOT_MET, INCONCLUSIVE, NOT_MEASURABLE),
}
LEVELS = (*_FINDING, PASSED, FAILED, MET, NOT_MET)
# The bound rule's two outcomes, by kind: (whole interval meets it, whole interval misses it)
_BOUND_LABELS = {CHECK: (PASSED, FAILED), PEER: (MET, NOT_MET)}

REGION = "region"
BOUND = "bound"
MIN_RUNS = 3  # fewer runs give a t-interval too wide (n = 2: t = 12.7) or none at all


@dataclass(frozen=True)
class Judgement:
    level: str
    rule: str  # REGION or BOUND
    n: int
    mean: float  # the mean per-run quantity; for ratios (log space) the geometric mean
    low: float  # the 95% interval on the quantity's own scale (low == high == mean with one run)
    high: float
    band: str  # how the interval was obtained: "95% t over 3 runs", "1 run: no interval"
    why: str
    region: tuple[float, float]  # R: the article's region (REGION) or the values meeting the bound (BOUND)
    no_effect: tuple[float, float] | None = None  # N (REGION only)
    log_scale: bool = False

    @property
    def indicative(self) -> bool:
        """Fewer runs than a verdict needs: the values are shown, not judged."""
        return self.n < MIN_RUNS

    @property
    def decided(self) -> bool:
        """More runs would not change what the claim can say: the label is not `inconclusive`, or the
        interval no longer overlaps both R and N (``heaplab run --repeat auto`` stops on it)."""
        if self.indicative:
            return False
        if self.level != INCONCLUSIVE:
            return True
        if self.no_effect is None:
            return False
        return not (
            _overlaps((self.low, self.high), self.region) and _overlaps((self.low, self.high), self.no_effect)
        )


def demote(j: Judgement, why: str) -> Judgement:
    """The same interval, judged `inconclusive` for a reason the numbers alone do not show (too few GC
    events for a rate, heaplab.judge.claims); the interval and regions stay for the report and the plot."""
    return dataclasses.replace(j, level=INCONCLUSIVE, why=f"{j.why}; {why}")


def rule_of(exp: Expectation, null: float | None, kind: str = ARTICLE) -> str:
    """REGION when the claim states an article's effect away from "no effect", else BOUND.  Mechanism
    checks and peer targets are bars to meet: always BOUND."""
    if kind in (CHECK, PEER):
        return BOUND
    if exp.right is None:
        return REGION if null is not None else BOUND
    if exp.op in ("<", "<="):
        return REGION if exp.factor < 1 else BOUND
    return REGION if exp.factor > 1 else BOUND


@dataclass(frozen=True)
class Measured:
    """The per-run quantities summed up: their mean and 95% interval on the quantity's own scale."""

    n: int
    mean: float
    low: float
    high: float
    band: str  # "95% t over 3 runs", "1 run: no interval"
    log_scale: bool


def interval(xs: list[float], log_scale: bool) -> Measured:
    """Mean and 95% interval of the mean of ``xs`` (log space: of ln xs, returned on the xs scale)."""
    ys = [math.log(x) for x in xs] if log_scale else list(xs)
    mean = statistics.fmean(ys)
    if len(ys) >= 2:
        half = half_width(ys)
        lo, hi, band = mean - half, mean + half, f"95% t over {len(ys)} runs"
    else:
        lo, hi, band = mean, mean, "1 run: no interval"
    if log_scale:
        mean, lo, hi = math.exp(mean), math.exp(lo), math.exp(hi)
    return Measured(len(ys), mean, lo, hi, band, log_scale)


@dataclass(frozen=True)
class Regions:
    """What a claim's article says, as regions of its quantity (the region rule)."""

    figure: float  # the article's ratio, or its constant
    tolerance: float
    article: tuple[float, float]  # R
    no_effect: tuple[float, float]  # N


def regions(
    figure: float, base: float, tolerance: float = 0.15, margin: float = 0.05, region: str | None = None
) -> Regions:
    """R: the figure x (1 +- tolerance), a half-line for "at least" / "at most", never reaching into N or
    past it (a wide tolerance on a small effect must not let the opposite count); N: base x (1 +- margin)."""
    lo, hi = figure * (1 - tolerance), figure * (1 + tolerance)
    if region == "at-least":
        hi = math.inf
    elif region == "at-most":
        lo = 0.0
    no = (base * (1 - margin), base * (1 + margin))
    if figure > base:
        lo = max(lo, no[1])
    else:
        hi = min(hi, no[0])
    return Regions(figure, tolerance, (lo, hi), no)


def judge(
    exp: Expectation,
    values: list[float],
    *,
    null: float | None = None,
    kind: str = ARTICLE,
    tolerance: float = 0.15,
    margin: float = 0.05,
    region: str | None = None,
) -> Judgement:
    """Judge per-run quantities (ratios L / R for a two-variant claim, values of L otherwise)."""
    if not values:
        raise ValueError("a verdict needs at least one run's value")
    ratio = exp.right is not None
    m = interval(values, log_scale=(ratio or null is not None) and all(v > 0 for v in values))
    if rule_of(exp, null, kind) == REGION:
        base = 1.0 if ratio else float(null or 1.0)
        j = _region(exp, m, regions(exp.factor, base, tolerance, margin, region))
    else:
        j = _bound(exp, m, kind)
    if j.indicative:
        return demote(j, f"indicative only: a verdict needs {MIN_RUNS} runs, this has {j.n}")
    return j


def _overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and a[1] >= b[0]


def region_label(low: float, high: float, rg: Regions) -> str:
    """The label of an interval [low, high] against the article's region and the no-effect region."""
    r, no = rg.article, rg.no_effect
    up = rg.figure > (no[0] + no[1]) / 2  # the article's direction from no effect
    if low >= no[0] and high <= no[1]:
        return NO_EFFECT
    if not (high < no[0] or low > no[1]):  # I holds part of N and more
        return INCONCLUSIVE
    if _overlaps((low, high), r):
        return REPRODUCED
    if (low > no[1]) != up:
        return OPPOSITE
    beyond = low > r[1] if up else high < r[0]
    return LARGER if beyond else SMALLER


def _region(exp: Expectation, m: Measured, rg: Regions) -> Judgement:
    what = "ratio" if exp.right is not None else "value"
    why = (
        f"{what} {_x(m.mean)} [{_x(m.low)}, {_x(m.high)}] ({m.band}); the article's region"
        f" {_range(rg.article)} (its figure {_x(rg.figure)} +-{rg.tolerance:.0%}),"
        f" no effect {_range(rg.no_effect)}"
    )
    level = region_label(m.low, m.high, rg)
    return Judgement(
        level, REGION, m.n, m.mean, m.low, m.high, m.band, why, rg.article, rg.no_effect, m.log_scale
    )


def _bound(exp: Expectation, m: Measured, kind: str) -> Judgement:
    bound = exp.factor
    if exp.op in ("<", "<="):
        ok_all, bad_all = _holds(exp.op, m.high, bound), not _holds(exp.op, m.low, bound)
        meets = (-math.inf, bound)
    else:
        ok_all, bad_all = _holds(exp.op, m.low, bound), not _holds(exp.op, m.high, bound)
        meets = (bound, math.inf)
    yes, no = _BOUND_LABELS.get(kind, (REPRODUCED, NOT_REPRODUCED))
    level = yes if ok_all else no if bad_all else INCONCLUSIVE
    what = "ratio" if exp.right is not None else "value"
    why = f"{what} {m.mean:.4g} [{m.low:.4g}, {m.high:.4g}] ({m.band}); must be {exp.op} {bound:g}"
    return Judgement(level, BOUND, m.n, m.mean, m.low, m.high, m.band, why, meets, None, m.log_scale)


def _holds(op: str, x: float, bound: float) -> bool:
    return {"<": x < bound, "<=": x <= bound, ">": x > bound, ">=": x >= bound}[op]


def _x(v: float) -> str:
    return "inf" if math.isinf(v) else f"{v:.3g}x" if abs(v) < 1000 else f"{v:.4g}x"


def _range(r: tuple[float, float]) -> str:
    if math.isinf(r[1]):
        return f">= {_x(r[0])}"
    if r[0] <= 0:
        return f"<= {_x(r[1])}"
    return f"[{_x(r[0])}, {_x(r[1])}]"
