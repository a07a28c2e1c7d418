"""``heaplab report``: write report.md, claims.json and figures/*.png into a run directory.

Nothing else in the run is touched (docs/contracts.md section 6).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from heaplab.analysis.gc_stats import report_lines as gc_lines  # GC section
from heaplab.analysis.gc_stats import timeline_figure_name
from heaplab.analysis.proc_cpu import describe
from heaplab.analysis.read_metrics import COUNTER_METRICS, FROZEN
from heaplab.analysis.spike_overlap import overlap_lines
from heaplab.analysis.steady import MIN_STEADY_S
from heaplab.judge.claim_results import tallies, write_claims_json
from heaplab.judge.claim_source import claims_to_judge
from heaplab.judge.run_analysis import Analysis, analyse
from heaplab.lab.phase_time import command_word
from heaplab.lab.schema import Phase
from heaplab.report.alloc_report import report_lines as alloc_stage_lines  # Where the garbage comes from
from heaplab.report.figures import latency_figure, memory_figure, save_png, timeline_figure
from heaplab.report.forest import forest_figure
from heaplab.report.mechanism_section import report_lines as mechanism_lines
from heaplab.report.sweep import report_lines as sweep_lines
from heaplab.report.sweep import write_figure as write_sweep_figure
from heaplab.report.verdict_table import ARTICLES
from heaplab.run.profiles import report_lines as profile_lines  # Profiles section
from heaplab.runfiles.rundir import RunError, load_run, unavailable_text, unfinished
from heaplab.runfiles.server_errors import report_lines as server_error_lines
from heaplab.runfiles.server_errors import scan as scan_server_errors
from heaplab.runfiles.server_errors import summary as server_error_summary

REPORT = "report.md"
CLAIMS = "claims.json"
FIGURES = "figures"
FOREST_FIGURE = f"{FIGURES}/claims-forest.png"
KIND_NAMES = {
    "article": "article",
    "inference": "inference",
    "check": "mechanism check",
    "peer": "peer target",
}
SCALE_NOTE = (
    "The article ran on 8-core / 16 GB nodes at the `paper` scale. The `{scale}` scale uses fewer threads, "
    "rows and a smaller heap on this run's hosts, so absolute numbers differ from the article's; compare the "
    "variants with each other, not with the article's absolute values."
)
PEER_HEADING = "no article: Apache HBase 2.6 is the peer"
# an experiment with no article behind it (lab 11's peer, Apache HBase): nothing published to scale against
NO_ARTICLE_NOTE = (
    "No article measured this: the variants ran side by side on this run's hosts at the `{scale}` scale; "
    "compare them with each other."
)


def figure_name(experiment: str) -> str:
    return f"{FIGURES}/{experiment}-latency.png"


def memory_figure_name(experiment: str) -> str:
    return f"{FIGURES}/{experiment}-memory.png"


def _disk(disk: dict) -> str:
    """'/dev/vda ext4 270.6 GB on /': the filesystem that holds the host's base directory."""
    size = disk.get("size_bytes")
    size_text = f"{size / 1e9:.1f} GB" if isinstance(size, (int, float)) else "?"
    return f"{disk.get('device', '?')} {disk.get('type', '?')} {size_text} on {disk.get('mount', '?')}"


def _cell(v: Any) -> str:
    return "-" if v in (None, "", []) else str(v).replace("|", "\\|")


def _metadata(a: Analysis) -> list[str]:
    m = a.run.manifest
    git = m.get("git") or {}
    commit = git.get("commit") or "unknown"
    dirty = " (dirty working tree)" if git.get("dirty") else ""
    params = ", ".join(f"{k}={v}" for k, v in a.run.scale_params.items())
    errors = scan_server_errors(a.run)
    errors_line = f"**{server_error_summary(errors)}** (section Server errors)" if errors else "none"
    lines = [
        f"# {a.run.lab}: {m.get('title', a.run.spec.title)}",
        "",
        f"- run: `{a.run.path.name}`",
        f"- lab: {a.run.lab}, scale: `{a.run.scale}`, status: **{m.get('status', 'unknown')}**",
        f"- commit: `{commit}`{dirty}",
        f"- start: {m.get('start') or '-'}, end: {m.get('end') or '-'}",
        f"- command: `{m.get('command') or '-'}`",
        f"- target inventory: `{m.get('target') or '-'}`",
        f"- JDK: {m.get('jdk') or '-'}",
        f"- scale parameters: {params or '-'}",
        f"- server errors: {errors_line}",
        "",
        "## Hosts",
        "",
        "| host | role | machine | CPU | cores | memory (MB) | disk | kernel | JDK |",
        "|---|---|---|---|---:|---:|---|---|---|",
    ]
    for h in m.get("hosts") or []:
        keys = ("name", "role", "machine", "cpu_model", "cores", "memory_mb", "disk", "kernel", "jdk")
        cells = [_disk(h[k]) if k == "disk" and isinstance(h.get(k), dict) else _cell(h.get(k)) for k in keys]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Variants",
        "",
        "| variant | profile | engine-site overrides | status | server JVM flags | client JVM flags |",
        "|---|---|---|---|---|---|",
    ]
    for name in a.run.spec.variants:
        v = a.run.variant_info(name)
        status = v.get("status", "missing")
        if status == "unavailable":
            status = unavailable_text(v.get("why"))
        elif v.get("error"):
            status = f"{status}: {v.get('error')}"
        flags = [" ".join(v.get(k) or []) for k in ("server_jvm_flags", "client_jvm_flags")]
        site = ", ".join(f"{k}={x}" for k, x in (v.get("site") or {}).items())
        cells = [name, _cell(v.get("profile")), _cell(site), _cell(status), f"`{flags[0]}`", f"`{flags[1]}`"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + server_error_lines(errors)


def _experiment(a: Analysis, experiment: str) -> list[str]:
    doc = a.run.spec.doc_of(experiment)
    if doc not in ARTICLES:
        note = NO_ARTICLE_NOTE.format(scale=a.run.scale)
    elif a.run.scale != "paper":
        note = SCALE_NOTE.format(scale=a.run.scale)
    else:
        note = "Scale `paper`: the article's parameters."
    lines = [
        "",
        f"## {experiment} ({ARTICLES.get(doc, PEER_HEADING)})",
        "",
        note,
        "",
        a.table_markdown(experiment),
        "",
    ]
    lines += _steady_lines(a, experiment)
    lines += _substitute_lines(a, experiment)
    lines += _host_cpu_lines(a, experiment)
    lines += _frozen_lines(a, experiment)
    for name in a.run.spec.variants_of(experiment):
        article_name = a.run.spec.variants[name].published_for(experiment)
        for note in a.published.notes(doc, experiment, article_name or ""):
            lines.append(f"- article, {article_name}: {note}")
    for article_name, text in a.unmapped_article_rows(experiment):
        lines.append(f"- article, {article_name} (no variant here): {text}")
    memory = a.run.spec.memory_phase(experiment)
    if memory is not None and memory.measures_memory:
        lines += ["", f"![memory per cell, {experiment}]({memory_figure_name(experiment)})"]
    if a.run.spec.measured_phase(experiment) is not None:
        lines += ["", f"![latency over time, {experiment}]({figure_name(experiment)})"]
    lines.append("")
    return lines


def _frozen_lines(a: Analysis, experiment: str) -> list[str]:
    """The variants whose server counters did not move over the read: why their counter columns are empty
    (heaplab.analysis.read_metrics.frozen)."""
    return [
        f"- {name}: no server counters: {m.absent[COUNTER_METRICS[0]]}"
        for name, m in a.measurements[experiment].items()
        if m.absent.get(COUNTER_METRICS[0], "").startswith(FROZEN)
    ]


def _steady_lines(a: Analysis, experiment: str) -> list[str]:
    """Which part of the measured phase the figures cover when its warm-up is left out, where each
    variant's steady state began, how the phase was sized on this machine, and a phase that kept too little
    (heaplab.analysis.steady, heaplab.lab.phase_time)."""
    phase = a.run.spec.measured_phase(experiment)
    after = phase.steady_after(a.run.scale_params) if phase else 0.0
    if not after or phase is None:
        return []
    want = phase.measure_for(a.run.scale_params)
    measured = a.measurements[experiment]
    kept = [f"{name}: {m.steady.describe()}" for name, m in measured.items() if m.steady is not None]
    lines = [
        f"- steady state of phase `{phase.name}`: each variant's from the second its rate levels off, never "
        f"before {after:g} s (the clients' warm-up)"
        + (f", {want:g} s wanted" if want else "")
        + f"; throughput, percentiles and GC figures cover the rest: {'; '.join(kept) or '-'}",
    ]
    source = phase.sized_by
    for name in measured:
        sized = a.run.variant_info(name).get("sized") or {}
        for host, record in (sized.get(source) or {}).items() if source else ():
            lines.append(f"- its warm-up `{source}` on {host} for {name}: {record.get('why', '-')}")
        for host, record in sized.get(phase.name, {}).items():
            lines.append(f"- sized on {host} for {name}: {record.get('why', '-')}")
    for name, m in measured.items():
        if m.steady is not None and m.steady.short:
            still = "" if m.steady.levelled else " and its rate never levelled off"
            enough = m.steady.rows_enough()
            lines.append(
                f"- **phase `{phase.name}` ran too short on {name}**: it kept {m.steady.seconds:.0f} s of "
                f"steady state{still}, fewer than the {max(want, MIN_STEADY_S):g} s wanted"
                + (f"; {_enough_advice(phase, enough)}" if enough else "")
            )
    return [*lines, ""]


def _enough_advice(phase: Phase, rows: int) -> str:
    """What would have kept a short phase long enough: more rows per thread; a scan reads what its table
    holds, so its table must hold them too (the phase that loaded it, with the same rows)."""
    if command_word(phase.args) == "scan":
        return (
            f"a table of {rows} rows per thread, loaded and scanned (--rows={rows} on the phase that "
            "loads it and on this one), would have been enough"
        )
    return f"--rows={rows} per thread would have been enough"


def _substitute_lines(a: Analysis, experiment: str) -> list[str]:
    """A variant whose batches ran HBase 1.4's buffered substitute for --multiPut (heaplab.run.hbase_pe)."""
    lines = []
    for name, m in a.measurements[experiment].items():
        said = sorted({s.batch_substitute for s in m.summaries if s.batch_substitute})
        if said:
            lines.append(
                f"- {name}: {'; '.join(said)}. Not a multiPut: its latencies are per row (most rows only "
                "enter the client's write buffer), not per batch call; compare its rows/s, not its latencies."
            )
    return [*lines, ""] if lines else []


def _host_cpu_lines(a: Analysis, experiment: str) -> list[str]:
    """The region server hosts' CPU during the measured phase, from the /proc samples
    (heaplab.analysis.proc_cpu):
    a host that was busy with other work than the server and the client ran disturbed."""
    measured = [m for m in a.measurements[experiment].values() if m.host_cpu]
    if not measured:
        return []
    notes = [
        f"{m.variant}: "
        + "; ".join(h if isinstance(h, str) else describe(h) for h in (m.host_cpu or {}).values())
        for m in measured
    ]
    busy = sorted(
        {
            f"{h.host} ({m.variant}: other work {h.other_share:.0%} of its CPUs)"
            for m in measured
            for h in (m.host_cpu or {}).values()
            if not isinstance(h, str) and h.busy_with_other_work
        }
    )
    warning = (
        [
            f"- **The machine was busy with other work while `{measured[0].phase}` was measured**: "
            + ", ".join(busy)
            + ". Its tail latencies and pauses are not the variants' alone: rerun on an idle machine before "
            "you trust them (no build, test or other program beside the run).",
        ]
        if busy
        else []
    )
    return [
        f"- host CPU during `{measured[0].phase}` (/proc; shares of each region server host's CPUs, other: "
        "neither the server nor a client on that host): " + " | ".join(notes),
        *warning,
        "",
    ]


def _tally_lines(a: Analysis) -> list[str]:
    """What each subject showed, per kind of claim (a mechanism check is never a reproduction)."""
    lines = []
    for subject, kinds in tallies(a.claims).items():
        for kind, levels in kinds.items():
            shown = ", ".join(f"{n} {level}" for level, n in levels.items() if n)
            lines.append(f"- {subject}, {KIND_NAMES.get(kind, kind)}: {shown}")
    return lines


def _claims(a: Analysis) -> list[str]:
    n = len(a.runs) or 1
    runs = ", ".join(f"`{r.path.name}`" for r in a.runs) if n > 1 else "this run only"
    _, source = claims_to_judge(a.run)
    aa = a.run.aa or {}
    lines = [
        "## Claims",
        "",
        f"Judged over {n} run(s): {runs}; the claims of {source}.",
        *(
            [
                "",
                f"**An A/A run**: `{aa.get('variant')}` against its twin `{aa.get('twin')}`, the same "
                "configuration on both sides of every claim. Anything but `no effect` or `inconclusive` "
                "below is a false alarm of the rule (docs/analysis.md, Calibration).",
            ]
            if aa
            else []
        ),
        "",
        *_tally_lines(a),
        "",
        "Each figure is the article's own. Measured: each variant's mean, then the claim's quantity (the",
        "ratio of the two variants, or the value) with its 95% interval over the runs. `reproduced`: the",
        "interval reaches the article's region (its figure +-15% unless the claim says otherwise) and",
        "excludes no effect (1 +-5%); `smaller` / `larger than the article`: it excludes both, short of or",
        "beyond the article; `no effect`: it lies inside 1 +-5%; a verdict needs three runs (fewer are",
        "indicative only). A mechanism check is true by construction of the code: passed or failed, never a",
        "reproduction. The rule: docs/analysis.md, section Verdicts.",
        "",
        f"![claims]({FOREST_FIGURE})",
    ]
    for subject, mapping in a.run.spec.subjects.items():  # heaplab.lab.subjects
        pairs = ", ".join(f"{theirs} for {ours}" for ours, theirs in mapping.items())
        lines.append(f"A claim `<id>@{subject}` is the claim above it judged on {subject}: {pairs}.")
    lines += [
        "",
        "| claim | kind | subject | article | expectation | measured | verdict | why |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in a.claims:
        c = r.claim
        source = f" ({c.source})" if c.source else ""
        expect = f"`{c.expect}` {c.metric}" if c.expect else "-"
        kind, article = KIND_NAMES.get(c.kind, c.kind), _cell(r.article_text + source)
        lines.append(
            f"| {c.id} | {kind} | {r.subject_name} | {article} | {_cell(expect)} | "
            f"{_cell(r.measured_text)} | **{r.verdict}** | {_cell(r.why)} |"
        )
    return lines


def render(a: Analysis, preface: list[str] | None = None) -> str:
    head = _metadata(a)
    lines = [*head[:2], *(preface or []), *head[2:]]  # under the title
    for experiment in a.run.spec.experiments:
        lines += _experiment(a, experiment)
    lines += sweep_lines(a)  # labs with a thread sweep (heaplab/report/sweep.py); nothing otherwise
    lines += gc_lines(a.run, a.measurements)  # GC pauses + latency timeline (heaplab/analysis/gc_stats.py)
    lines += overlap_lines(a.measurements)  # tail gets against pauses, the hiccup control (spike_overlap.py)
    lines += mechanism_lines(a.measurements)  # heap bytes per op -> young GCs (heaplab/analysis/mechanism.py)
    lines += alloc_stage_lines(a.run)  # those bytes by stage of a request (heaplab/report/alloc_report.py)
    lines += profile_lines(a.run.path, a.run.manifest.get("variants", {}))  # flame graphs
    lines += _claims(a)
    return "\n".join(lines) + "\n"


def write_report(
    run_dir: str | Path,
    published_csv: Path | None = None,
    with_runs: list[Path] | None = None,
    preface: list[str] | None = None,
) -> Path:
    """Write the report into ``run_dir``; claims judged over it and ``with_runs`` (default: its series).
    ``preface``: lines it opens with (a run made by older code: heaplab.run.staleness).

    A run that did not end (interrupted, or still "running": heaplab killed) is refused with one line; a
    failed run is reported, its failed variants shown with their error and without metrics."""
    for path in [Path(run_dir), *(with_runs or [])]:
        run = load_run(path)
        why = unfinished(run.path, run.manifest)
        if why:
            raise RunError(f"{why}; a report needs a run that ended")
    a = analyse(run_dir, published_csv, with_runs)
    for experiment in a.run.spec.experiments:
        measured = a.measurements[experiment]
        memory = a.run.spec.memory_phase(experiment)
        if memory is not None and memory.measures_memory:
            save_png(memory_figure(a.run, experiment, measured), a.run.path / memory_figure_name(experiment))
        if a.run.spec.measured_phase(experiment) is not None:
            save_png(latency_figure(a.run, experiment, measured), a.run.path / figure_name(experiment))
            # per-second latency beside GC pauses (heaplab/analysis/timeline.py)
            shown = [name for name, m in measured.items() if m.problem is None and m.window_ms]
            save_png(timeline_figure(a.run, experiment, shown), a.run.path / timeline_figure_name(experiment))
    write_sweep_figure(a)
    save_png(forest_figure(a.claims, f"{a.run.lab}: the claims"), a.run.path / FOREST_FIGURE)
    write_claims_json(a.runs, a.claims, a.run.path / CLAIMS)
    path = a.run.path / REPORT
    path.write_text(render(a, preface), encoding="utf-8")
    return path
