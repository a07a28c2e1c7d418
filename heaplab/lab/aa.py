"""A/A runs: one variant against itself, to see what the verdicts make of run-to-run noise alone.

``heaplab run LAB --aa VARIANT`` runs VARIANT twice in each repeat, as VARIANT and as its twin
``VARIANT-aa`` (``twin_name``: a name the expectation grammar, the playbook and a directory all accept),
with the same configuration, in the run's random order (heaplab.run.runner).  Nothing else of the lab runs.
run.json records ``aa: {variant, twin}``; every reader of the run sees the lab's spec with the twin added
(``aa_spec``, applied by heaplab.runfiles.rundir.load_run): the twin sits beside VARIANT in each experiment
that compares VARIANT, and its claims are the A/A claims (``aa_claims``); the claims a report judges are the
A/A claims of the lab's claims, the checkout's or the spec's (``claims_of_aa_run``,
heaplab.judge.claim_source).

An A/A claim is a claim of the lab between two variants of an experiment that compares VARIANT, with the
same id, metric, kind, figure, tolerance and the rest, its expectation rewritten to
``VARIANT <op> <factor> * TWIN``: its verdict says how the rule judges a difference that is only noise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from heaplab.lab.expectation import parse_expectation
from heaplab.lab.schema import Claim, Precondition, Spec, SpecError
from heaplab.lab.subjects import on_subject

TWIN_SUFFIX = "-aa"


def twin_name(variant: str) -> str:
    """The twin's name: ``VARIANT-aa`` (``~`` is neither in the expectations' variant names nor the
    playbook's)."""
    return f"{variant}{TWIN_SUFFIX}"


def aa_claims(
    claims: list[Claim],
    variant: str,
    twin: str,
    variants_of: Callable[[str], list[str]],
    *,
    subject: str | None = None,
) -> list[Claim]:
    """The A/A claims: every measurable claim between two variants of an experiment that ``variant``
    belongs to (``variants_of``: an experiment's variants), expectation ``variant <op> <factor> * twin``.

    Dropped: claims against a constant, claims of experiments without ``variant``, claims not measurable
    on any target, and a claim's copies on its subjects (``<id>@<subject>``, heaplab.lab.subjects): rewritten,
    they are the claim itself again.  A precondition on the claim's left or right variant is put on
    ``variant`` or ``twin`` alike.  ``subject``: the server ``variant`` runs on (its ``server``), which
    the A/A claims are then about; on another server than the engine a claim on the engine's allocation
    counter is judged on the GC log's, and one on a metric only the engine counts is kept, not measurable,
    saying why (heaplab.lab.subjects.on_subject).
    """
    ids = {c.id for c in claims}
    out = []
    for c in claims:
        if not c.measurable or not c.expect or c.experiment is None:
            continue
        if "@" in c.id and c.id.split("@")[0] in ids:
            continue
        exp = parse_expectation(c.expect)
        if exp.right is None or variant not in variants_of(c.experiment):
            continue
        rewritten = dataclasses.replace(exp, left=variant, right=twin)
        renamed = {exp.left: variant, str(exp.right): twin}
        fields: dict[str, Any] = {
            "expect": str(rewritten),
            "preconditions": tuple(_renamed(p, renamed) for p in c.preconditions),
        }
        if subject is not None:
            fields["subject"] = subject
            fields.update(on_subject(c, subject))
        out.append(dataclasses.replace(c, **fields))
    return out


def _renamed(p: Precondition, renamed: dict[str, str]) -> Precondition:
    """A precondition of the claim with its variants renamed: the claim's left variant becomes the A/A
    variant, its right the twin; any other keeps its name (and is not in the A/A run)."""
    exp = parse_expectation(p.expect)
    right = renamed.get(exp.right, exp.right) if exp.right else None
    return dataclasses.replace(
        p, expect=str(dataclasses.replace(exp, left=renamed.get(exp.left, exp.left), right=right))
    )


def aa_spec(spec: Spec, variant: str, twin: str | None = None) -> Spec:
    """``spec`` as an A/A run of ``variant`` sees it: the twin (``variant``'s copy, configured alike, with
    no article row of its own) right after ``variant``, in every experiment that lists ``variant``, and
    the A/A claims (about the server ``variant`` runs on)."""
    twin = twin or twin_name(variant)
    if variant not in spec.variants:
        raise SpecError(f"{spec.lab} has no variant {variant!r}; its variants: {', '.join(spec.variants)}")
    if twin in spec.variants:
        raise SpecError(f"{spec.lab} already has a variant {twin!r}: it cannot be {variant}'s A/A twin")
    original = spec.variants[variant]
    variants = {}
    for name, v in spec.variants.items():
        variants[name] = v
        if name == variant:
            variants[twin] = dataclasses.replace(original, name=twin, published=None)
    reproduces = []
    for r in spec.reproduces:
        listed = r.get("variants")
        if listed and variant in listed:
            at = listed.index(variant) + 1
            reproduces.append({**r, "variants": [*listed[:at], twin, *listed[at:]]})
        else:
            reproduces.append(r)
    # subjects: {} as the A/A claims have no copies on other subjects
    with_twin = dataclasses.replace(spec, variants=variants, reproduces=reproduces, subjects={})
    return dataclasses.replace(
        with_twin, claims=claims_of_aa_run(spec.claims, {"variant": variant, "twin": twin}, with_twin)
    )


def claims_of_aa_run(claims: list[Claim], aa: dict[str, Any], spec: Spec) -> list[Claim]:
    """The A/A claims of a run whose run.json has ``aa`` {variant, twin}, from the lab's ``claims`` (the
    checkout's or the spec as run, heaplab.judge.claim_source): about the server the variant runs on.  The A/A
    claims again when given A/A claims."""
    variant, twin = str(aa["variant"]), str(aa["twin"])
    server = spec.variants[variant].server if variant in spec.variants else None
    return aa_claims(claims, variant, twin, spec.variants_of, subject=server)
