"""experiment.yml's ``reproduces`` and ``claims`` read and checked (docs/contracts.md section 8): each claim
against the variants, metrics and articles the lab names, then copied onto every subject the lab has."""

from __future__ import annotations

import dataclasses
from typing import Any

from heaplab.lab.catalogue import METRICS
from heaplab.lab.expectation import ExpectationError, parse_expectation
from heaplab.lab.schema import (
    CLAIM_KEYS,
    CLAIM_KINDS,
    CLAIM_NEEDS,
    DEFAULT_MARGIN,
    DEFAULT_TOLERANCE,
    LEGACY_KINDS,
    PRECONDITION_KEYS,
    REGIONS,
    Claim,
    Precondition,
    Spec,
    SpecError,
    Variant,
    required,
)
from heaplab.lab.subjects import ENGINE, subject_claims


def parse_claims(
    raw: dict[str, Any],
    where: str,
    reproduces: list[dict[str, Any]],
    variants: dict[str, Variant],
) -> list[Claim]:
    """The claims.  kind, figure and source are optional here (the spec copies in older runs lack them);
    heaplab/tests/test_claims_faithful.py requires them of every lab."""
    claims = []
    seen: set[str] = set()
    for entry in raw.get("claims", []) or []:
        cw = f"{where}: claim {entry.get('id', '?') if isinstance(entry, dict) else entry}"
        if not isinstance(entry, dict):
            raise SpecError(f"{cw}: expected a mapping")
        c = {"null" if k is None else k: v for k, v in entry.items()}  # YAML reads a bare `null:` as None
        unknown_keys = sorted(set(c) - set(CLAIM_KEYS))
        if unknown_keys:
            raise SpecError(f"{cw}: unknown key(s) {', '.join(unknown_keys)}; valid: {', '.join(CLAIM_KEYS)}")
        claim = _claim(c, cw)
        if claim.measurable and claim.expect:
            claim = _on_its_server(claim, variants)
        if claim.id in seen:
            raise SpecError(f"{cw}: the id is used twice")
        seen.add(claim.id)
        if claim.measurable:
            _check_judged_claim(claim, cw, reproduces, variants)
        claims.append(claim)
    return claims


def _claim(c: dict[str, Any], cw: str) -> Claim:
    kind = str(c.get("kind", "article"))
    kind = LEGACY_KINDS.get(kind, kind)
    if kind not in CLAIM_KINDS:
        raise SpecError(f"{cw}: kind {kind!r} is not one of {', '.join(CLAIM_KINDS)}")
    measurable = c.get("measurable", True)
    if not isinstance(measurable, bool):
        raise SpecError(f"{cw}: measurable must be true or false")
    if not measurable and not c.get("why"):
        raise SpecError(f"{cw}: a claim with measurable: false needs 'why' (what no target here can show)")
    needs = c.get("needs") or {}
    if not isinstance(needs, dict) or any(k not in CLAIM_NEEDS for k in needs):
        raise SpecError(f"{cw}: needs takes {', '.join(CLAIM_NEEDS)} (e.g. needs: {{cores: 8}})")
    null = c.get("null")
    if null is not None and (isinstance(null, bool) or not isinstance(null, (int, float)) or null <= 0):
        raise SpecError(f"{cw}: null must be a positive number (the value of 'no effect')")
    field_of = (lambda key: str(required(c, key, cw))) if measurable else c.get
    tolerance = _fraction(c, "tolerance", DEFAULT_TOLERANCE, cw)
    margin = _fraction(c, "margin", DEFAULT_MARGIN, cw)
    region = c.get("region")
    if region is not None and region not in REGIONS:
        raise SpecError(f"{cw}: region must be one of {', '.join(REGIONS)}, not {region!r}")
    return Claim(
        id=str(required(c, "id", cw)),
        experiment=field_of("experiment"),
        metric=field_of("metric"),
        expect=field_of("expect"),
        says=c.get("says"),
        article_ratio=c.get("article_ratio"),
        kind=kind,
        figure=c.get("figure"),
        source=c.get("source"),
        null=float(null) if null is not None else None,
        needs={str(k): float(v) for k, v in needs.items()},
        measurable=measurable,
        why=c.get("why"),
        doc=str(c["doc"]) if c.get("doc") is not None else None,
        tolerance=tolerance,
        margin=margin,
        region=region,
        preconditions=_preconditions(c.get("preconditions"), cw),
    )


def _on_its_server(claim: Claim, variants: dict[str, Variant]) -> Claim:
    """A claim whose variants all run on another server than the engine (lab 04's CMS claims on Apache
    HBase) is that server's claim: its subject says so, and its tally is that subject's."""
    try:
        named = [variants[v] for v in parse_expectation(str(claim.expect)).variants if v in variants]
    except ExpectationError:
        return claim  # reported by _check_judged_claim
    servers = {v.server for v in named}
    if len(servers) == 1 and named and named[0].server != ENGINE:
        return dataclasses.replace(claim, subject=named[0].server)
    return claim


def _fraction(c: dict[str, Any], key: str, default: float, cw: str) -> float:
    x = c.get(key, default)
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x < 1:
        raise SpecError(f"{cw}: {key} must be a fraction between 0 and 1 (e.g. 0.15 for +-15%), not {x!r}")
    return float(x)


def _preconditions(raw: Any, cw: str) -> tuple[Precondition, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise SpecError(f"{cw}: preconditions must be a list of {{metric, expect, why}}")
    out = []
    for p in raw:
        if (
            not isinstance(p, dict)
            or set(p) - set(PRECONDITION_KEYS)
            or not p.get("metric")
            or not p.get("expect")
        ):
            raise SpecError(
                f"{cw}: a precondition is {{metric, expect, why}}, e.g. "
                '{metric: gc_pause_fraction, expect: "hbase1-onheap >= 0.05"}, not {p!r}'
            )
        if p["metric"] not in METRICS:
            raise SpecError(f"{cw}: precondition: unknown metric {p['metric']!r}")
        try:
            exp = parse_expectation(str(p["expect"]))
        except ExpectationError as e:
            raise SpecError(f"{cw}: precondition: {e}") from e
        if exp.right is not None and not exp.factor:
            raise SpecError(f"{cw}: precondition: {p['expect']!r} compares with 0")
        out.append(Precondition(str(p["metric"]), str(p["expect"]), p.get("why")))
    return tuple(out)


def _check_judged_claim(
    claim: Claim, cw: str, reproduces: list[dict[str, Any]], variants: dict[str, Variant]
) -> None:
    if claim.experiment not in {r["experiment"] for r in reproduces}:
        raise SpecError(f"{cw}: experiment {claim.experiment!r} is not in 'reproduces'")
    if claim.metric not in METRICS:
        raise SpecError(f"{cw}: unknown metric {claim.metric!r}; valid: {', '.join(METRICS)}")
    try:
        exp = parse_expectation(str(claim.expect))
    except ExpectationError as e:
        raise SpecError(f"{cw}: {e}") from e
    unknown = [v for v in exp.variants if v not in variants]
    if unknown:
        raise SpecError(f"{cw}: unknown variant(s) {', '.join(unknown)} in {claim.expect!r}")
    compared = next((r.get("variants") for r in reproduces if r["experiment"] == claim.experiment), None)
    outside = [v for v in exp.variants if compared and v not in compared]
    if outside:
        raise SpecError(
            f"{cw}: variant(s) {', '.join(outside)} not compared in {claim.experiment}'s 'variants'"
        )
    if claim.article_ratio is not None and exp.right is None:
        raise SpecError(f"{cw}: article_ratio needs an expectation between two variants, e.g. 'a >= 1.3 * b'")
    if claim.null is not None:
        if exp.right is not None:
            raise SpecError(f"{cw}: null is for a claim against a constant; a ratio's null is 1")
        beyond = exp.factor > claim.null if exp.op in (">", ">=") else exp.factor < claim.null
        if not beyond:
            raise SpecError(
                f"{cw}: with null {claim.null:g} the bound {exp.factor:g} must lie where {exp.op} points"
            )


def parse_reproduces(raw: dict[str, Any], where: str) -> list[dict[str, Any]]:
    out = []
    for r in required(raw, "reproduces", where):
        rw = f"{where}: reproduces {r.get('experiment', '?') if isinstance(r, dict) else r}"
        entry: dict[str, Any] = {
            "doc": str(required(r, "doc", rw)),
            "experiment": str(required(r, "experiment", rw)),
        }
        if r.get("variants") is not None:
            unknown = [v for v in r["variants"] if v not in (raw.get("variants") or {})]
            if unknown:
                raise SpecError(f"{rw}: unknown variant(s) {', '.join(map(str, unknown))}")
            entry["variants"] = [str(v) for v in r["variants"]]
        out.append(entry)
    return out


def with_subject_claims(spec: Spec, where: str) -> Spec:
    """The spec with each claim's twins on its subjects (heaplab.lab.subjects) right after it."""
    by_origin: dict[str, list[Claim]] = {}
    for derived in subject_claims(spec.claims, spec.subjects, spec.variants_of):
        if derived.measurable:
            _check_judged_claim(derived, f"{where}: claim {derived.id}", spec.reproduces, spec.variants)
        by_origin.setdefault(derived.id.split("@")[0], []).append(derived)
    claims = [d for c in spec.claims for d in (c, *by_origin.get(c.id, []))]
    return dataclasses.replace(spec, claims=claims)
