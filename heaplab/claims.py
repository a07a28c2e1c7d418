"""Judge a lab's claims against a run and write claims.json.

claims.json format history (the ``format`` field):
  1  {"format", "lab", "scale", "run", "claims": {id: {"experiment", "metric", "unit", "expect", "says",
      "article": {variant: value|null}, "article_holds": bool|null, "measured": {variant: value|null},
      "verdict": "reproduced"|"not reproduced"|"inconclusive", "why"}}}

  (issue 3 added "ratio" and "article_ratio": for a claim between two variants, left / right as
   measured and as the article has it, or null)

A claim is inconclusive when a variant it names is unavailable, failed, missing from the run, or has no
value for the metric; otherwise it is reproduced exactly when the expectation holds on the measured values.

A claim between two variants (``a >= 1.3 * b``) is a ratio: ``ratio`` is a / b as measured.  The article's
ratio comes from its values for the two variants (their ``published`` names), or, when the article gives
only the ratio (seed 002: "SYNC_WAL throughput improved 30%"), from the row ``<metric>_ratio`` of the
article's variant the claim names with ``article_ratio``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heaplab.comparison import fmt
from heaplab.expectation import Expectation, parse_expectation
from heaplab.metrics import UNITS, Measurement
from heaplab.published import Published
from heaplab.rundir import Run
from heaplab.runjson import write_json_atomic
from heaplab.spec import Claim

REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
INCONCLUSIVE = "inconclusive"
FORMAT = 1


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    unit: str
    article: dict[str, float | None]
    article_holds: bool | None
    measured: dict[str, float | None]
    verdict: str
    why: str
    ratio: float | None = None  # left / right as measured (claims between two variants)
    article_ratio: float | None = None  # left / right in the article

    @property
    def article_text(self) -> str:
        """The article's side as report.md shows it: values per variant and the ratio."""
        parts = [f"{k}={fmt(self.claim.metric, v)}" for k, v in self.article.items() if v is not None]
        if self.article_ratio is not None:
            source = f"{self.claim.article_ratio}: " if self.claim.article_ratio else ""
            parts.append(f"{source}ratio {self.article_ratio:.2f}x")
        return ", ".join(parts) or "-"

    @property
    def measured_text(self) -> str:
        parts = [f"{k}={fmt(self.claim.metric, v)}" for k, v in self.measured.items()]
        if self.ratio is not None:
            parts.append(f"ratio {self.ratio:.2f}x")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "experiment": self.claim.experiment,
            "metric": self.claim.metric,
            "unit": self.unit,
            "expect": self.claim.expect,
            "says": self.claim.says,
            "article": self.article,
            "article_holds": self.article_holds,
            "measured": self.measured,
            "verdict": self.verdict,
            "why": self.why,
            "ratio": self.ratio,
            "article_ratio": self.article_ratio,
        }


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def judge_claim(
    run: Run, claim: Claim, measurements: dict[str, Measurement], published: Published | None
) -> ClaimResult:
    exp = parse_expectation(claim.expect)
    unit = UNITS.get(claim.metric, "")
    doc = run.spec.doc_of(claim.experiment)
    article: dict[str, float | None] = {}
    for v in exp.variants:
        variant = run.spec.variants.get(v)
        name = variant.published_for(claim.experiment) if variant else None
        pv = published.get(doc, claim.experiment, name, claim.metric) if (published and name) else None
        article[v] = pv.value if pv else None
    article_holds = (
        exp.holds({k: x for k, x in article.items() if x is not None})
        if all(x is not None for x in article.values())
        else None
    )
    article_ratio = _article_ratio(exp, claim, article, published, doc)
    if article_holds is None and article_ratio is not None:
        # the ratio against the factor: `left op factor` with left = the article's ratio
        article_holds = Expectation(exp.left, exp.op, exp.factor, None).holds({exp.left: article_ratio})
    measured: dict[str, float | None] = dict.fromkeys(exp.variants)
    problems = []
    for v in exp.variants:
        m = measurements.get(v)
        if m is None:
            problems.append(f"{v} is not in the run")
        elif m.problem:
            problems.append(f"{v}: {m.problem}")
        elif claim.metric not in m.values:
            hint = " (no young GC in the measured window)" if claim.metric.startswith("young_gc") else ""
            problems.append(f"{v} has no {claim.metric}{hint}")
        else:
            measured[v] = m.values[claim.metric]
    if problems:
        return ClaimResult(
            claim,
            unit,
            article,
            article_holds,
            measured,
            INCONCLUSIVE,
            "; ".join(problems),
            None,
            article_ratio,
        )
    values = {k: x for k, x in measured.items() if x is not None}
    ratio = values[exp.left] / values[exp.right] if exp.right and values[exp.right] else None
    holds = exp.holds(values)
    threshold = exp.threshold(values)
    rhs = (
        f"{exp.factor:g} x {exp.right} ({_fmt(values[exp.right])} {unit})" if exp.right else f"{exp.factor:g}"
    )
    op = exp.op if holds else {"<=": ">", ">=": "<", "<": ">=", ">": "<="}[exp.op]
    why = f"{exp.left} {claim.metric} = {_fmt(values[exp.left])} {unit} {op} {rhs}"
    if exp.right:
        why += f" = {_fmt(threshold)} {unit}"
    if ratio is not None:
        why += f" (ratio {ratio:.2f}x)"
    verdict = REPRODUCED if holds else NOT_REPRODUCED
    return ClaimResult(claim, unit, article, article_holds, measured, verdict, why, ratio, article_ratio)


def _article_ratio(
    exp: Expectation,
    claim: Claim,
    article: dict[str, float | None],
    published: Published | None,
    doc: str,
) -> float | None:
    if exp.right is None:
        return None
    if claim.article_ratio is not None:
        pv = (
            published.get(doc, claim.experiment, claim.article_ratio, f"{claim.metric}_ratio")
            if published
            else None
        )
        return pv.value if pv else None
    left, right = article.get(exp.left), article.get(exp.right)
    return left / right if left is not None and right else None


def judge_all(
    run: Run, measurements: dict[str, dict[str, Measurement]], published: Published | None
) -> list[ClaimResult]:
    return [judge_claim(run, c, measurements.get(c.experiment, {}), published) for c in run.spec.claims]


def write_claims_json(run: Run, results: list[ClaimResult], path: Path) -> None:
    write_json_atomic(
        path,
        {
            "format": FORMAT,
            "lab": run.lab,
            "scale": run.scale,
            "run": run.path.name,
            "claims": {r.claim.id: r.to_json() for r in results},
        },
    )
