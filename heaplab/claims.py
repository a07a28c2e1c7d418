"""Judge a lab's claims against a run and write claims.json.

claims.json format history (the ``format`` field):
  1  {"format", "lab", "scale", "run", "claims": {id: {"experiment", "metric", "unit", "expect", "says",
      "article": {variant: value|null}, "article_holds": bool|null, "measured": {variant: value|null},
      "verdict": "reproduced"|"not reproduced"|"inconclusive", "why"}}}

A claim is inconclusive when a variant it names is unavailable, failed, missing from the run, or has no
value for the metric; otherwise it is reproduced exactly when the expectation holds on the measured values.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heaplab.expectation import parse_expectation
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
        pv = (
            published.get(doc, claim.experiment, variant.published, claim.metric)
            if (published and variant and variant.published)
            else None
        )
        article[v] = pv.value if pv else None
    article_holds = (
        exp.holds({k: x for k, x in article.items() if x is not None})
        if all(x is not None for x in article.values())
        else None
    )
    measured: dict[str, float | None] = dict.fromkeys(exp.variants)
    problems = []
    for v in exp.variants:
        m = measurements.get(v)
        if m is None:
            problems.append(f"{v} is not in the run")
        elif m.problem:
            problems.append(f"{v}: {m.problem}")
        elif claim.metric not in m.values:
            problems.append(f"{v} has no {claim.metric} (e.g. no young GC in the measured window)")
        else:
            measured[v] = m.values[claim.metric]
    if problems:
        return ClaimResult(claim, unit, article, article_holds, measured, INCONCLUSIVE, "; ".join(problems))
    values = {k: x for k, x in measured.items() if x is not None}
    holds = exp.holds(values)
    threshold = exp.threshold(values)
    rhs = (
        f"{exp.factor:g} x {exp.right} ({_fmt(values[exp.right])} {unit})" if exp.right else f"{exp.factor:g}"
    )
    op = exp.op if holds else {"<=": ">", ">=": "<", "<": ">=", ">": "<="}[exp.op]
    why = f"{exp.left} {claim.metric} = {_fmt(values[exp.left])} {unit} {op} {rhs}"
    if exp.right:
        why += f" = {_fmt(threshold)} {unit}"
    return ClaimResult(
        claim, unit, article, article_holds, measured, REPRODUCED if holds else NOT_REPRODUCED, why
    )


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
