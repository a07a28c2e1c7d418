"""Load and validate a lab's experiment.yml, and expand it for one scale.

experiment.yml (the lab's spec) names the published experiments it reproduces, the variants it compares
(an engine profile plus server and client JVM flags, possibly not yet available), the scales (every number
a phase uses), optional engine-site overrides, the phases (admin or pe command lines with ``{param}``
placeholders; ``measure: <experiment>`` marks the measured phase of a published experiment) and the claims.

Derived parameters: ``total_rows = threads * rows``.  ``heap`` sets the server's -Xms/-Xmx and
``client_heap`` the client's -Xmx.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from heaplab.expectation import ExpectationError, parse_expectation
from heaplab.paths import LABS_DIR, SPEC_NAME

TOOLS = ("admin", "pe", "ycsb")
METRICS = (
    "throughput",
    "latency_avg",
    "latency_p95",
    "latency_p99",
    "latency_p999",
    "latency_max",
    "young_gc_avg_pause",
    "young_gc_rate",
)


class SpecError(ValueError):
    """The spec is malformed or a name (lab, scale) is unknown; the message is one line for the user."""


@dataclass(frozen=True)
class Variant:
    name: str
    profile: str
    published: str | None
    server_jvm: list[str]
    client_jvm: list[str]
    available: bool = True
    why: str | None = None


@dataclass(frozen=True)
class Phase:
    name: str
    tool: str
    args: str
    measure: str | None = None


@dataclass(frozen=True)
class Claim:
    id: str
    experiment: str
    metric: str
    expect: str
    says: str | None = None


@dataclass(frozen=True)
class Spec:
    lab: str
    title: str
    reproduces: list[dict[str, str]]
    variants: dict[str, Variant]
    scales: dict[str, dict[str, Any]]
    phases: list[Phase]
    claims: list[Claim]
    site: dict[str, str] = field(default_factory=dict)
    path: Path | None = None

    @property
    def experiments(self) -> list[str]:
        return [r["experiment"] for r in self.reproduces]

    def doc_of(self, experiment: str) -> str:
        for r in self.reproduces:
            if r["experiment"] == experiment:
                return r["doc"]
        raise KeyError(experiment)

    def measured_phase(self, experiment: str) -> Phase | None:
        return next((p for p in self.phases if p.measure == experiment), None)

    def params(self, scale: str) -> dict[str, Any]:
        """The scale's parameters plus the derived ones."""
        if scale not in self.scales:
            raise SpecError(
                f"unknown scale {scale!r} for lab {self.lab}; valid scales: {', '.join(self.scales)}"
            )
        params = dict(self.scales[scale])
        if "threads" in params and "rows" in params:
            params["total_rows"] = int(params["threads"]) * int(params["rows"])
        return params

    def server_jvm_flags(self, variant: Variant, params: dict[str, Any]) -> list[str]:
        heap = [f"-Xms{params['heap']}", f"-Xmx{params['heap']}"] if "heap" in params else []
        return heap + [fill(f, params, f"{variant.name}.server_jvm") for f in variant.server_jvm]

    def client_jvm_flags(self, variant: Variant, params: dict[str, Any]) -> list[str]:
        heap = [f"-Xmx{params['client_heap']}"] if "client_heap" in params else []
        return heap + [fill(f, params, f"{variant.name}.client_jvm") for f in variant.client_jvm]

    def site_for(self, params: dict[str, Any]) -> dict[str, str]:
        return {k: fill(str(v), params, f"site.{k}") for k, v in self.site.items()}

    def phases_for(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Phases as passed to the playbook: args filled in; ``record`` on measured phases."""
        return [
            {
                "name": p.name,
                "tool": p.tool,
                "args": fill(p.args, params, f"phase {p.name}"),
                "record": p.measure is not None,
                "measure": p.measure,
            }
            for p in self.phases
        ]


def fill(template: str, params: dict[str, Any], where: str) -> str:
    """Format ``{param}`` placeholders; an unknown one is a SpecError naming ``where``."""
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    missing = sorted(names - params.keys())
    if missing:
        raise SpecError(
            f"{where}: unknown parameter(s) {', '.join(missing)}; known: {', '.join(sorted(params))}"
        )
    return template.format(**params)


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


def load_spec(path: Path) -> Spec:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise SpecError(f"{path}: cannot read spec: {e}") from e
    return parse_spec(raw, path)


def _req(d: dict[str, Any], key: str, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise SpecError(f"{where}: missing required key {key!r}")
    return d[key]


def _variants(raw: dict[str, Any], where: str) -> dict[str, Variant]:
    variants: dict[str, Variant] = {}
    for name, v in _req(raw, "variants", where).items():
        vw = f"{where}: variant {name}"
        available = bool(v.get("available", True))
        if not available and not v.get("why"):
            raise SpecError(f"{vw}: an unavailable variant needs a 'why'")
        variants[name] = Variant(
            name=name,
            profile=str(_req(v, "profile", vw)),
            published=v.get("published"),
            server_jvm=[str(f) for f in v.get("server_jvm", v.get("jvm", []))],
            client_jvm=[str(f) for f in v.get("client_jvm", [])],
            available=available,
            why=v.get("why"),
        )
    return variants


def _phases(raw: dict[str, Any], where: str, experiments: set[str]) -> list[Phase]:
    phases = []
    for p in _req(raw, "phases", where):
        pw = f"{where}: phase {p.get('name', '?') if isinstance(p, dict) else p}"
        phase = Phase(
            str(_req(p, "name", pw)), str(_req(p, "tool", pw)), str(_req(p, "args", pw)), p.get("measure")
        )
        if phase.tool not in TOOLS:
            raise SpecError(f"{pw}: unknown tool {phase.tool!r}; valid: {', '.join(TOOLS)}")
        if phase.measure is not None and phase.measure not in experiments:
            raise SpecError(f"{pw}: measures {phase.measure!r}, which the lab does not reproduce")
        phases.append(phase)
    return phases


def _claims(
    raw: dict[str, Any], where: str, experiments: set[str], variants: dict[str, Variant]
) -> list[Claim]:
    claims = []
    for c in raw.get("claims", []) or []:
        cw = f"{where}: claim {c.get('id', '?')}"
        claim = Claim(
            str(_req(c, "id", cw)),
            str(_req(c, "experiment", cw)),
            str(_req(c, "metric", cw)),
            str(_req(c, "expect", cw)),
            c.get("says"),
        )
        if claim.experiment not in experiments:
            raise SpecError(f"{cw}: experiment {claim.experiment!r} is not in 'reproduces'")
        if claim.metric not in METRICS:
            raise SpecError(f"{cw}: unknown metric {claim.metric!r}; valid: {', '.join(METRICS)}")
        try:
            unknown = [v for v in parse_expectation(claim.expect).variants if v not in variants]
        except ExpectationError as e:
            raise SpecError(f"{cw}: {e}") from e
        if unknown:
            raise SpecError(f"{cw}: unknown variant(s) {', '.join(unknown)} in {claim.expect!r}")
        claims.append(claim)
    return claims


def parse_spec(raw: Any, path: Path | None = None) -> Spec:
    """Validate the structure and cross-references of a parsed experiment.yml."""
    where = str(path) if path else "experiment.yml"
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: expected a mapping at the top level")
    reproduces = [
        {"doc": str(r["doc"]), "experiment": str(r["experiment"])} for r in _req(raw, "reproduces", where)
    ]
    experiments = {r["experiment"] for r in reproduces}
    variants = _variants(raw, where)
    scales = {str(k): dict(v) for k, v in _req(raw, "scales", where).items()}
    phases = _phases(raw, where, experiments)
    claims = _claims(raw, where, experiments, variants)
    spec = Spec(
        lab=str(_req(raw, "lab", where)),
        title=str(raw.get("title", "")),
        reproduces=reproduces,
        variants=variants,
        scales=scales,
        phases=phases,
        claims=claims,
        site={str(k): str(v) for k, v in (raw.get("site") or {}).items()},
        path=path,
    )
    for scale in spec.scales:  # every placeholder must resolve at every scale
        params = spec.params(scale)
        spec.phases_for(params)
        spec.site_for(params)
        for v in spec.variants.values():
            spec.server_jvm_flags(v, params)
            spec.client_jvm_flags(v, params)
    if path is not None and path.parent.name != spec.lab:
        raise SpecError(f"{where}: lab {spec.lab!r} does not match its directory {path.parent.name!r}")
    return spec
