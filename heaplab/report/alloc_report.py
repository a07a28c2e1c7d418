"""report.md's "Where the garbage comes from": each profiled variant's allocations by stage of a request.

For every experiment whose measured phase left collapsed alloc profiles (heaplab/run/alloc_profiles.py),
one table of bytes per operation per stage with a column per variant, then per variant its stages' top
allocation sites (heaplab/analysis/alloc_stages.py). A run of lab 03 or 04 without one says how to get one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from heaplab.analysis.alloc_stage_rules import APACHE_HBASE
from heaplab.analysis.alloc_stages import (
    StageTable,
    classify,
    comparison_markdown,
    read_collapsed,
    variant_markdown,
)
from heaplab.analysis.mechanism import completed_operations
from heaplab.run.alloc_profiles import collapsed_name
from heaplab.runfiles.client_summary import load_phase_summaries
from heaplab.runfiles.rundir import Run

# The labs whose claims are about garbage per operation: their reports say how to profile when no
# variant was.
LABS = ("03-offheap-write", "04-offheap-read")
SUBJECT_NAMES = {APACHE_HBASE: "Apache HBase"}


@dataclass(frozen=True)
class Profiled:
    """One variant's stage table over one measured phase (its region servers' profiles summed)."""

    variant: str
    phase: str
    files: tuple[Path, ...]
    table: StageTable

    @property
    def label(self) -> str:
        return f"{self.variant} ({SUBJECT_NAMES.get(self.table.family, self.table.family)})"


def profile_files(variant_dir: Path, phase: str) -> list[Path]:
    """Every region server's collapsed alloc profile of a phase (plain or gzipped)."""
    name = collapsed_name(phase)
    return sorted([*variant_dir.glob(f"server/*/{name}"), *variant_dir.glob(f"server/*/{name}.gz")])


def variant_table(variant_dir: Path, phase: str) -> Profiled | None:
    """The variant's table over ``phase``, None without a profile or a client summary."""
    files = profile_files(variant_dir, phase)
    if not files:
        return None
    summaries = load_phase_summaries(variant_dir / "client", phase)
    if not summaries:
        return None
    stacks = [s for f in files for s in read_collapsed(f)]
    table = classify(stacks, completed_operations(summaries))
    return Profiled(variant_dir.name, phase, tuple(files), table)


def run_tables(run: Run) -> dict[str, list[Profiled]]:
    """experiment -> the profiled variants' tables over its measured phase, in the spec's order."""
    out: dict[str, list[Profiled]] = {}
    for experiment in run.spec.experiments:
        phase = run.spec.measured_phase(experiment)
        if phase is None:
            continue
        found = [variant_table(run.variant_dir(v), phase.name) for v in run.spec.variants_of(experiment)]
        profiled = [p for p in found if p is not None]
        if profiled:
            out[experiment] = profiled
    return out


def how_to(run: Run) -> list[str]:
    return [
        "No variant of this run was profiled with `alloc`. To see which stage of a request allocates the "
        "heap the young GCs collect, run the lab with async-profiler's allocation event:",
        "",
        "```",
        f"heaplab run {run.lab} --scale {run.scale} --profile alloc --report",
        "```",
    ]


def report_lines(run: Run) -> list[str]:
    """The section; nothing for a run of another lab without profiles."""
    tables = run_tables(run)
    if not tables and run.lab not in LABS:
        return []
    lines = ["", "## Where the garbage comes from", ""]
    if not tables:
        return lines + how_to(run) + [""]
    lines += [
        "The region servers' heap allocations over each measured phase (async-profiler's `alloc` event, "
        "weighted by bytes: `server/<host>/profile-regionserver-alloc-<phase>.collapsed`), grouped by the "
        "stage of a request that made them (heaplab/analysis/alloc_stages.py: the stages' frame patterns and "
        "their precedence), per operation completed (rows). `other` is what no stage's pattern names. "
        "async-profiler samples about one allocation per 512 KB, so a short phase's small stages are rough.",
        "",
    ]
    for experiment, profiled in tables.items():
        lines += [f"### {experiment}: bytes per operation by stage", ""]
        lines += [comparison_markdown([(p.label, p.table) for p in profiled]), ""]
        for p in profiled:
            lines += [f"#### {p.label}, phase `{p.phase}`", "", variant_markdown(p.table), ""]
    return lines
