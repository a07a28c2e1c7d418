"""Load and validate a lab's experiment.yml (heaplab.lab.schema says what it holds), and expand it for one
scale.

A variant's ``jdk: N`` is the lowest JDK feature version its servers need; heaplab.run.runner checks
the server hosts' JDK (heaplab.run.jdk) before the variant starts and records it unavailable when too old.
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import Any

import yaml

from heaplab.lab.phase_time import level_off, measure_seconds, sized_by, steady_after
from heaplab.lab.schema import (
    HBASE_ADMIN_COMMANDS,
    HBASE_VERSIONS,
    HICCUP,
    METRICS_COMMAND,
    SERVERS,
    TOOLS,
    VARIANT_KEYS,
    Phase,
    Spec,
    SpecError,
    Variant,
    required,
)
from heaplab.lab.spec_claims import parse_claims, parse_reproduces, with_subject_claims
from heaplab.lab.subjects import SubjectError, parse_subjects
from heaplab.lab.sweeps import spec_sweeps
from heaplab.paths import LABS_DIR, SPEC_NAME


def spec_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def list_labs(root: Path) -> list[Path]:
    """Spec files of every lab, sorted by lab directory name."""
    return sorted((root / LABS_DIR).glob(f"*/{SPEC_NAME}"))


def resolve_lab(root: Path, name: str) -> Path:
    path = root / LABS_DIR / name / SPEC_NAME
    if not path.is_file():
        valid = ", ".join(p.parent.name for p in list_labs(root)) or "(none)"
        raise SpecError(f"unknown lab {name!r}; valid labs: {valid}")
    return path


def load_spec(path: Path | str) -> Spec:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise SpecError(f"{path}: cannot read spec: {e}") from e
    return parse_spec(raw, path)


def _site_value(value: Any, where: str) -> str:
    """A site value as engine-site.xml carries it: booleans true/false, numbers and strings as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise SpecError(f"{where}: must be a string, number or true/false, not {type(value).__name__}")


def _site(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: expected a mapping of engine-site keys to values")
    return {str(k): _site_value(v, f"{where}.{k}") for k, v in raw.items()}


def _published(raw: Any, where: str, experiments: set[str]) -> str | dict[str, str] | None:
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, dict):
        unknown = sorted(set(map(str, raw)) - experiments)
        if unknown:
            raise SpecError(
                f"{where}: published names experiment(s) {', '.join(unknown)} the lab does not reproduce; "
                f"valid: {', '.join(sorted(experiments))}"
            )
        return {str(k): str(v) for k, v in raw.items()}
    raise SpecError(f"{where}: published must be the article's variant name or a mapping experiment -> name")


def _variants(raw: dict[str, Any], where: str, experiments: set[str]) -> dict[str, Variant]:
    variants: dict[str, Variant] = {}
    scale_params = {str(k) for s in (raw.get("scales") or {}).values() if isinstance(s, dict) for k in s}
    for name, v in required(raw, "variants", where).items():
        vw = f"{where}: variant {name}"
        if not isinstance(v, dict):
            raise SpecError(f"{vw}: expected a mapping (profile, ...)")
        unknown = sorted(set(map(str, v)) - set(VARIANT_KEYS))
        if unknown:
            raise SpecError(f"{vw}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(VARIANT_KEYS)}")
        available = bool(v.get("available", True))
        if not available and not v.get("why"):
            raise SpecError(f"{vw}: an unavailable variant needs a 'why'")
        vars_ = _site(v.get("vars"), f"{vw}: vars")
        shadowed = sorted(set(vars_) & (scale_params | {"total_rows"}))
        if shadowed:
            raise SpecError(
                f"{vw}: vars {', '.join(shadowed)} would hide the scale parameter(s) of that name"
            )
        server = _server(v, vw)
        variants[name] = Variant(
            name=name,
            profile=str(v.get("profile", server) if server != "engine" else required(v, "profile", vw)),
            published=_published(v.get("published"), vw, experiments),
            server_jvm=[str(f) for f in v.get("server_jvm", v.get("jvm", []))],
            client_jvm=[str(f) for f in v.get("client_jvm", [])],
            available=available,
            why=v.get("why"),
            site=_site(v.get("site"), f"{vw}: site"),
            vars=vars_,
            jdk=_jdk(v.get("jdk"), vw),
            server=server,
            heap=None if v.get("heap") is None else str(v["heap"]),
            hbase_version=_hbase_version(v, server, vw),
        )
    return variants


def _server(v: dict[str, Any], where: str) -> str:
    """``server: apache-hbase`` (default engine)."""
    server = str(v.get("server", "engine"))
    if server not in SERVERS:
        raise SpecError(f"{where}: unknown server {server!r}; valid: {', '.join(SERVERS)}")
    return server


def _hbase_version(v: dict[str, Any], server: str, where: str) -> str:
    """An apache-hbase variant's ``hbase_version`` (default HBASE_VERSIONS[0]); "" for the engine."""
    raw = v.get("hbase_version")
    if server != "apache-hbase":
        if raw is not None:
            raise SpecError(f"{where}: hbase_version goes with server: apache-hbase, not server: {server}")
        return ""
    version = HBASE_VERSIONS[0] if raw is None else str(raw)
    if version not in HBASE_VERSIONS:
        raise SpecError(
            f"{where}: unknown hbase_version {version!r}; valid: {', '.join(HBASE_VERSIONS)} (quote it)"
        )
    return version


def _check_hbase_phases(variants: dict[str, Variant], phases: list[Phase], where: str) -> None:
    """An apache-hbase variant runs pe and ycsb phases (HBase's PE; the engine's YCSB launcher with HBase's
    binding) and the admin steps LabAdmin knows; its hiccup phases are left out (Spec.phases_for); a 1.x
    one has no ycsb phase (its binding is 2.x's)."""
    if not any(v.server == "apache-hbase" for v in variants.values()):
        return
    old = sorted(name for name, v in variants.items() if v.hbase1)
    for p in phases:
        if old and p.tool == "ycsb":
            raise SpecError(
                f"{where}: phase {p.name}: variant {old[0]} runs Apache HBase "
                f"{variants[old[0]].hbase_version}, which runs pe and admin phases only (no ycsb)"
            )
        words = p.args.split()
        admin_ok = p.tool == "admin" and bool(words) and words[0] in HBASE_ADMIN_COMMANDS
        if p.tool not in ("pe", "ycsb", HICCUP) and not admin_ok:
            raise SpecError(
                f"{where}: phase {p.name}: an apache-hbase variant runs pe and ycsb phases and admin "
                f"{'|'.join(HBASE_ADMIN_COMMANDS)} TABLE only, not {p.tool} {' '.join(words[:1])}".rstrip()
            )


def _jdk(raw: Any, where: str) -> int | None:
    """``jdk: 21``, the lowest JDK feature version (8 or more) the variant needs."""
    if raw is None:
        return None
    if isinstance(raw, bool) or not str(raw).isdigit() or int(raw) < 8:
        raise SpecError(f"{where}: jdk must be a JDK feature version such as 21 (8 or more), not {raw!r}")
    return int(raw)


def _measure(raw: Any, where: str, experiments: set[str]) -> tuple[str, ...]:
    if raw is None:
        return ()
    names = [raw] if isinstance(raw, str) else raw
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise SpecError(f"{where}: measure must be an experiment name or a list of them")
    unknown = [n for n in names if n not in experiments]
    if unknown:
        raise SpecError(
            f"{where}: measures {', '.join(map(repr, unknown))}, which the lab does not reproduce"
        )
    return tuple(names)


PHASE_KEYS = (
    "name",
    "tool",
    "args",
    "measure",
    "baseline",
    "background",
    "until",
    "steady_after_s",
    "measure_s",
    "sized_by",
    "level_off",
)


def _phases(raw: dict[str, Any], where: str, experiments: set[str]) -> list[Phase]:
    phases: list[Phase] = []
    for p in required(raw, "phases", where):
        pw = f"{where}: phase {p.get('name', '?') if isinstance(p, dict) else p}"
        unknown = sorted(set(map(str, p)) - set(PHASE_KEYS)) if isinstance(p, dict) else []
        if unknown:
            raise SpecError(f"{pw}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(PHASE_KEYS)}")
        background = p.get("background", False) if isinstance(p, dict) else False
        if not isinstance(background, bool):
            raise SpecError(f"{pw}: background must be true or false, not {background!r}")
        phase = Phase(
            str(required(p, "name", pw)),
            str(required(p, "tool", pw)),
            str(required(p, "args", pw)),
            _measure(p.get("measure"), pw, experiments),
            p.get("baseline"),
            background,
            None if p.get("until") is None else str(p["until"]),
            steady_after(
                p.get("steady_after_s"),
                pw,
                bool(p.get("measure")) and p.get("tool") != "admin",
                raw.get("scales") or {},
            ),
        )
        phase = dataclasses.replace(
            phase,
            measure_s=measure_seconds(p.get("measure_s"), pw, phase.steady_after_s, raw.get("scales") or {}),
        )
        by, most = sized_by(p.get("sized_by"), pw, phase, phases, raw.get("scales") or {})
        phase = dataclasses.replace(phase, sized_by=by, sized_max=most, level_off=level_off(p, pw, phase))
        if phase.name in {q.name for q in phases}:
            raise SpecError(f"{pw}: a phase of that name comes earlier; phase names must be unique")
        if phase.tool not in TOOLS:
            raise SpecError(f"{pw}: unknown tool {phase.tool!r}; valid: {', '.join(TOOLS)}")
        if phase.measure and phase.tool == "admin" and not phase.is_metrics:
            raise SpecError(f"{pw}: an admin phase can measure only as `admin {METRICS_COMMAND}`")
        if phase.baseline is not None:
            earlier = {q.name: q for q in phases}
            if not phase.is_metrics:
                raise SpecError(f"{pw}: only an `admin {METRICS_COMMAND}` phase can have a baseline")
            if phase.baseline not in earlier or not earlier[phase.baseline].is_metrics:
                valid = ", ".join(q.name for q in phases if q.is_metrics) or "(none)"
                raise SpecError(
                    f"{pw}: baseline {phase.baseline!r} is not an earlier `admin {METRICS_COMMAND}` phase; "
                    f"valid: {valid}"
                )
        phases.append(phase)
    _check_background(phases, where)
    for exp in experiments:
        for kind, pick in (("pe", lambda q: not q.is_metrics), ("admin metrics", lambda q: q.is_metrics)):
            measuring = [q.name for q in phases if exp in q.measure and pick(q)]
            if len(measuring) > 1:
                raise SpecError(
                    f"{where}: experiment {exp} is measured by several {kind} phases: {measuring}"
                )
    return phases


def _check_background(phases: list[Phase], where: str) -> None:
    """A background phase is a pe, ycsb or hiccup phase that measures nothing; its ``until`` names a later
    phase.  A hiccup phase runs only in the background and needs an ``until`` (it runs until stopped)."""
    names = [q.name for q in phases]
    for i, q in enumerate(phases):
        pw = f"{where}: phase {q.name}"
        if q.until is not None and not q.background:
            raise SpecError(f"{pw}: until is only for a phase with background: true")
        if q.tool == HICCUP and (not q.background or q.until is None):
            raise SpecError(
                f"{pw}: a hiccup phase runs until stopped: give it background: true and until: <later phase>"
            )
        if not q.background:
            continue
        if q.tool not in ("pe", "ycsb", HICCUP):
            raise SpecError(f"{pw}: only a pe, ycsb or hiccup phase can run in the background, not {q.tool}")
        if q.measure:
            raise SpecError(f"{pw}: a background phase cannot measure (its window overlaps other phases)")
        if q.until is not None and q.until not in names[i + 1 :]:
            valid = ", ".join(names[i + 1 :]) or "(none)"
            raise SpecError(f"{pw}: until {q.until!r} is not a later phase; valid: {valid}")


def parse_spec(raw: Any, path: Path | None = None) -> Spec:
    """Validate the structure and cross-references of a parsed experiment.yml."""
    where = str(path) if path else "experiment.yml"
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: expected a mapping at the top level")
    reproduces = parse_reproduces(raw, where)
    experiments = {r["experiment"] for r in reproduces}
    variants = _variants(raw, where, experiments)
    scales = {str(k): dict(v) for k, v in required(raw, "scales", where).items()}
    phases = _phases(raw, where, experiments)
    claims = parse_claims(raw, where, reproduces, variants)
    try:
        subjects = parse_subjects(raw.get("subjects"), where, variants)
    except SubjectError as e:
        raise SpecError(str(e)) from e
    _check_hbase_phases(variants, phases, where)
    spec = Spec(
        lab=str(required(raw, "lab", where)),
        title=str(raw.get("title", "")),
        reproduces=reproduces,
        variants=variants,
        scales=scales,
        phases=phases,
        claims=claims,
        site=_site(raw.get("site"), f"{where}: site"),
        path=path,
        subjects=subjects,
    )
    spec = with_subject_claims(spec, where)
    spec = dataclasses.replace(spec, sweeps=spec_sweeps(raw, spec, where))
    for scale in spec.scales:  # every placeholder must resolve at every scale, for every variant
        params = spec.params(scale)
        for v in spec.variants.values():
            spec.phases_for(params, v)
            spec.site_for(params, v)
            spec.server_jvm_flags(v, params)
            spec.client_jvm_flags(v, params)
    if path is not None and path.parent.name != spec.lab:
        raise SpecError(f"{where}: lab {spec.lab!r} does not match its directory {path.parent.name!r}")
    return spec
