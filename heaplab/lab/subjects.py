"""Subjects: the same claim judged on the engine and on Apache HBase (docs/contracts.md section 8).

A lab's claims name the engine's variants (``hbase2-offheap <= 0.11 * hbase1-onheap``).  Its ``subjects``
map each of those variants to the variant that plays the same part on another server, configured with
that server's own keys::

    subjects:
      apache-hbase: {hbase1-onheap: cms-onheap-1.x, hbase2-offheap: cms-offheap-2.x}

Every claim whose variants all have a counterpart is then judged a second time, as ``<id>@apache-hbase``:
the same figure, source and words, the expectation with the variants renamed.  When the engine's claim
does not reproduce and HBase's does, the engine does not model the mechanism; when neither does, this
machine may not be able to show it.  A claim on the engine's own allocation counter
(``alloc_bytes_per_op``) is judged there on the same quantity read from the servers' GC logs
(``gc_alloc_bytes_per_op``, heaplab.analysis.gc_alloc), and its verdict says so.  A claim on a metric only the
engine counts is kept, declared not measurable on that subject, with the reason.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from heaplab.lab.catalogue import ENGINE_ONLY_METRICS, GC_ALLOC, SUBJECT_MEASURES
from heaplab.lab.expectation import parse_expectation

ENGINE = "engine"  # the subject of the claims as written
_MEASURED_WHY = {
    GC_ALLOC: "from the GC log: {metric}, the heap filled between collections "
    "({subject} has no counter of {engine_metric}, which the engine counts per thread)",
}

# The platform-stall control's metrics (heaplab.analysis.spike_overlap): an apache-hbase variant runs no
# hiccup phase (heaplab.lab.schema.Spec.phases_for), so it has none of them.
CONTROL_METRICS = frozenset(
    {"hiccup_p999", "hiccup_max", "hiccup_p999_over_latency_p999", "tail_stall_share"}
)


def on_subject(claim: Any, subject: str) -> dict[str, Any]:
    """What changes in ``claim`` when it is judged on ``subject``: its metric (SUBJECT_MEASURES, with a
    why that the verdict starts with), or measurable False for a metric only the engine counts."""
    if subject == ENGINE:
        return {}
    if claim.metric in SUBJECT_MEASURES:
        metric = SUBJECT_MEASURES[claim.metric]
        why = _MEASURED_WHY[metric].format(metric=metric, subject=subject, engine_metric=claim.metric)
        return {"metric": metric, "why": why}
    if claim.metric in ENGINE_ONLY_METRICS:
        return {
            "measurable": False,
            "why": f"{subject} has no counter of {claim.metric}: the engine's own instrumentation counts it",
        }
    if claim.metric in CONTROL_METRICS:
        return {
            "measurable": False,
            "why": f"{subject} runs without the hiccup control that {claim.metric} reads: the meter is the "
            "engine's (JDK 17) and the variant runs on the JDK its HBase needs",
        }
    return {}


APACHE_HBASE = "apache-hbase"  # a variant's ``server``; its version is read from its servers' log
_VERSION_LINE = re.compile(r"util\.VersionInfo: HBase (\S+)")


def subject_name(run: Any, variant: str) -> str:
    """What ran a variant, as a verdict names it: "engine", or "Apache HBase <version>" (the version the
    region server logged at start-up; "Apache HBase" when no log says)."""
    spec_variant = run.spec.variants.get(variant)
    if getattr(spec_variant, "server", ENGINE) != APACHE_HBASE:
        return ENGINE
    for host in run.server_hosts(variant):
        log = run.variant_dir(variant) / "server" / host / "server.log"
        if log.is_file():
            with log.open(encoding="utf-8", errors="replace") as f:
                for _, line in zip(range(200), f, strict=False):
                    found = _VERSION_LINE.search(line)
                    if found:
                        return f"Apache HBase {found.group(1)}"
    return "Apache HBase"


def pair_name(run: Any, left: str, right: str | None) -> str:
    """What ran a claim's two variants: one name when both ran on the same server, else "<right> -> <left>"
    (a claim reads ``new <= f * old``: Apache HBase 1.4.14 -> 2.6.4 for the off-heap article's pair)."""
    name = subject_name(run, left)
    if right is None:
        return name
    other = subject_name(run, right)
    if other == name:
        return name
    prefix = "Apache HBase "
    if name.startswith(prefix) and other.startswith(prefix):  # "Apache HBase 1.4.14 -> 2.6.4"
        return f"{other} -> {name.removeprefix(prefix)}"
    return f"{other} -> {name}"


class SubjectError(ValueError):
    pass


def parse_subjects(raw: Any, where: str, variants: dict[str, Any]) -> dict[str, dict[str, str]]:
    """{subject: {engine variant: its counterpart}}, checked against the lab's variants."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SubjectError(f"{where}: subjects must map a subject name to {{engine variant: variant}}")
    out: dict[str, dict[str, str]] = {}
    for name, mapping in raw.items():
        sw = f"{where}: subjects.{name}"
        if str(name) == ENGINE:
            raise SubjectError(f"{sw}: 'engine' is the subject of the claims as written")
        if not isinstance(mapping, dict) or not mapping:
            raise SubjectError(f"{sw}: expected {{engine variant: its counterpart}}")
        for ours, theirs in mapping.items():
            for v in (ours, theirs):
                if str(v) not in variants:
                    raise SubjectError(f"{sw}: unknown variant {v!r}; valid: {', '.join(variants)}")
            if getattr(variants[str(ours)], "server", ENGINE) != ENGINE:
                raise SubjectError(f"{sw}: {ours!r} is not an engine variant")
        out[str(name)] = {str(k): str(v) for k, v in mapping.items()}
    return out


def subject_claims(
    claims: list[Any], subjects: dict[str, dict[str, str]], compared: Callable[[str], list[str]]
) -> list[Any]:
    """Each measurable engine claim again on every subject that has all its variants, where the claim's
    experiment compares them (``compared``: an experiment's variants)."""
    derived = []
    for subject, mapping in subjects.items():
        for c in claims:
            if not c.measurable or c.subject != ENGINE:
                continue
            exp = parse_expectation(str(c.expect))
            theirs = [mapping.get(v) for v in exp.variants]
            if None in theirs or not set(theirs) <= set(compared(str(c.experiment))):
                continue
            renamed = dataclasses.replace(
                exp, left=mapping[exp.left], right=mapping[exp.right] if exp.right else None
            )
            fields: dict[str, Any] = {"id": f"{c.id}@{subject}", "expect": str(renamed), "subject": subject}
            derived.append(dataclasses.replace(c, **fields, **on_subject(c, subject)))
    return derived
