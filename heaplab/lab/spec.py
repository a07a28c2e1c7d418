"""Load and validate a lab's experiment.yml, and expand it for one scale.

experiment.yml (the lab's spec) names the published experiments it reproduces (optionally with the
``variants`` each compares), the variants (an engine profile, server and client JVM flags, engine-site
overrides ``site`` and phase parameters ``vars`` of their own, possibly not yet available), the scales (every
number a phase uses), the lab's engine-site overrides, the phases (admin or pe command lines with ``{param}``
placeholders) and the claims.

A phase that says ``measure: <experiment>`` (or a list of experiments) is measured: a pe phase gives the
client metrics (throughput, latency, young GCs in its window); an ``admin metrics`` phase gives the memory
metrics (heaplab.analysis.memory), relative to the earlier ``admin metrics`` phase its ``baseline`` names.

Parameters of a variant's phases, flags and site values: the scale's, the derived ones, then the variant's
``vars`` (whose values may use the scale's).  Derived: ``total_rows = threads * rows``.  ``heap`` sets the
server's -Xms/-Xmx (a variant's own ``heap``, a size or ``{param}``, instead) and ``client_heap`` the
client's -Xmx.  Site values: the lab's ``site``, then the
variant's ``site`` on top (booleans written true/false).

A variant's ``jdk: N`` is the lowest JDK feature version its servers need; heaplab.run.runner checks
the server hosts' JDK (heaplab.run.jdk) before the variant starts and records it unavailable when too old.
"""

from __future__ import annotations

import dataclasses
import hashlib
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from heaplab.lab.expectation import ExpectationError, parse_expectation
from heaplab.lab.subjects import ENGINE, SubjectError, parse_subjects, subject_claims
from heaplab.paths import LABS_DIR, SPEC_NAME

TOOLS = ("admin", "pe", "ycsb", "hiccup")
# `bin/engine hiccup`: the platform-stall meter, a control that runs in the background beside the measured
# phase (until it ends) and measures nothing itself; heaplab.analysis.spike_overlap reads its interval log.
HICCUP = "hiccup"
CLIENT_METRICS = (
    "throughput",
    "latency_avg",
    "latency_p95",
    "latency_p99",
    "latency_p999",
    "latency_max",
    "young_gc_avg_pause",
    "young_gc_rate",
)
GC_METRICS = (  # heaplab.analysis.gc_stats / heaplab.analysis.timeline, defined in docs/analysis.md
    "latency_p50",
    "latency_p999_over_p50",
    "gc_pause_avg",
    "gc_pause_min",
    "gc_pause_max",
    "gc_pause_stddev",
    "gc_pause_p99",
    "gc_pause_total",
    "gc_count",
    "gc_count_per_hour",
    "full_gc_count",
    "safepoint_total",
    "gc_pause_initial_peak",
    "gc_remark_avg",
    "gc_remark_total",
    "eden_evacuation_rate",
    "latency_spike_gc_share",
    "latency_spike_gc_lift",  # spike seconds' GC overlap over other seconds' (heaplab.analysis.timeline)
    "latency_p999_over_avg",
    "cms_concurrent_mode_failures",  # CMS runs (JDK 11): heaplab.analysis.gc_stats
)
# heaplab.analysis.spike_overlap: tail requests against pauses, and the hiccup control
SPIKE_OVERLAP_METRICS = (
    "tail_gc_share",
    "all_gc_share",
    "tail_gc_lift",
    "pause_time_share",
    "hiccup_p999",
    "hiccup_max",
    "hiccup_p999_over_latency_p999",
    "tail_stall_share",
)
MEMORY_METRICS = (
    "resident_after_insert",
    "heap_retained",
    "direct_retained",
    "heap_used",
    "direct_used",
    "memstore_data",
    "cells",
    "bytes_per_cell",
    "heap_bytes_per_cell",
    "heap_overhead_per_cell",
    "resident_after_flush",  # the `admin metrics --gc` phase after an `admin flush` (heaplab.analysis.memory)
    "heap_committed_after_flush",
    "rss_after_flush",
)
READ_METRICS = (  # heaplab.analysis.read_metrics: counter deltas between two `admin metrics` reports
    "data_block_hit_ratio",
    "disk_reads_per_get",
    "cpu_us_per_get",
    "query_cache_hit_ratio",
    "gets",
    "store_file_mb",
)
MECHANISM_METRICS = (  # heaplab.analysis.mechanism: the server's allocation and copies per operation
    "alloc_bytes_per_op",
    "gc_alloc_bytes_per_op",  # the same from the GC logs, any server (heaplab.analysis.gc_alloc)
    "alloc_rpc_bytes_per_op",
    "alloc_wal_bytes_per_op",
    "heap_copy_bytes_per_op",
    "request_copy_bytes_per_op",
    "response_copy_bytes_per_op",
    "young_gc_per_mop",
    "direct_used_mb",
    "server_cpu_us_per_op",
    "server_cpu_proc_us_per_op",  # the same from the /proc samples, every server (heaplab.analysis.proc_cpu)
)
METRICS = (
    CLIENT_METRICS + GC_METRICS + MEMORY_METRICS + READ_METRICS + MECHANISM_METRICS + SPIKE_OVERLAP_METRICS
)
# Claims (docs/contracts.md section 8): what a claim judges against, and where its figure comes from.
PEER = "peer"  # a target against Apache HBase, judged as a bound (heaplab.judge.verdict.rule_of)
CHECK = "check"  # a mechanism check: true by construction of the code (e.g. no heap copy on the 2.x path)
CLAIM_KINDS = ("article", "inference", CHECK, PEER)
LEGACY_KINDS = {"extension": "inference"}  # the spec copies in runs made before the kinds were four
REGIONS = ("at-least", "at-most")  # an article's "at least x" / "at most x": its region is a half-line
DEFAULT_TOLERANCE = 0.15  # the article's region R: its figure +-15% unless the claim states its own
DEFAULT_MARGIN = 0.05  # the no-effect region N: 1 +-5% (or null +-5%) unless the claim states its own
CLAIM_KEYS = (
    "id", "kind", "experiment", "metric", "expect", "figure", "source", "says", "article_ratio", "null",
    "needs", "measurable", "why", "doc", "tolerance", "margin", "region", "preconditions",
)  # fmt: skip
PRECONDITION_KEYS = ("metric", "expect", "why")
CLAIM_NEEDS = ("cores", "memory_gb")  # the smallest region-server host a claim can be judged on
VARIANT_KEYS = (
    "profile",
    "published",
    "server_jvm",
    "jvm",
    "client_jvm",
    "available",
    "why",
    "site",
    "vars",
    "jdk",  # the lowest JDK feature version the variant's servers need (heaplab.run.jdk)
    "server",  # engine (default) or apache-hbase (docs/apache-hbase.md)
    "heap",  # the server's -Xms/-Xmx for this variant instead of the scale's `heap` (a size or {param})
    "hbase_version",  # an apache-hbase variant's HBase: one of HBASE_VERSIONS (default the first)
)
# what a variant runs. apache-hbase: Apache HBase standalone from
# infra/apache-hbase/ (fetch.sh), its pe phases run HBase's own PerformanceEvaluation, its admin phases
# only create|flush|compact|drop TABLE and metrics (org.heaplab.hbase.LabAdmin: HBase's Admin API and the
# region server's JMX counters); it needs no engine profile.
SERVERS = ("engine", "apache-hbase")
# The Apache HBase releases infra/apache-hbase packs (pom.xml's and pom-1.4.xml's hbase.version), the
# default first. 1.4 runs standalone only, pe and admin phases (docs/apache-hbase.md).
HBASE_VERSIONS = ("2.6.4", "1.4.14")
HBASE_ADMIN_COMMANDS = ("create", "flush", "compact", "drop", "metrics")
METRICS_COMMAND = "metrics"  # `bin/engine admin metrics [--gc]`: the measured admin phase


class SpecError(ValueError):
    """The spec is malformed or a name (lab, scale) is unknown; the message is one line for the user."""


@dataclass(frozen=True)
class Variant:
    name: str
    profile: str
    published: str | dict[str, str] | None  # the article's name, or one per experiment
    server_jvm: list[str]
    client_jvm: list[str]
    available: bool = True
    why: str | None = None
    site: dict[str, str] = field(default_factory=dict)  # on top of the lab's site
    vars: dict[str, str] = field(default_factory=dict)  # extra phase parameters
    jdk: int | None = None  # checked before the variant starts (heaplab.run.jdk)
    server: str = "engine"  # engine | apache-hbase
    heap: str | None = None  # the server heap instead of the scale's `heap`, e.g. "{epsilon_heap}"
    hbase_version: str = ""  # an apache-hbase variant's release (HBASE_VERSIONS); "" for the engine

    @property
    def hbase1(self) -> bool:
        """An Apache HBase 1.x variant: standalone in its own network namespace, on a JDK 11."""
        return self.server == "apache-hbase" and self.hbase_version.startswith("1.")

    def published_for(self, experiment: str) -> str | None:
        """The article's name for this variant in ``experiment`` (None: the article has no such row)."""
        if isinstance(self.published, dict):
            return self.published.get(experiment)
        return self.published


@dataclass(frozen=True)
class Phase:
    name: str
    tool: str
    args: str
    measure: tuple[str, ...] = ()
    baseline: str | None = None
    background: bool = False  # a pe phase that runs while the next phases run
    until: str | None = None  # the later phase at whose end a background phase is stopped
    steady_after_s: str | None = None  # warm-up seconds left out, or "{param}" (heaplab.analysis.steady)

    def steady_after(self, params: dict[str, Any]) -> float:
        """The seconds of this phase's start left out of its figures at a scale (0: the whole phase)."""
        if self.steady_after_s is None:
            return 0.0
        return float(str(self.steady_after_s).format(**params))

    @property
    def measures_memory(self) -> bool:
        """An ``admin metrics --gc`` phase: heap and direct memory after a collection
        (heaplab.analysis.memory).

        Without --gc an ``admin metrics`` phase measures the read counters only
        (heaplab.analysis.read_metrics):
        a System.gc() between the baseline and the measured report would add its pause to the window.
        """
        return self.is_metrics and "--gc" in self.args.split()

    @property
    def is_metrics(self) -> bool:
        """An ``admin metrics`` phase: the playbook passes it --report, heaplab reads its JSON."""
        words = self.args.split()
        return self.tool == "admin" and bool(words) and words[0] == METRICS_COMMAND


@dataclass(frozen=True)
class Precondition:
    """A condition a run must meet for a claim to be judged on it, e.g. the on-heap arm spends at least 5%
    of the phase in GC pauses: ``{metric: gc_pause_fraction, expect: "hbase1-onheap >= 0.05"}``, judged
    on the variants' mean over the runs. When it fails the claim is `not measurable here`."""

    metric: str
    expect: str
    why: str | None = None


@dataclass(frozen=True)
class Claim:
    id: str
    experiment: str | None  # None only for a claim that is not measurable on any target
    metric: str | None
    expect: str | None
    says: str | None = None
    article_ratio: str | None = None  # the article's variant whose "<metric>_ratio" row is left / right
    kind: str = "article"  # article | inference | check | peer
    figure: str | None = None  # the article's figure as it reads ("P999 45 ms -> 5 ms: 0.11x")
    source: str | None = None  # the article's title and table or section
    null: float | None = None  # a constant claim's "no effect" value (heaplab.judge.verdict: effect rule)
    needs: dict[str, float] = field(default_factory=dict)  # CLAIM_NEEDS -> the least the target must have
    measurable: bool = True  # False: no target of this lab can measure it; `why` says why
    why: str | None = None
    subject: str = (
        ENGINE  # the server it is judged on: the engine, or a `subjects` entry (heaplab.lab.subjects)
    )
    doc: str | None = None  # the article it is tallied under, when not its experiment's (``reproduces``)
    tolerance: float = DEFAULT_TOLERANCE  # the article's region R: its figure x (1 +- tolerance)
    margin: float = DEFAULT_MARGIN  # the no-effect region N: null x (1 +- margin)
    region: str | None = None  # "at-least" / "at-most": R is a half-line from the figure
    preconditions: tuple[Precondition, ...] = ()  # when this machine can show it (heaplab.judge.claims)


def with_derived(scale_params: dict[str, Any]) -> dict[str, Any]:
    """A scale's parameters plus the derived ones (total_rows = threads x rows)."""
    params = dict(scale_params)
    if "threads" in params and "rows" in params:
        params["total_rows"] = int(params["threads"]) * int(params["rows"])
    return params


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
    subjects: dict[str, dict[str, str]] = field(default_factory=dict)  # heaplab.lab.subjects

    @property
    def experiments(self) -> list[str]:
        return [r["experiment"] for r in self.reproduces]

    def variants_of(self, experiment: str) -> list[str]:
        """The variants an experiment compares: its ``variants`` in ``reproduces``, else all of them."""
        for r in self.reproduces:
            if r["experiment"] == experiment and r.get("variants"):
                return list(r["variants"])
        return list(self.variants)

    def doc_of(self, experiment: str) -> str:
        for r in self.reproduces:
            if r["experiment"] == experiment:
                return r["doc"]
        raise KeyError(experiment)

    def measured_phase(self, experiment: str) -> Phase | None:
        """The pe phase that measures ``experiment`` (client metrics), if any."""
        return next((p for p in self.phases if experiment in p.measure and not p.is_metrics), None)

    def memory_phase(self, experiment: str) -> Phase | None:
        """The ``admin metrics`` phase that measures ``experiment`` (memory metrics), if any."""
        return next((p for p in self.phases if experiment in p.measure and p.is_metrics), None)

    def phase(self, name: str) -> Phase | None:
        return next((p for p in self.phases if p.name == name), None)

    def params(self, scale: str) -> dict[str, Any]:
        """The scale's parameters plus the derived ones."""
        if scale not in self.scales:
            raise SpecError(
                f"unknown scale {scale!r} for lab {self.lab}; valid scales: {', '.join(self.scales)}"
            )
        return with_derived(self.scales[scale])

    def variant_params(self, variant: Variant | None, params: dict[str, Any]) -> dict[str, Any]:
        """The scale's parameters plus the variant's ``vars`` (filled from the scale's)."""
        if variant is None or not variant.vars:
            return params
        filled = {k: fill(v, params, f"variant {variant.name}: vars.{k}") for k, v in variant.vars.items()}
        return {**params, **filled}

    def server_jvm_flags(self, variant: Variant, params: dict[str, Any]) -> list[str]:
        params = self.variant_params(variant, params)
        size = fill(variant.heap, params, f"{variant.name}.heap") if variant.heap else params.get("heap")
        heap = [f"-Xms{size}", f"-Xmx{size}"] if size else []
        return heap + [fill(f, params, f"{variant.name}.server_jvm") for f in variant.server_jvm]

    def client_jvm_flags(self, variant: Variant, params: dict[str, Any]) -> list[str]:
        params = self.variant_params(variant, params)
        heap = [f"-Xmx{params['client_heap']}"] if "client_heap" in params else []
        return heap + [fill(f, params, f"{variant.name}.client_jvm") for f in variant.client_jvm]

    def site_for(self, params: dict[str, Any], variant: Variant | None = None) -> dict[str, str]:
        """engine-site overrides: the lab's, then the variant's on top, placeholders filled."""
        vparams = self.variant_params(variant, params)
        site = {k: fill(v, vparams, f"site.{k}") for k, v in self.site.items()}
        if variant is not None:
            where = f"variant {variant.name}: site.{{}}"
            site.update({k: fill(v, vparams, where.format(k)) for k, v in variant.site.items()})
        return site

    def variant_site(self, params: dict[str, Any], variant: Variant) -> dict[str, str]:
        """The variant's own overrides, filled (recorded in run.json)."""
        vparams = self.variant_params(variant, params)
        return {k: fill(v, vparams, f"variant {variant.name}: site.{k}") for k, v in variant.site.items()}

    def phases_for(self, params: dict[str, Any], variant: Variant | None = None) -> list[dict[str, Any]]:
        """Phases as passed to the playbook: args filled in; ``record`` on measured phases.  An apache-hbase
        variant runs no hiccup phase: the meter is the engine's (Java 17), and such a variant's hosts run
        the JDK its HBase needs (11 for CMS), so its control is missing and the claims on it say so."""
        vparams = self.variant_params(variant, params)
        suffix = f" (variant {variant.name})" if variant is not None else ""
        hbase = variant is not None and variant.server == "apache-hbase"
        return [
            {
                "name": p.name,
                "tool": p.tool,
                "args": fill(p.args, vparams, f"phase {p.name}{suffix}"),
                "record": bool(p.measure),
                "measure": list(p.measure),
                **({"background": True, "until": p.until or ""} if p.background else {}),
            }
            for p in self.phases
            if not (hbase and p.tool == HICCUP)
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


def load_spec(path: Path | str) -> Spec:
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise SpecError(f"{path}: cannot read spec: {e}") from e
    return parse_spec(raw, path)


def _req(d: dict[str, Any], key: str, where: str) -> Any:
    if not isinstance(d, dict) or key not in d:
        raise SpecError(f"{where}: missing required key {key!r}")
    return d[key]


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
    for name, v in _req(raw, "variants", where).items():
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
            profile=str(v.get("profile", server) if server != "engine" else _req(v, "profile", vw)),
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


PHASE_KEYS = ("name", "tool", "args", "measure", "baseline", "background", "until", "steady_after_s")


def _steady_after(raw: Any, where: str, measures: bool, scales: dict[str, Any]) -> str | None:
    """A phase's ``steady_after_s``: seconds (a number, or "{param}" of every scale) on a measured phase."""
    if raw is None:
        return None
    if not measures:
        raise SpecError(f"{where}: steady_after_s applies only to a phase that measures (pe or ycsb)")
    text = str(raw)
    for scale, params in (scales or {}).items():
        try:
            seconds = float(text.format(**(params or {})))
        except (KeyError, ValueError, IndexError):
            raise SpecError(
                f"{where}: steady_after_s {text!r} must be seconds (a number >= 0) or a {{parameter}} "
                f"that scale {scale!r} sets to one"
            ) from None
        if seconds < 0:
            raise SpecError(f"{where}: steady_after_s is {seconds:g} s at scale {scale!r}; it must be >= 0")
    return text


def _phases(raw: dict[str, Any], where: str, experiments: set[str]) -> list[Phase]:
    phases: list[Phase] = []
    for p in _req(raw, "phases", where):
        pw = f"{where}: phase {p.get('name', '?') if isinstance(p, dict) else p}"
        unknown = sorted(set(map(str, p)) - set(PHASE_KEYS)) if isinstance(p, dict) else []
        if unknown:
            raise SpecError(f"{pw}: unknown key(s) {', '.join(unknown)}; valid: {', '.join(PHASE_KEYS)}")
        background = p.get("background", False) if isinstance(p, dict) else False
        if not isinstance(background, bool):
            raise SpecError(f"{pw}: background must be true or false, not {background!r}")
        phase = Phase(
            str(_req(p, "name", pw)),
            str(_req(p, "tool", pw)),
            str(_req(p, "args", pw)),
            _measure(p.get("measure"), pw, experiments),
            p.get("baseline"),
            background,
            None if p.get("until") is None else str(p["until"]),
            _steady_after(
                p.get("steady_after_s"),
                pw,
                bool(p.get("measure")) and p.get("tool") != "admin",
                raw.get("scales") or {},
            ),
        )
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


def _claims(
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
    required = (lambda key: str(_req(c, key, cw))) if measurable else c.get
    tolerance = _fraction(c, "tolerance", DEFAULT_TOLERANCE, cw)
    margin = _fraction(c, "margin", DEFAULT_MARGIN, cw)
    region = c.get("region")
    if region is not None and region not in REGIONS:
        raise SpecError(f"{cw}: region must be one of {', '.join(REGIONS)}, not {region!r}")
    return Claim(
        id=str(_req(c, "id", cw)),
        experiment=required("experiment"),
        metric=required("metric"),
        expect=required("expect"),
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


def _reproduces(raw: dict[str, Any], where: str) -> list[dict[str, Any]]:
    out = []
    for r in _req(raw, "reproduces", where):
        rw = f"{where}: reproduces {r.get('experiment', '?') if isinstance(r, dict) else r}"
        entry: dict[str, Any] = {"doc": str(_req(r, "doc", rw)), "experiment": str(_req(r, "experiment", rw))}
        if r.get("variants") is not None:
            unknown = [v for v in r["variants"] if v not in (raw.get("variants") or {})]
            if unknown:
                raise SpecError(f"{rw}: unknown variant(s) {', '.join(map(str, unknown))}")
            entry["variants"] = [str(v) for v in r["variants"]]
        out.append(entry)
    return out


def _with_subject_claims(spec: Spec, where: str) -> Spec:
    """The spec with each claim's twins on its subjects (heaplab.lab.subjects) right after it."""
    by_origin: dict[str, list[Claim]] = {}
    for derived in subject_claims(spec.claims, spec.subjects, spec.variants_of):
        if derived.measurable:
            _check_judged_claim(derived, f"{where}: claim {derived.id}", spec.reproduces, spec.variants)
        by_origin.setdefault(derived.id.split("@")[0], []).append(derived)
    claims = [d for c in spec.claims for d in (c, *by_origin.get(c.id, []))]
    return dataclasses.replace(spec, claims=claims)


def parse_spec(raw: Any, path: Path | None = None) -> Spec:
    """Validate the structure and cross-references of a parsed experiment.yml."""
    where = str(path) if path else "experiment.yml"
    if not isinstance(raw, dict):
        raise SpecError(f"{where}: expected a mapping at the top level")
    reproduces = _reproduces(raw, where)
    experiments = {r["experiment"] for r in reproduces}
    variants = _variants(raw, where, experiments)
    scales = {str(k): dict(v) for k, v in _req(raw, "scales", where).items()}
    phases = _phases(raw, where, experiments)
    claims = _claims(raw, where, reproduces, variants)
    try:
        subjects = parse_subjects(raw.get("subjects"), where, variants)
    except SubjectError as e:
        raise SpecError(str(e)) from e
    _check_hbase_phases(variants, phases, where)
    spec = Spec(
        lab=str(_req(raw, "lab", where)),
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
    spec = _with_subject_claims(spec, where)
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
