"""What a lab is, as experiment.yml declares it (docs/contracts.md section 8): its variants, phases, claims
and scales, and the keys each may have. heaplab.lab.spec reads and checks a file into these.

A phase that says ``measure: <experiment>`` (or a list of experiments) is measured: a pe phase gives the
client metrics (throughput, latency, young GCs in its window); an ``admin metrics`` phase gives the memory
metrics (heaplab.analysis.memory), relative to the earlier ``admin metrics`` phase its ``baseline`` names.

Parameters of a variant's phases, flags and site values: the scale's, the derived ones, then the variant's
``vars`` (whose values may use the scale's). Derived: ``total_rows = threads * rows``. ``heap`` sets the
server's -Xms/-Xmx (a variant's own ``heap``, a size or ``{param}``, instead) and ``client_heap`` the
client's -Xmx. Site values: the lab's ``site``, then the variant's ``site`` on top (booleans written
true/false).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heaplab.lab.subjects import ENGINE

TOOLS = ("admin", "pe", "ycsb", "hiccup")
# `bin/engine hiccup`: the platform-stall meter, a control that runs in the background beside the measured
# phase (until it ends) and measures nothing itself; heaplab.analysis.spike_overlap reads its interval log.
HICCUP = "hiccup"
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


# A warm-up phase with `level_off: true` whose client still climbed at its end runs once more, sized from its
# own first run for this many steady seconds: twice the six the steady-state rule needs after the cut to
# call a rate level (heaplab.analysis.steady), since a rate read from a climbing client is only a lower bound.
LEVEL_OFF_S = 12.0


@dataclass(frozen=True)
class Phase:
    name: str
    tool: str
    args: str
    measure: tuple[str, ...] = ()
    baseline: str | None = None
    background: bool = False  # a pe phase that runs while the next phases run
    until: str | None = None  # the later phase at whose end a background phase is stopped
    steady_after_s: str | None = (
        None  # the warm-up's floor in seconds, or "{param}" (heaplab.analysis.steady)
    )
    measure_s: str | None = None  # the steady seconds the phase should keep, or "{param}"
    sized_by: str | None = None  # the earlier phase whose rate sizes this one (heaplab.lab.phase_time)
    sized_max: str | None = None  # the most --rows the sizing may raise it to, or "{param}"
    level_off: bool = False  # a warm-up that runs once more, longer, if its rate never levelled off

    def steady_after(self, params: dict[str, Any]) -> float:
        """The seconds of this phase's start never counted in its figures at a scale (0: the whole phase)."""
        if self.steady_after_s is None:
            return 0.0
        return float(str(self.steady_after_s).format(**params))

    def measure_for(self, params: dict[str, Any]) -> float:
        """The steady seconds this phase should keep at a scale (0: none stated)."""
        if self.measure_s is None:
            return 0.0
        return float(str(self.measure_s).format(**params))

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
    sweeps: dict[str, list[str]] = field(
        default_factory=dict
    )  # {name: steps low to high}, heaplab.lab.sweeps

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
        args = {p.name: fill(p.args, vparams, f"phase {p.name}{suffix}") for p in self.phases}
        return [
            {
                "name": p.name,
                "tool": p.tool,
                "args": args[p.name],
                "record": bool(p.measure),
                "measure": list(p.measure),
                **({"background": True, "until": p.until or ""} if p.background else {}),
                **self._sized(p, params, args),
            }
            for p in self.phases
            if not (hbase and p.tool == HICCUP)
        ]

    def _sized(self, p: Phase, params: dict[str, Any], args: dict[str, str]) -> dict[str, Any]:
        """A phase sized by time at this scale: what the playbook needs to size it on the host
        (playbooks/filter_plugins/heaplab_sizing.py): the rate's phase and its args, the warm-up
        floor and the steady seconds wanted. A warm-up that must level off (``again``) is sized the same
        way from its own first run, for the steady seconds the cut rule needs."""
        if p.level_off and any(q.sized_by == p.name and q.measure_for(params) > 0 for q in self.phases):
            again = {"from": p.name, "from_args": args[p.name], "floor_s": 0.0, "measure_s": LEVEL_OFF_S}
            return {"again": again}  # only where a phase is sized from it at this scale
        if p.sized_by is None or p.measure_for(params) <= 0:
            return {}
        return {
            "sized": {
                "from": p.sized_by,
                "from_args": args[p.sized_by],
                "floor_s": p.steady_after(params),
                "measure_s": p.measure_for(params),
                **({"max": int(float(p.sized_max.format(**params)))} if p.sized_max else {}),
            }
        }


def fill(template: str, params: dict[str, Any], where: str) -> str:
    """Format ``{param}`` placeholders; an unknown one is a SpecError naming ``where``."""
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    missing = sorted(names - params.keys())
    if missing:
        raise SpecError(
            f"{where}: unknown parameter(s) {', '.join(missing)}; known: {', '.join(sorted(params))}"
        )
    return template.format(**params)


def required(d: dict[str, Any], key: str, where: str) -> Any:
    """``d[key]``, or a SpecError naming the missing key and where."""
    if not isinstance(d, dict) or key not in d:
        raise SpecError(f"{where}: missing required key {key!r}")
    return d[key]
