"""The statistics every stage shares, written once: the 95% interval of a mean over repeated runs
(Student's t quantile and the half-width: heaplab.judge.repeats for `heaplab compare`, heaplab.judge.verdict
for the claims) and the nearest-rank percentile of a list of values (GC pauses, heaplab.analysis.gc_stats)."""

from __future__ import annotations

import math
import statistics

# Student's t, two-sided 95% (the 0.975 quantile), by degrees of freedom 1..30
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959964


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (table to 30, then expansion)."""
    if df < 1:
        raise ValueError("a confidence interval needs at least two runs")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975  # Cornish-Fisher expansion in 1/df: within 0.001 of the exact value past 30
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def half_width(xs: list[float]) -> float:
    """Half the 95% interval of the mean of ``xs`` (at least two values): t x s / sqrt(n)."""
    return t975(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile: the smallest value with at least pct% of the values at or below it."""
    ordered = sorted(values)
    rank = max(math.ceil(pct / 100.0 * len(ordered)), 1)
    return ordered[rank - 1]
