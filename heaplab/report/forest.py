"""The forest plot of a lab's verdicts: one row per claim and subject, on one log axis.

Each row draws, on the scale of the claim's quantity relative to "no effect" (a ratio L / R, or a value
over its ``null``; a bound's value over the bound):
- the article's region R as a band (green), the no-effect region N as a band (grey) for the region rule;
- the bound as a line, the side that meets it shaded, for the bound rule;
- the measured 95% interval as a bar with its mean as a dot, and the label at the right.
A quantity of exactly 0 (no heap copy at all) cannot sit on a log axis: it is drawn at the axis' left end
with an arrow.  docs/analysis.md, section Verdicts, explains how to read it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from heaplab.judge.claim_results import ClaimResult
from heaplab.judge.verdict import REGION

FLOOR = 1e-3  # where a 0 is drawn
FORM = {"article": "", "inference": " (inference)", "check": " (check)", "peer": " (target)"}


def _scale(r: ClaimResult) -> float:
    """What the row's quantity is divided by: 1 for a ratio, the null of a constant, a bound's value."""
    j = r.judgement
    assert j is not None
    if r.ratio is not None:
        return 1.0
    if j.rule == REGION:
        return r.claim.null or 1.0
    bound = j.region[1] if math.isinf(j.region[0]) else j.region[0]
    return bound if bound and bound > 0 else 1.0


def _pos(x: float) -> float:
    return min(max(x, FLOOR), 1 / FLOOR)


def plotted(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    """The claims with an interval to draw (judged, or with indicative values)."""
    return [r for r in results if r.judgement is not None]


def forest_figure(results: Sequence[ClaimResult], title: str) -> Figure:
    rows = plotted(results)
    fig = Figure(figsize=(11, 0.9 + 0.32 * max(len(rows), 1)), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if not rows:
        ax.text(0.5, 0.5, "no claim with a measured interval", ha="center", va="center")
        ax.set_axis_off()
        return fig
    ax.set_xscale("log")
    for y, r in enumerate(reversed(rows)):
        j = r.judgement
        assert j is not None
        s = _scale(r)
        if j.no_effect is not None:
            ax.fill_betweenx(
                [y - 0.4, y + 0.4], _pos(j.no_effect[0] / s), _pos(j.no_effect[1] / s), color="0.8"
            )
            ax.fill_betweenx(
                [y - 0.4, y + 0.4], _pos(j.region[0] / s), _pos(j.region[1] / s), color="#9be39b"
            )
        else:
            ax.fill_betweenx(
                [y - 0.4, y + 0.4], _pos(j.region[0] / s), _pos(j.region[1] / s), color="#d6f5d6"
            )
        low, high, mean = j.low / s, j.high / s, j.mean / s
        ax.hlines(y, _pos(low), _pos(high), color="black", linewidth=2)
        ax.plot(
            [_pos(mean)], [y], "o", color="black" if not j.indicative else "white", markeredgecolor="black"
        )
        if mean <= 0:
            ax.annotate("0", (FLOOR, y), xytext=(3, 3), textcoords="offset points", fontsize=7)
        ax.text(1.01, y, r.verdict, transform=ax.get_yaxis_transform(), va="center", fontsize=8)
    labels = [f"{r.claim.id}{FORM.get(r.claim.kind, '')}" for r in reversed(rows)]
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.axvline(1.0, color="0.5", linewidth=0.8, linestyle=":")
    ax.set_xlabel(
        "ratio L / R, value / null, or a bound's value / bound (log scale)\n"
        "green: the article's region, or the side of a bound that meets it; grey: no effect; "
        "bar: 95% interval; open dot: indicative (fewer than 3 runs)"
    )
    ax.set_title(title)
    return fig
