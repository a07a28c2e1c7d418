"""Judge a lab's claims over one or more runs (repeats) and write claims.json.

claims.json format history (the ``format`` field):
  1  {"format", "lab", "scale", "run", "claims": {id: {"experiment", "metric", "unit", "expect", "says",
      "article", "article_holds", "measured", "verdict", "why", "ratio", "article_ratio"}}}
  2  adds "runs" (the run directories judged together, this one first) and per claim "kind", "figure",
     "source", "rule" (effect | bound), "n" (runs with every value), "per_run" ([{variant: value}] in
     run order), "quantity" ([per-run ratio L / R, or value of L]), "mean", "low", "high" (the 95%
     interval of the quantity), "band" (how the interval was obtained); "measured" is each variant's mean
     over the runs; "verdict" is one of heaplab.judge.verdict.LEVELS.
  3  the two-region rule: "claims_from" (whose claims were judged: the lab's experiment.yml in the checkout,
     or the spec as run) and "counts" per subject and kind; per claim "subject_name" ("engine", "Apache
     HBase 2.6.4": what ran), "doc" (the article it is tallied under), "rule" (region | bound), "region"
     (R: the article's region, or the values meeting a bound; null for inf), "no_effect" (N), "tolerance",
     "margin", "indicative" (fewer runs than a verdict needs), "decided", "events" (per run, per variant,
     the GC events or spike seconds a count-like metric rests on), "preconditions" ([{expect, metric,
     measured, holds}]); "verdict" is one of heaplab.judge.verdict.LEVELS_BY_KIND[kind].

The rule itself (region / bound, the labels) is heaplab.judge.verdict's; docs/analysis.md states it.
A claim is `not measurable here` when it is declared so (``measurable: false``), when a variant it names
is unavailable on this target (a JDK, the Apache HBase jars), when the hosts are smaller than its
``needs``, or when one of its ``preconditions`` fails on the runs (its figures are still shown);
`inconclusive` when no run has every value it needs (a variant failed, a metric is absent), when fewer than
three runs have, or when a count-like metric rests on fewer than MIN_EVENTS events in a run (Poisson: the
count alone is then uncertain by a third or more).
"""

from __future__ import annotations

import dataclasses
import statistics
from functools import partial
from typing import Any

from heaplab.analysis.metrics import Measurement
from heaplab.judge.claim_results import ClaimResult
from heaplab.judge.claim_source import claims_to_judge
from heaplab.judge.comparison import fmt
from heaplab.judge.verdict import (
    INCONCLUSIVE,
    NOT_MEASURABLE,
    REGION,
    Judgement,
    demote,
    judge,
)
from heaplab.lab.catalogue import UNITS
from heaplab.lab.expectation import Expectation, parse_expectation
from heaplab.lab.presets import describe, smallest_preset
from heaplab.lab.published import Published
from heaplab.lab.schema import Claim
from heaplab.lab.subjects import ENGINE, pair_name
from heaplab.runfiles.rundir import Run
from heaplab.runfiles.server_errors import scan as scan_server_errors

Measurements = dict[str, dict[str, Measurement]]  # {experiment: {variant: Measurement}} of one run


# Count-like metrics rest on a number of events (GCs, spike seconds): below MIN_EVENTS in a run, the
# count's own Poisson noise (1 / sqrt(k): a third at 9) is larger than most effects the labs look for.
MIN_EVENTS = 10
COUNT_METRICS = {
    "young_gc_rate": "young GCs",
    "young_gc_per_mop": "young GCs",
    "gc_count": "GC pauses",
    "gc_count_per_hour": "GC pauses",
    "full_gc_count": "full GCs",
    "cms_concurrent_mode_failures": "concurrent-mode failures",
    "latency_spike_gc_lift": "spike seconds",
    "latency_spike_gc_share": "spike seconds",
    "tail_gc_share": "tail requests",  # heaplab.analysis.spike_overlap: the requests above the phase's P99.9
    "tail_gc_lift": "tail requests",
    "tail_stall_share": "tail requests",
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
    hosts = [h for r in runs for h in r.hosts]
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
    if not lacks:
        return None
    preset = smallest_preset(claim.needs.get("cores", 0), claim.needs.get("memory_gb", 0))
    where = (
        f"measurable on {describe(preset)}" if preset else "no cluster the project provisions has such hosts"
    )
    return f"needs {' and '.join(lacks)}; {where}"


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

    ``erroring``: variant -> the runs in which its servers logged errors (heaplab/runfiles/server_errors.py);
    a verdict that uses such a variant says so in its why.
    """
    unit = UNITS.get(claim.metric or "", "")
    claim = _with_doc(claim, runs[0])
    exp = parse_expectation(str(claim.expect)) if claim.expect else None
    name = pair_name(runs[0], exp.left, exp.right) if exp else ENGINE
    if not claim.measurable or exp is None:
        return ClaimResult(claim, unit, {}, None, {}, NOT_MEASURABLE, claim.why or "", subject_name=name)
    article, article_ratio, article_holds = _article(runs[0], claim, exp, published)
    empty: dict[str, float | None] = dict.fromkeys(exp.variants)
    result = partial(
        ClaimResult, claim, unit, article, article_holds, article_ratio=article_ratio, subject_name=name
    )
    unavailable = _unavailable(exp, runs)
    if unavailable:
        return result(empty, NOT_MEASURABLE, unavailable)
    per_run, problems = _per_run(str(claim.experiment), str(claim.metric), exp.variants, runs, measured_runs)
    complete = [row for row in per_run if all(x is not None for x in row.values())]
    too_small = _unmet_needs(claim, runs)
    if too_small:  # judged on no host this small, but what it measured is shown beside the reason
        return result(
            _means(exp, complete) if complete else empty, NOT_MEASURABLE, too_small, per_run=per_run
        )
    if exp.right is not None:  # a ratio over 0 is no ratio: say which way, leave the run out
        for run, row in zip(runs, per_run, strict=True):
            if row in complete and row[exp.right] == 0:
                both = "both variants have" if row[exp.left] == 0 else f"{exp.right} has"
                problems.append(f"{run.path.name}: {both} {claim.metric} 0, so no ratio")
        complete = [row for row in complete if row[exp.right] != 0]
    if not complete:
        why = "; ".join(problems) or "no run has a value"
        # a variant whose tool cannot give the metric in any run: not measurable, not undecided
        level = (
            NOT_MEASURABLE
            if _cannot_measure(str(claim.experiment), str(claim.metric), exp.variants, measured_runs)
            else INCONCLUSIVE
        )
        return result(empty, level, f"{claim.why}; {why}" if claim.why else why, per_run=per_run)
    quantity = [_quantity(exp, row) for row in complete]
    j = judge(
        exp,
        quantity,
        null=claim.null,
        kind=claim.kind,
        tolerance=claim.tolerance,
        margin=claim.margin,
        region=claim.region,
    )
    events = _events(claim, exp, runs, measured_runs)
    too_few = _too_few_events(claim, exp, j, events)
    if too_few:
        j = demote(j, too_few)
    preconditions = _preconditions(claim, runs, measured_runs)
    failed = [p for p in preconditions if p["holds"] is False]
    level = NOT_MEASURABLE if failed else j.level
    why = "; ".join(_precondition_text(p) for p in failed) + ("; measured: " if failed else "") + j.why
    why += f"; left out: {'; '.join(problems)}" if problems else ""
    why += _error_note(exp, erroring or {})
    why += _busy_note(str(claim.experiment), exp, runs, measured_runs)
    why = f"{claim.why}; {why}" if claim.why else why  # a measurable claim's note (heaplab.lab.subjects)
    ratio = j.mean if exp.right is not None else None
    return result(
        _means(exp, complete),
        level,
        why,
        ratio,
        judgement=j,
        per_run=per_run,
        quantity=quantity,
        events=events,
        preconditions=preconditions,
    )


def _with_doc(claim: Claim, run: Run) -> Claim:
    """The claim with the article it is tallied under: its own ``doc``, else its experiment's."""
    if claim.doc is not None:
        return claim
    doc = run.spec.doc_of(claim.experiment) if claim.experiment else run.spec.reproduces[0]["doc"]
    return dataclasses.replace(claim, doc=doc)


def _events(
    claim: Claim, exp: Expectation, runs: list[Run], measured_runs: list[Measurements]
) -> list[dict[str, int | None]]:
    if claim.metric not in COUNT_METRICS:
        return []
    rows = []
    for measurements in measured_runs[: len(runs)]:
        row: dict[str, int | None] = {}
        for v in exp.variants:
            m = measurements.get(str(claim.experiment), {}).get(v)
            row[v] = m.events.get(str(claim.metric)) if m is not None else None
        rows.append(row)
    return rows


def _too_few_events(
    claim: Claim, exp: Expectation, j: Judgement, events: list[dict[str, int | None]]
) -> str | None:
    """Why a count-like effect is too thin to judge (a bound such as "no full GC" needs no Poisson check:
    zero events is exact)."""
    if not events or (j.rule != REGION and exp.right is None):
        return None
    counted = [k for row in events for k in row.values() if k is not None]
    if not counted or min(counted) >= MIN_EVENTS:
        return None
    what = COUNT_METRICS[str(claim.metric)]
    return (
        f"too few {what} to judge: {min(counted)} in a run (a verdict needs {MIN_EVENTS} in every run of "
        "every variant; a count of k is uncertain by about 1/sqrt(k))"
    )


def _preconditions(claim: Claim, runs: list[Run], measured_runs: list[Measurements]) -> list[dict[str, Any]]:
    """Each precondition with the variants' means over the runs and whether it holds (None: no value)."""
    out = []
    for p in claim.preconditions:
        exp = parse_expectation(p.expect)
        rows, _ = _per_run(str(claim.experiment), p.metric, exp.variants, runs, measured_runs)
        complete = [row for row in rows if all(x is not None for x in row.values())]
        measured = _means(exp, complete) if complete else dict.fromkeys(exp.variants)
        known = {k: float(x) for k, x in measured.items() if x is not None}
        holds = exp.holds(known) if len(known) == len(exp.variants) else None
        out.append(
            {"metric": p.metric, "expect": p.expect, "why": p.why, "measured": measured, "holds": holds}
        )
    return out


def _precondition_text(p: dict[str, Any]) -> str:
    values = ", ".join(f"{k} {fmt(p['metric'], x)}" for k, x in p["measured"].items())
    because = f" ({p['why']})" if p.get("why") else ""
    return f"precondition `{p['expect']}` on {p['metric']} fails: {values}{because}"


def _means(exp: Expectation, rows: list[dict[str, float | None]]) -> dict[str, float | None]:
    """Each variant's mean over the runs that have every value."""
    return {v: statistics.fmean(float(row[v] or 0) for row in rows) for v in exp.variants}


def _cannot_measure(
    experiment: str, metric: str, variants: list[str], measured_runs: list[Measurements]
) -> bool:
    """True when, in every run, one of the claim's ``variants`` cannot give ``metric`` at all
    (heaplab.analysis.metrics.Measurement.cannot: e.g. HBase 1.4's buffered substitute for a batch's
    latencies)."""

    def cannot(measurements: Measurements) -> bool:
        by_variant = measurements.get(experiment, {})
        return any(v in by_variant and metric in by_variant[v].cannot for v in variants)

    return bool(measured_runs) and all(cannot(m) for m in measured_runs)


def _per_run(
    experiment: str, metric: str, variants: list[str], runs: list[Run], measured_runs: list[Measurements]
) -> tuple[list[dict[str, float | None]], list[str]]:
    rows, problems = [], []
    for run, measurements in zip(runs, measured_runs, strict=True):
        row: dict[str, float | None] = dict.fromkeys(variants)
        for v in variants:
            m = measurements.get(experiment, {}).get(v)
            if m is None:
                problems.append(f"{run.path.name}: {v} is not in the run")
            elif m.problem:
                problems.append(f"{run.path.name}: {v}: {m.problem}")
            elif metric not in m.values:
                hint = f" ({m.absent[metric]})" if metric in m.absent else _missing_hint(metric)
                problems.append(f"{run.path.name}: {v} has no {metric}{hint}")
            else:
                row[v] = m.values[metric]
        rows.append(row)
    return rows, problems


# why a metric can be missing from a run, by the start of its name
_MISSING_HINTS = (
    ("young_gc", " (no young GC in the measured window)"),
    ("gc_pause", " (no GC pause in the measured window)"),
    ("latency_spike_gc", " (no spike second: no second's p99 above the phase's p99.9, or no interval log)"),
    ("gc_remark_avg", " (no remark pause in the measured window)"),
    (
        "tail_gc_lift",
        " (no get above the phase's P99.9, or no GC or safepoint stop touched any get, or no interval log)",
    ),
    ("hiccup", " (no hiccup control log in the measured window)"),
    ("tail_stall_share", " (no hiccup control log in the measured window)"),
)


def _missing_hint(metric: str) -> str:
    return next((hint for start, hint in _MISSING_HINTS if metric.startswith(start)), "")


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


def _busy_note(experiment: str, exp: Expectation, runs: list[Run], measured_runs: list[Measurements]) -> str:
    """A caution when other work shared a host while one of the claim's variants was measured
    (heaplab.analysis.proc_cpu: a disturbed phase)."""
    named = []
    for run, measured in zip(runs, measured_runs, strict=True):
        for variant in exp.variants:
            m = measured.get(experiment, {}).get(variant)
            cpus = (m.host_cpu or {}).values() if m is not None else ()
            busy = [h for h in cpus if not isinstance(h, str) and h.busy_with_other_work]
            if busy:
                other = max(h.other_share for h in busy)
                named.append(f"{variant} in {run.path.name} (other work {other:.0%} of a host's CPUs)")
    return (
        f"; CAUTION: other work shared the machine while {', '.join(named)} ran: rerun on an idle machine"
        if named
        else ""
    )


def judge_all(
    runs: list[Run], measured_runs: list[Measurements], published: Published | None
) -> list[ClaimResult]:
    """Every claim of the lab (heaplab.judge.claim_source: the checkout's, or the spec as run), judged over
    all
    ``runs``."""
    erroring: dict[str, list[str]] = {}
    for run in runs:
        for variant in scan_server_errors(run):
            erroring.setdefault(variant, []).append(run.path.name)
    claims, _ = claims_to_judge(runs[0])
    return [judge_claim(runs, c, measured_runs, published, erroring) for c in claims]
