"""A claim's verdict as the report, the notebooks and claims.json carry it: the result of judging one claim
over a series, the counts of a lab's results, and claims.json itself (docs/contracts.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heaplab.judge.claim_source import claims_to_judge
from heaplab.judge.comparison import fmt
from heaplab.judge.verdict import (
    LEVELS,
    LEVELS_BY_KIND,
    NOT_MEASURABLE,
    Judgement,
)
from heaplab.lab.schema import Claim
from heaplab.lab.subjects import ENGINE
from heaplab.runfiles.rundir import Run
from heaplab.runfiles.runjson import write_json_atomic

FORMAT = 3


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
    subject_name: str = ENGINE  # what ran: "engine", "Apache HBase 2.6.4"
    events: list[dict[str, int | None]] = field(default_factory=list)  # per run, per variant (COUNT_METRICS)
    preconditions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def decided(self) -> bool:
        """More runs would not change what the claim can say (heaplab run --repeat auto)."""
        if self.verdict == NOT_MEASURABLE:
            return True
        return self.judgement is not None and self.judgement.decided

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
            "subject_name": self.subject_name,
            "doc": self.doc,
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
            "tolerance": c.tolerance,
            "margin": c.margin,
            "region": _finite(j.region) if j else None,
            "no_effect": _finite(j.no_effect) if j and j.no_effect else None,
            "n": j.n if j else 0,
            "indicative": j.indicative if j else None,
            "decided": self.decided,
            "per_run": self.per_run,
            "quantity": self.quantity,
            "events": self.events,
            "preconditions": self.preconditions,
            "mean": j.mean if j else None,
            "low": j.low if j else None,
            "high": j.high if j else None,
            "band": j.band if j else None,
            "measured": self.measured,
            "ratio": self.ratio,
            "verdict": self.verdict,
            "why": self.why,
        }

    @property
    def doc(self) -> str | None:
        return self.claim.doc


def _finite(r: tuple[float, float]) -> list[float | None]:
    """A region as JSON: an infinite end is null."""
    return [None if math.isinf(x) else x for x in r]


def counts(results: list[ClaimResult]) -> dict[str, int]:
    """Claims per verdict level, in LEVELS order (the levels with none left out)."""
    tally = {level: sum(1 for r in results if r.verdict == level) for level in LEVELS}
    return {level: n for level, n in tally.items() if n}


def tallies(results: list[ClaimResult]) -> dict[str, dict[str, dict[str, int]]]:
    """{subject name: {kind: {level: claims}}}: what each subject showed, never mixing kinds."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for r in results:
        kinds = out.setdefault(r.subject_name, {})
        levels = kinds.setdefault(r.claim.kind, dict.fromkeys(LEVELS_BY_KIND[r.claim.kind], 0))
        levels[r.verdict] += 1
    return out


def write_claims_json(runs: list[Run], results: list[ClaimResult], path: Path) -> None:
    run = runs[0]
    _, source = claims_to_judge(run)
    write_json_atomic(
        path,
        {
            "format": FORMAT,
            "lab": run.lab,
            "scale": run.scale,
            "run": run.path.name,
            "runs": [r.path.name for r in runs],
            "claims_from": source,
            "counts": tallies(results),
            "claims": {r.claim.id: r.to_json() for r in results},
        },
    )
