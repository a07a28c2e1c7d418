"""The metrics of one variant in one experiment of a run, named as in published_results.csv.

From the measured pe phase: throughput (rows/s, summed over client hosts), latency_avg/p50/p95/p99/p999/max
(ms; from the client summary with one client host, from the merged HdrHistogram logs with several),
young_gc_avg_pause (ms) and young_gc_rate (1/s per server) over the phase's [start, end] window, and the
GC metrics of heaplab.analysis.gc_stats (pause distribution, safepoints, eden evacuation rate) with
latency_spike_gc_share of heaplab.analysis.timeline, and the tail requests' overlap with the servers' pauses
and the platform-stall control's figures of heaplab.analysis.spike_overlap (docs/analysis.md defines them);
over the whole phase, the mechanism metrics of heaplab.analysis.mechanism and the heap bytes allocated per
operation read from the servers' GC logs (heaplab.analysis.gc_alloc), the server CPU per operation from the
/proc samples around the phase (every server: heaplab.analysis.proc_cpu, heaplab.analysis.server_cpu) with the
hosts' CPU shares, and, for a variant whose summaries carry no server counters, ``server_cpu_us_per_op`` from
those samples, else from the ``admin metrics`` reports around the phase (heaplab.analysis.server_cpu). From
the measured ``admin metrics`` phase and its baseline: the memory metrics of heaplab.analysis.memory (when the
reports were taken after a collection, ``admin metrics --gc``; the ``*_after_flush`` ones from the ``admin
metrics --gc`` phase after an ``admin flush`` that follows it: flushed_phase) and the read metrics of
heaplab.analysis.read_metrics (counter deltas: data-block hit ratio, disk reads, CPU and query-cache hits per
get); in cluster mode over the sum of every region server's report (heaplab.analysis.cluster_metrics).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram

from heaplab.analysis.cluster_metrics import load_phase_report, report_paths
from heaplab.analysis.gc_alloc import variant_bytes_per_op
from heaplab.analysis.gc_stats import gc_values, load_variant_gc
from heaplab.analysis.mechanism import completed_operations, mechanism_values
from heaplab.analysis.memory import (
    CHUNK_SIZE_KEY,
    DEFAULT_CHUNK_BYTES,
    AdminMetrics,
    MetricsFileError,
    flushed_values,
    memory_values,
)
from heaplab.analysis.proc_cpu import PhaseCpu, ProcCpuFileError, variant_phase_cpu
from heaplab.analysis.read_metrics import COUNTER_METRICS, frozen, read_values, reads_asked
from heaplab.analysis.server_cpu import METRIC as SERVER_CPU
from heaplab.analysis.server_cpu import PROC_METRIC as SERVER_CPU_PROC
from heaplab.analysis.server_cpu import bracketing_phases, cpu_us_per_op, proc_cpu_us_per_op
from heaplab.analysis.spike_overlap import overlap_values
from heaplab.analysis.steady import SteadyState, TooShort, steady_state
from heaplab.analysis.timeline import Timeline, latency_timeline, spike_gc_lift, spike_gc_share, spike_seconds
from heaplab.lab.catalogue import GC_ALLOC
from heaplab.lab.schema import HICCUP, Phase, Spec
from heaplab.runfiles.client_summary import ClientSummary, load_phase_summaries
from heaplab.runfiles.gc_events import YoungGcStats, young_gc_stats
from heaplab.runfiles.hlog import US_PER_MS, mean_value, read_total, value_at_percentile
from heaplab.runfiles.rundir import Run, unavailable_text

LATENCY_KEYS = {
    "latency_avg": "mean",
    "latency_p50": "p50",
    "latency_p95": "p95",
    "latency_p99": "p99",
    "latency_p999": "p999",
    "latency_max": "max",
}


@dataclass
class Measurement:
    variant: str
    experiment: str
    status: str  # the variant's status in run.json
    values: dict[str, float] = field(default_factory=dict)
    problem: str | None = None  # why values are missing (unavailable, failed, files absent)
    phase: str | None = None
    window_ms: tuple[float, float] | None = None
    summaries: list[ClientSummary] = field(default_factory=list)
    gc: YoungGcStats | None = None
    memory: AdminMetrics | None = None  # the measured admin metrics phase's report
    memory_baseline: AdminMetrics | None = None
    memory_flushed: AdminMetrics | None = None  # the report after the flush (flushed_phase), if any
    steady: SteadyState | None = None  # the phase without its warm-up, when the spec leaves one out
    phase_window_ms: tuple[float, float] | None = None  # the whole phase (window_ms: what was judged)
    # what a count-like metric rests on: metric -> the events counted (GCs, spike seconds;
    # heaplab.judge.claims)
    events: dict[str, int] = field(default_factory=dict)
    absent: dict[str, str] = field(default_factory=dict)  # metric -> why it was left out (one line)
    # the metrics of ``absent`` that this variant's tool cannot give at all (not missing by chance): a claim
    # on them is not measurable on this variant, not inconclusive
    cannot: set[str] = field(default_factory=set)
    # each region server host's CPU over the measured phase from the /proc samples
    # (heaplab.analysis.proc_cpu):
    # host -> figures or why not; None: the run has no samples
    host_cpu: dict[str, PhaseCpu | str] | None = None
    # where server_cpu_us_per_op came from: "server_metrics" (the engine pe's counters), "proc" or
    # "admin metrics"
    server_cpu_source: str | None = None


def _latency_ms(summaries: list[ClientSummary]) -> dict[str, float]:
    if len(summaries) == 1:
        lat = summaries[0].latency_us
        return {m: lat[k] / US_PER_MS for m, k in LATENCY_KEYS.items() if k in lat}
    hlogs = [s.hlog for s in summaries if s.hlog is not None and s.hlog.is_file()]
    if len(hlogs) != len(summaries):
        return {}
    return _histogram_ms(read_total(hlogs))


def _histogram_ms(total: HdrHistogram) -> dict[str, float]:
    return {
        "latency_avg": mean_value(total) / US_PER_MS,
        "latency_p50": value_at_percentile(total, 50) / US_PER_MS,
        "latency_p95": value_at_percentile(total, 95) / US_PER_MS,
        "latency_p99": value_at_percentile(total, 99) / US_PER_MS,
        "latency_p999": value_at_percentile(total, 99.9) / US_PER_MS,
        "latency_max": total.get_max_value() / US_PER_MS,
    }


def measure(run: Run, variant: str, experiment: str) -> Measurement:
    """Compute the metrics; never raises for an unavailable/failed variant, it says so in ``problem``."""
    status = run.variant_status(variant)
    m = Measurement(variant, experiment, status)
    if status == "unavailable":
        m.problem = unavailable_text(run.variant_info(variant).get("why"))
        return m
    if status != "complete":
        error = run.variant_info(variant).get("error")
        m.problem = f"variant {status}" + (f": {error}" if error else "")
        return m
    phase = run.spec.measured_phase(experiment)
    memory = run.spec.memory_phase(experiment)
    if phase is None and memory is None:
        m.problem = f"the spec has no phase measuring {experiment}"
        return m
    if phase is not None:
        params = run.scale_params
        m.problem = _measure_client(
            run,
            m,
            phase.name,
            steady_after_s=phase.steady_after(params),
            measure_s=phase.measure_for(params),
            from_data=phase.measure_s is not None,  # a spec with measure_s: the cut found in the data
        )
    if memory is not None and m.problem is None:
        m.problem = _measure_memory(run, m, memory.name, memory.baseline)
        flushed = flushed_phase(run.spec, memory) if memory.measures_memory else None
        if flushed is not None and m.problem is None:
            m.problem = _measure_flushed(run, m, flushed.name, flushed.baseline or memory.baseline)
    if phase is not None and m.problem is None:
        m.problem = _proc_cpu(run, m)
    if phase is not None and m.problem is None:
        if SERVER_CPU in m.values:
            m.server_cpu_source = "server_metrics"
        elif SERVER_CPU_PROC in m.values:
            m.values[SERVER_CPU] = m.values[SERVER_CPU_PROC]
            m.server_cpu_source = "proc"
        else:
            m.problem = _bracketed_cpu(run, m, experiment)
    return m


def _proc_cpu(run: Run, m: Measurement) -> str | None:
    """server_cpu_proc_us_per_op and the hosts' CPU shares from the /proc samples
    (heaplab.analysis.proc_cpu)."""
    try:
        m.host_cpu = variant_phase_cpu(run.variant_dir(m.variant), m.phase or "")
    except ProcCpuFileError as e:
        return str(e)
    if m.host_cpu is None:
        m.absent[SERVER_CPU_PROC] = (
            "no proc-cpu.jsonl from any region server host (a run made before the samples)"
        )
        return None
    value = proc_cpu_us_per_op(m.host_cpu, completed_operations(m.summaries))
    if isinstance(value, str):
        m.absent[SERVER_CPU_PROC] = value
    else:
        m.values[SERVER_CPU_PROC] = value
    return None


def _bracketed_cpu(run: Run, m: Measurement, experiment: str) -> str | None:
    """server_cpu_us_per_op from the ``admin metrics`` reports around the phase (heaplab.analysis.server_cpu),
    for a
    variant whose client summaries carry no server counters (Apache HBase)."""
    found = bracketing_phases(run.spec, experiment)
    if isinstance(found, str) or m.memory is None or m.memory_baseline is None:
        m.absent[SERVER_CPU] = (
            found if isinstance(found, str) else "no `admin metrics` reports around the phase"
        )
        return None
    try:
        value = cpu_us_per_op(m.memory_baseline, m.memory, completed_operations(m.summaries))
    except MetricsFileError as e:
        return str(e)
    if isinstance(value, str):
        m.absent[SERVER_CPU] = value
    else:
        m.values[SERVER_CPU] = value
        m.server_cpu_source = "admin metrics"
    return None


def flushed_phase(spec: Spec, memory: Phase) -> Phase | None:
    """The ``admin metrics --gc`` phase that reports the server after its memstores were flushed: the
    first one after an ``admin flush`` phase that comes after the measured memory phase ``memory``.
    Its own ``baseline`` (else the measured phase's) is the report it is compared with."""
    later = spec.phases[spec.phases.index(memory) + 1 :]
    flushed = False
    for p in later:
        words = p.args.split()
        if p.tool == "admin" and words[:1] == ["flush"]:
            flushed = True
        elif flushed and p.measures_memory:
            return p
    return None


def _without_substitute_pace(m: Measurement) -> None:
    """HBase 1.4's PE batches through the buffered substitute (no --multiPut): it times each row's buffered
    put, not a call of many rows, and its pace is its client's buffering (each thread flushes its own
    buffer), not a batch call's. So its latencies, its rows per second and what is counted per second
    (young GCs per second) answer another question than a real batch's and are left out, with the reason;
    the server's side per operation (allocation, young GCs per million rows, server CPU) and the pauses
    stay."""
    said = sorted({s.batch_substitute for s in m.summaries if s.batch_substitute})
    if not said:
        return
    paced = [k for k in m.values if k.startswith("latency_") or k in ("throughput", "young_gc_rate")]
    for metric in paced:
        del m.values[metric]
        m.absent[metric] = (
            "the buffered substitute for --multiPut times buffered puts at its client's pace, not batch calls"
        )
        m.cannot.add(metric)


def _measure_client(
    run: Run,
    m: Measurement,
    phase: str,
    *,
    steady_after_s: float = 0.0,
    measure_s: float = 0.0,
    from_data: bool = True,
) -> str | None:
    m.phase = phase
    m.summaries = load_phase_summaries(run.client_dir(m.variant), phase)
    if not m.summaries:
        return f"no client summary {phase}-<host>.json in {run.client_dir(m.variant)}"
    phase_start = min(s.start_epoch_ms for s in m.summaries)
    phase_end = max(s.end_epoch_ms for s in m.summaries)
    m.phase_window_ms = (phase_start, phase_end)
    if steady_after_s > 0:  # the warm-up left out (heaplab.analysis.steady)
        try:
            m.steady = steady_state(m.summaries, steady_after_s, measure_s, from_data=from_data)
        except (TooShort, FileNotFoundError) as e:
            return f"no steady state in {phase}: {e}"
        start, end = m.steady.start_epoch_ms, m.steady.end_epoch_ms
        m.values["throughput"] = m.steady.throughput
        m.values.update(_histogram_ms(m.steady.total))
    else:
        start, end = phase_start, phase_end
        m.values["throughput"] = sum(s.throughput for s in m.summaries)
        m.values.update(_latency_ms(m.summaries))
    m.window_ms = (start, end)
    if m.values.get("latency_p50") and "latency_p999" in m.values:  # how far the tail sits above the median
        m.values["latency_p999_over_p50"] = m.values["latency_p999"] / m.values["latency_p50"]
    if m.values.get("latency_avg") and "latency_p999" in m.values:  # "average under 1 ms, P999 hundreds"
        m.values["latency_p999_over_avg"] = m.values["latency_p999"] / m.values["latency_avg"]
    servers = run.server_hosts(m.variant)
    events = run.gc_events(m.variant) if servers else []
    if servers:
        m.gc = young_gc_stats(events, start, end, len(servers))
        m.values["young_gc_rate"] = m.gc.rate_per_s
        m.events["young_gc_rate"] = m.gc.count
        if m.gc.avg_pause_ms is not None:
            m.values["young_gc_avg_pause"] = m.gc.avg_pause_ms
        # the pause distribution, safepoints and eden rate (heaplab/analysis/gc_stats.py, docs/analysis.md)
        m.values.update(gc_values(load_variant_gc(run, m.variant), start, end, len(servers)))
        _timeline_values(m, latency_timeline(run, m.variant, m.experiment))
        _overlap_values(run, m, start, end)
    # The servers' counters cover the whole phase, so the young GCs per operation do too.
    whole_phase_gc = m.gc
    if m.gc is not None and m.steady is not None:
        whole_phase_gc = young_gc_stats(events, phase_start, phase_end, len(servers))
    if whole_phase_gc is not None:
        m.events["young_gc_per_mop"] = whole_phase_gc.count
    # server heap allocation and copies per operation, young GCs per million (heaplab/analysis/mechanism.py)
    try:
        m.values.update(mechanism_values(m.summaries, whole_phase_gc))
    except MetricsFileError as e:
        return str(e)
    _gc_alloc(run, m, phase_start, phase_end)
    _without_substitute_pace(m)
    return None


def _gc_alloc(run: Run, m: Measurement, phase_start: float, phase_end: float) -> None:
    """Heap bytes per operation from the GC logs, any server (heaplab/analysis/gc_alloc.py), over the same
    whole
    phase as the servers' counters."""
    per_op = variant_bytes_per_op(run, m.variant, phase_start, phase_end, completed_operations(m.summaries))
    if isinstance(per_op, str):
        m.absent[GC_ALLOC] = per_op
    else:
        m.values[GC_ALLOC] = per_op


def _timeline_values(m: Measurement, timeline: Timeline | None) -> None:
    """The spike-second metrics, and the events every count-like metric rests on (heaplab.judge.claims)."""
    if timeline is not None:
        share, lift = spike_gc_share(timeline), spike_gc_lift(timeline)
        if share is not None:
            m.values["latency_spike_gc_share"] = share
        if lift is not None:
            m.values["latency_spike_gc_lift"] = lift
        spikes = len(spike_seconds(timeline)[0])
        m.events.update(latency_spike_gc_share=spikes, latency_spike_gc_lift=spikes)
    for counted in ("gc_count", "full_gc_count", "cms_concurrent_mode_failures"):
        if counted in m.values:
            m.events[counted] = int(m.values[counted])
    if "gc_count" in m.values:
        m.events["gc_count_per_hour"] = int(m.values["gc_count"])


def _overlap_values(run: Run, m: Measurement, start: float, end: float) -> None:
    """The tail requests against the servers' pauses and the hiccup control
    (heaplab.analysis.spike_overlap)."""
    client = run.client_dir(m.variant)
    logs = [s.hlog for s in m.summaries if s.hlog is not None and s.hlog.is_file()]
    meters = [q.name for q in run.spec.phases if q.tool == HICCUP]
    control = [p for name in meters for p in sorted(client.glob(f"{name}-*.hlog"))]
    values, tail = overlap_values(logs, load_variant_gc(run, m.variant), control, (start, end))
    m.values.update(values)
    m.events.update({k: tail for k in ("tail_gc_share", "tail_gc_lift", "tail_stall_share") if k in values})


def _measure_memory(run: Run, m: Measurement, phase: str, baseline: str | None) -> str | None:
    client = run.client_dir(m.variant)
    paths = {name: report_paths(client, name) for name in (phase, baseline) if name}
    missing = [name for name, found in paths.items() if not found]
    if missing:
        return f"no admin metrics report {', '.join(f'{n}-<host>.json' for n in missing)} in {client}"
    try:
        m.memory = load_phase_report(paths[phase])
        m.memory_baseline = load_phase_report(paths[baseline]) if baseline else None
    except MetricsFileError as e:
        return str(e)
    if m.memory.gc_requested:  # heap and direct memory mean something only after a collection
        m.values.update(memory_values(m.memory, m.memory_baseline, _chunk_bytes(run, m.variant)))
    if m.memory_baseline is not None:
        try:
            m.values.update(read_values(m.memory, m.memory_baseline))
            why = frozen(m.memory, m.memory_baseline, reads_asked(m.summaries))
        except MetricsFileError as e:
            return str(e)
        if why:
            for metric in COUNTER_METRICS:
                m.values.pop(metric, None)
                m.absent[metric] = why
    return None


def _measure_flushed(run: Run, m: Measurement, phase: str, baseline: str | None) -> str | None:
    """The ``*_after_flush`` metrics (heaplab.analysis.memory.flushed_values) from the report after the flush.
     A
    missing report leaves them out (a claim on them says the variant has none) without taking the metrics
    of the earlier phases away; an unreadable one is the variant's problem, as for the measured phase."""
    client = run.client_dir(m.variant)
    paths = {name: report_paths(client, name) for name in (phase, baseline) if name}
    if not all(paths.values()):
        return None
    try:
        m.memory_flushed = load_phase_report(paths[phase])
        base = load_phase_report(paths[baseline]) if baseline else None
    except MetricsFileError as e:
        return str(e)
    if m.memory_flushed.gc_requested:
        m.values.update(flushed_values(m.memory_flushed, base, _chunk_bytes(run, m.variant)))
    return None


def _chunk_bytes(run: Run, variant: str) -> int:
    """The variant's memstore chunk size as its spec set it (the profiles leave HBase's default)."""
    spec_variant = run.spec.variants.get(variant)
    params = run.scale_params
    try:
        value = run.spec.site_for(params, spec_variant).get(CHUNK_SIZE_KEY) if spec_variant else None
        return int(value) if value else DEFAULT_CHUNK_BYTES
    except (ValueError, KeyError):
        return DEFAULT_CHUNK_BYTES


def measure_all(run: Run) -> dict[str, dict[str, Measurement]]:
    """{experiment: {variant: Measurement}} for every reproduced experiment and the variants it compares."""
    return {
        exp: {name: measure(run, name, exp) for name in run.spec.variants_of(exp)}
        for exp in run.spec.experiments
    }
