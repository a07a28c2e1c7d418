"""Judge a lab's claims over one or more runs (repeats) and write claims.json.

claims.json format history (the ``format`` field):
  1  {"format", "lab", "scale", "run", "claims": {id: {"experiment", "metric", "unit", "expect", "says",
      "article", "article_holds", "measured", "verdict", "why", "ratio", "article_ratio"}}}
  2  adds "runs" (the run directories judged together, this one first) and per claim "kind", "figure",
     "source", "rule" (effect | bound), "n" (runs with every value), "per_run" ([{variant: value}] in
     run order), "quantity" ([per-run ratio L / R, or value of L]), "mean", "low", "high" (the 95%
     interval of the quantity), "band" (how the interval was obtained); "measured" is each variant's mean
     over the runs; "verdict" is one of heaplab.verdict.LEVELS.

The rule itself (effect / bound, the five levels) is heaplab.verdict's; docs/analysis.md states it.
A claim is `not measurable here` when it is declared so (``measurable: false``), when a variant it names
is unavailable on this target (a JDK, the Apache HBase jars), or when the hosts are smaller than its
``needs``; `inconclusive` when no run has every value it needs (a variant failed, a metric is absent).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heaplab.comparison import fmt
from heaplab.expectation import Expectation, parse_expectation
from heaplab.metrics import UNITS, Measurement
from heaplab.published import Published
from heaplab.rundir import Run
from heaplab.runjson import write_json_atomic
from heaplab.server_errors import scan as scan_server_errors
from heaplab.spec import PEER, Claim
from heaplab.verdict import (
    DIRECTION,
    INCONCLUSIVE,
    LEVELS,
    NOT_MEASURABLE,
    NOT_REPRODUCED,
    REPRODUCED,
    Judgement,
    judge,
)

FORMAT = 2
__all__ = ["DIRECTION", "INCONCLUSIVE", "LEVELS", "NOT_MEASURABLE", "NOT_REPRODUCED", "REPRODUCED"]

Measurements = dict[str, dict[str, Measurement]]  # {experiment: {variant: Measurement}} of one run


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    unit: str
    article: dict[str, float | None]
    article_holds: bool | None
    measured: dict[str, float | None]  # each variant's mean over the runs that have every value
    verdict: str
    why: str
    ratio: float | None = None  # left / right as measured (geometric mean over runs)
    article_ratio: float | None = None  # left / right in the article
    judgement: Judgement | None = None
    per_run: list[dict[str, float | None]] = field(default_factory=list)
    quantity: list[float] = field(default_factory=list)

    @property
    def article_text(self) -> str:
        """The article's side as report.md shows it: its figure, else its values and ratio."""
        if self.claim.figure:
            return self.claim.figure
        parts = [f"{k}={fmt(self.claim.metric or '', v)}" for k, v in self.article.items() if v is not None]
        if self.article_ratio is not None:
            parts.append(f"ratio {self.article_ratio:.2f}x")
        return ", ".join(parts) or "-"

    @property
    def measured_text(self) -> str:
        if self.judgement is None:
            return "-"
        parts = [f"{k}={fmt(self.claim.metric or '', v)}" for k, v in self.measured.items()]
        j = self.judgement
        what = "ratio" if self.ratio is not None else "mean"
        parts.append(f"{what} {j.mean:.3g} [{j.low:.3g}, {j.high:.3g}], n={j.n}")
        return ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        j = self.judgement
        c = self.claim
        return {
            "kind": c.kind,
            "subject": c.subject,
            "experiment": c.experiment,
            "metric": c.metric,
            "unit": self.unit,
            "expect": c.expect,
            "figure": c.figure,
            "source": c.source,
            "says": c.says,
            "article": self.article,
            "article_holds": self.article_holds,
            "article_ratio": self.article_ratio,
            "rule": j.rule if j else None,
            "n": j.n if j else 0,
            "per_run": self.per_run,
            "quantity": self.quantity,
            "mean": j.mean if j else None,
            "low": j.low if j else None,
            "high": j.high if j else None,
            "band": j.band if j else None,
            "measured": self.measured,
            "ratio": self.ratio,
            "verdict": self.verdict,
            "why": self.why,
        }


def _article(
    run: Run, claim: Claim, exp: Expectation, published: Published | None
) -> tuple[dict[str, float | None], float | None, bool | None]:
    """The article's values per variant, its ratio (left / right) and whether its own numbers hold."""
    doc = run.spec.doc_of(str(claim.experiment))
    article: dict[str, float | None] = {}
    for v in exp.variants:
        variant = run.spec.variants.get(v)
        name = variant.published_for(str(claim.experiment)) if variant else None
        pv = (
            published.get(doc, str(claim.experiment), name, str(claim.metric))
            if (published and name)
            else None
        )
        article[v] = pv.value if pv else None
    ratio = None
    if exp.right is not None:
        if claim.article_ratio is not None and published is not None:
            pv = published.get(doc, str(claim.experiment), claim.article_ratio, f"{claim.metric}_ratio")
            ratio = pv.value if pv else None
        else:
            left, right = article.get(exp.left), article.get(exp.right)
            ratio = left / right if left is not None and right else None
    holds = None
    if all(x is not None for x in article.values()):
        holds = exp.holds({k: x for k, x in article.items() if x is not None})
    elif ratio is not None:
        holds = Expectation(exp.left, exp.op, exp.factor, None).holds({exp.left: ratio})
    return article, ratio, holds


def _unmet_needs(claim: Claim, runs: list[Run]) -> str | None:
    """What the smallest host of the runs lacks of the claim's ``needs``, or None."""
    hosts = [h for r in runs for h in r.manifest.get("hosts") or []]
    if not claim.needs or not hosts:
        return None
    lacks = []
    cores = min((h.get("cores") or 0) for h in hosts)
    memory_gb = min((h.get("memory_mb") or 0) for h in hosts) / 1024
    if "cores" in claim.needs and cores < claim.needs["cores"]:
        lacks.append(f"{claim.needs['cores']:g} cores (the smallest host here has {cores})")
    if "memory_gb" in claim.needs and memory_gb < claim.needs["memory_gb"]:
        lacks.append(
            f"{claim.needs['memory_gb']:g} GB of memory (the smallest host here has {memory_gb:.0f})"
        )
    return f"needs {' and '.join(lacks)}" if lacks else None


def _unavailable(exp: Expectation, runs: list[Run]) -> str | None:
    for run in runs:
        for v in exp.variants:
            if run.variant_status(v) == "unavailable":
                return f"{v} is unavailable here: {run.variant_info(v).get('why') or 'no reason given'}"
    return None


def judge_claim(
    runs: list[Run],
    claim: Claim,
    measured_runs: list[Measurements],
    published: Published | None,
    erroring: dict[str, list[str]] | None = None,
) -> ClaimResult:
    """The verdict of one claim over ``runs`` (one lab and scale), ``measured_runs`` in the same order.

    ``erroring``: variant -> the runs in which its servers logged errors (heaplab/server_errors.py); a
    verdict that uses such a variant says so in its why.
    """
    unit = UNITS.get(claim.metric or "", "")
    if not claim.measurable:
        return ClaimResult(claim, unit, {}, None, {}, NOT_MEASURABLE, claim.why or "")
    exp = parse_expectation(str(claim.expect))
    article, article_ratio, article_holds = _article(runs[0], claim, exp, published)
    empty: dict[str, float | None] = dict.fromkeys(exp.variants)
    unavailable = _unavailable(exp, runs)
    if unavailable:
        return ClaimResult(
            claim, unit, article, article_holds, empty, NOT_MEASURABLE, unavailable, None, article_ratio
        )
    per_run, problems = _per_run(claim, exp, runs, measured_runs)
    complete = [row for row in per_run if all(x is not None for x in row.values())]
    too_small = _unmet_needs(claim, runs)
    if too_small:  # judged on no host this small, but what it measured is shown beside the reason
        return ClaimResult(
            claim,
            unit,
            article,
            article_holds,
            _means(exp, complete) if complete else empty,
            NOT_MEASURABLE,
            too_small,
            None,
            article_ratio,
            None,
            per_run,
        )
    if exp.right is not None:  # a ratio over 0 is no ratio (e.g. no young GC at all in a short window)
        zero = [
            (run, row)
            for run, row in zip(runs, per_run, strict=True)
            if row in complete and row[exp.right] == 0
        ]
        problems += [f"{run.path.name}: {exp.right} has {claim.metric} 0, so no ratio" for run, _ in zero]
        complete = [row for row in complete if row[exp.right] != 0]
    if not complete:
        why = "; ".join(problems) or "no run has a value"
        return ClaimResult(
            claim, unit, article, article_holds, empty, INCONCLUSIVE, why, None, article_ratio, None, per_run
        )
    quantity = [_quantity(exp, row) for row in complete]
    j = judge(exp, quantity, str(claim.metric), claim.null, target=claim.kind == PEER)
    measured = _means(exp, complete)
    why = j.why + (f"; left out: {'; '.join(problems)}" if problems else "")
    why += _error_note(exp, erroring or {})
    ratio = j.mean if exp.right is not None else None
    return ClaimResult(
        claim,
        unit,
        article,
        article_holds,
        dict(measured),
        j.level,
        why,
        ratio,
        article_ratio,
        j,
        per_run,
        quantity,
    )


def _means(exp: Expectation, rows: list[dict[str, float | None]]) -> dict[str, float | None]:
    """Each variant's mean over the runs that have every value."""
    return {v: statistics.fmean(float(row[v] or 0) for row in rows) for v in exp.variants}


def _per_run(
    claim: Claim, exp: Expectation, runs: list[Run], measured_runs: list[Measurements]
) -> tuple[list[dict[str, float | None]], list[str]]:
    rows, problems = [], []
    for run, measurements in zip(runs, measured_runs, strict=True):
        row: dict[str, float | None] = dict.fromkeys(exp.variants)
        for v in exp.variants:
            m = measurements.get(str(claim.experiment), {}).get(v)
            if m is None:
                problems.append(f"{run.path.name}: {v} is not in the run")
            elif m.problem:
                problems.append(f"{run.path.name}: {v}: {m.problem}")
            elif claim.metric not in m.values:
                hint = _missing_hint(str(claim.metric))
                problems.append(f"{run.path.name}: {v} has no {claim.metric}{hint}")
            else:
                row[v] = m.values[str(claim.metric)]
        rows.append(row)
    return rows, problems


def _missing_hint(metric: str) -> str:
    if metric.startswith("young_gc"):
        return " (no young GC in the measured window)"
    if metric.startswith("gc_pause"):
        return " (no GC pause in the measured window)"
    if metric.startswith("latency_spike_gc"):
        return " (no spike second: no second's p99 above the phase's p99.9, or no interval log)"
    if metric == "gc_remark_avg":
        return " (no remark pause in the measured window)"
    return ""


def _quantity(exp: Expectation, row: dict[str, float | None]) -> float:
    left = float(row[exp.left] or 0.0)
    if exp.right is None:
        return left
    return left / float(row[exp.right] or 0.0)  # never 0: judge_claim leaves such runs out


def _error_note(exp: Expectation, erroring: dict[str, list[str]]) -> str:
    named = [f"{v} (in {', '.join(erroring[v])})" for v in exp.variants if v in erroring]
    return (
        f"; CAUTION: the servers of {', '.join(named)} logged errors (report: Server errors)" if named else ""
    )


def judge_all(
    runs: list[Run], measured_runs: list[Measurements], published: Published | None
) -> list[ClaimResult]:
    """Every claim of the first run's spec, judged over all ``runs``."""
    erroring: dict[str, list[str]] = {}
    for run in runs:
        for variant in scan_server_errors(run):
            erroring.setdefault(variant, []).append(run.path.name)
    return [judge_claim(runs, c, measured_runs, published, erroring) for c in runs[0].spec.claims]


def counts(results: list[ClaimResult]) -> dict[str, int]:
    """Claims per verdict level, in LEVELS order."""
    return {level: sum(1 for r in results if r.verdict == level) for level in LEVELS}


def write_claims_json(runs: list[Run], results: list[ClaimResult], path: Path) -> None:
    run = runs[0]
    write_json_atomic(
        path,
        {
            "format": FORMAT,
            "lab": run.lab,
            "scale": run.scale,
            "run": run.path.name,
            "runs": [r.path.name for r in runs],
            "counts": counts(results),
            "claims": {r.claim.id: r.to_json() for r in results},
        },
    )
