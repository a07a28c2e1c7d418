"""GC pause statistics of a variant over the measured phase's window (docs/analysis.md defines each one).

Pauses come from each region server's unified log (``gc-regionserver.log``, heaplab.runfiles.gc_log: every
stop-the-world pause with its kind, sub-millisecond duration, uptime and G1's eden regions); a server
without that log falls back to ``gc-events.jsonl`` (heaplab.runfiles.gc_events: the JVM's GC notifications,
whole milliseconds, no remark/cleanup pauses). Safepoint time comes from the log only. CMS logs (JDK 11) add
initial-mark pauses and concurrent-mode failures (cms_concurrent_mode_failures).
"""

from __future__ import annotations

import functools
import statistics
from dataclasses import dataclass
from pathlib import Path

from heaplab.lab.catalogue import CMS_FAILURES
from heaplab.runfiles import rawlogs
from heaplab.runfiles.client_summary import ClientSummary, load_phase_summaries
from heaplab.runfiles.gc_events import GC_EVENTS, GcEvent, load_gc_events
from heaplab.runfiles.gc_log import CMS, GC_LOG, KINDS, parse
from heaplab.runfiles.gc_records import GcLog, Pause, Safepoint
from heaplab.runfiles.rundir import Run
from heaplab.stats import percentile

INITIAL_PEAK_S = 60.0  # gc_pause_initial_peak looks at the first minute of the measured window
GIB = 1024**3
CMF = CMS_FAILURES


@dataclass(frozen=True)
class ServerPause:
    """One stop-the-world pause of one server, whichever file it came from."""

    host: str
    start_epoch_ms: float
    duration_ms: float
    kind: str  # heaplab.runfiles.gc_log.KINDS
    start_uptime_s: float | None
    eden_evacuated_bytes: int | None  # G1 young/mixed pauses from the log only
    concurrent_mode_failure: bool = False  # CMS: a full pause that cut a concurrent cycle short

    @property
    def end_epoch_ms(self) -> float:
        return self.start_epoch_ms + self.duration_ms


@dataclass(frozen=True)
class ServerGc:
    host: str
    source: str  # the file the pauses came from: gc-regionserver.log or gc-events.jsonl
    pauses: list[ServerPause]
    safepoints: list[Safepoint] | None  # None without the unified log
    collector: str | None = (
        None  # the log's "Using ..." (heaplab.runfiles.gc_log.CMS for CMS), None without it
    )


def _from_log(host: str, p: Pause, region_size: int | None) -> ServerPause:
    eden = None
    if region_size and p.eden_before_regions is not None and p.eden_after_regions is not None:
        eden = (p.eden_before_regions - p.eden_after_regions) * region_size
    return ServerPause(
        host, p.start_epoch_ms, p.duration_ms, p.kind, p.start_uptime_s, eden, p.concurrent_mode_failure
    )


def _event_kind(e: GcEvent) -> str:
    if e.young:
        return "young"
    name = e.collector.lower()
    return "full" if any(w in name for w in ("old", "marksweep", "full")) else "other"


def _from_event(e: GcEvent) -> ServerPause:
    uptime = e.uptime_ms / 1000.0 if e.uptime_ms is not None else None
    return ServerPause(e.host, e.start_epoch_ms, e.duration_ms, _event_kind(e), uptime, None)


def server_log(server_dir: Path) -> GcLog | None:
    """A server's unified GC log, parsed once per file version; None when it left none."""
    log_path = rawlogs.locate(server_dir / GC_LOG)  # plain or gzipped
    if log_path is None:
        return None
    stat = log_path.stat()
    return _parse_once(str(log_path), stat.st_mtime_ns, stat.st_size)


def load_server_gc(server_dir: Path, host: str) -> ServerGc | None:
    """One server's pauses (and safepoints), or None when it left neither file."""
    log = server_log(server_dir)
    if log is not None:
        pauses = [_from_log(host, p, log.region_size_bytes) for p in log.pauses]
        ordered = sorted(pauses, key=lambda p: p.start_epoch_ms)
        return ServerGc(host, GC_LOG, ordered, log.safepoints, log.collector)
    events_path = server_dir / GC_EVENTS
    if events_path.is_file():
        pauses = [_from_event(e) for e in load_gc_events(events_path, host)]
        return ServerGc(host, GC_EVENTS, pauses, None)
    return None


@functools.lru_cache(maxsize=16)
def _parse_once(path: str, mtime_ns: int, size: int) -> GcLog:
    """parse(), once per file version: a report measures every experiment of a run from the same logs."""
    return parse(path)


def load_variant_gc(run: Run, variant: str) -> list[ServerGc]:
    out = []
    for host in run.server_hosts(variant):
        gc = load_server_gc(run.variant_dir(variant) / "server" / host, host)
        if gc is not None:
            out.append(gc)
    return out


def pause_stats(pauses: list, window_s: float | None = None, servers: int = 1) -> dict[str, float]:
    """The pause distribution of ``pauses`` (objects with ``duration_ms`` and ``kind`` or ``young``).

    Totals and rates are per server (divided by ``servers``); full_gc_count is over all servers.
    With no pause, only the counts (0) are given: an average of nothing is left out, not 0.
    """
    servers = max(servers, 1)
    durations = [float(p.duration_ms) for p in pauses]
    full = sum(1 for p in pauses if _kind_of(p) == "full")
    out: dict[str, float] = {"gc_count": float(len(durations)), "full_gc_count": float(full)}
    out["gc_pause_total"] = sum(durations) / servers
    if window_s is not None and window_s > 0:
        out["gc_count_per_hour"] = len(durations) / servers / window_s * 3600.0
    if durations:
        out["gc_pause_avg"] = statistics.fmean(durations)
        out["gc_pause_min"] = min(durations)
        out["gc_pause_max"] = max(durations)
        out["gc_pause_stddev"] = statistics.pstdev(durations)
        out["gc_pause_p99"] = percentile(durations, 99)
    return out


def _kind_of(p) -> str:
    kind = getattr(p, "kind", None)
    if kind is not None:
        return str(kind)
    return _event_kind(p) if isinstance(p, GcEvent) else ("young" if getattr(p, "young", False) else "other")


def eden_evacuation_rate(pauses: list[ServerPause]) -> float | None:
    """GB/s (1 GB = 2^30 bytes): per G1 young/mixed pause, eden bytes emptied / pause time; averaged."""
    rates = [
        r
        for p in pauses
        if p.kind in ("young", "mixed") and (r := _rate(p.eden_evacuated_bytes, p.duration_ms))
    ]
    return statistics.fmean(rates) if rates else None


def initial_peak(servers: list[ServerGc], start_ms: float, end_ms: float) -> float | None:
    """The longest pause of any server that started in the first 60 s of the window [start_ms, end_ms].

    "Even the highest initial peak fell from 3.792 s to 1.684 s" (G1 GC tuning for 100% YCSB reads): the
    first pauses of the measured read run, once its load and warm-up are over, not the server's start-up.
    """
    early = window_pauses(servers, start_ms, min(start_ms + INITIAL_PEAK_S * 1000.0, end_ms))
    return max(p.duration_ms for p in early) if early else None


def in_window(pauses: list[ServerPause], start_ms: float, end_ms: float) -> list[ServerPause]:
    """Pauses that started inside [start_ms, end_ms] (as heaplab.runfiles.gc_events.in_window)."""
    return [p for p in pauses if start_ms <= p.start_epoch_ms <= end_ms]


def window_pauses(servers: list[ServerGc], start_ms: float, end_ms: float) -> list[ServerPause]:
    out = [p for s in servers for p in in_window(s.pauses, start_ms, end_ms)]
    return sorted(out, key=lambda p: p.start_epoch_ms)


def gc_values(servers: list[ServerGc], start_ms: float, end_ms: float, server_count: int) -> dict[str, float]:
    """The GC metrics (the catalogue's gc family, except latency_spike_gc_share and the latency ratios)
    over the window [start_ms, end_ms]."""
    if not servers:
        return {}
    n = max(server_count, len(servers), 1)
    pauses = window_pauses(servers, start_ms, end_ms)
    out = pause_stats(pauses, (end_ms - start_ms) / 1000.0, n)
    logged = [s for s in servers if s.safepoints is not None]
    if logged:
        points = [sp for s in logged for sp in s.safepoints or [] if start_ms <= sp.end_epoch_ms <= end_ms]
        total = sum(sp.total_ms for sp in points)
        out["safepoint_total"] = total / len(logged)
    if any(s.collector == CMS for s in servers):
        out[CMF] = float(sum(1 for p in pauses if p.concurrent_mode_failure))
    peak = initial_peak(servers, start_ms, end_ms)
    if peak is not None:
        out["gc_pause_initial_peak"] = peak
    rate = eden_evacuation_rate(pauses)
    if rate is not None:
        out["eden_evacuation_rate"] = rate
    out.update(remark_stats(servers, pauses, n))
    return out


def remark_stats(servers: list[ServerGc], pauses: list[ServerPause], server_count: int) -> dict[str, float]:
    """gc_remark_avg and gc_remark_total: the remark pauses alone (G1 and CMS), where reference processing
    of a concurrent cycle happens ("with ParallelRefProcEnabled the GC remark time fell by 75%", G1 GC
    tuning for 100% YCSB reads).  Only servers with the unified log (gc-events.jsonl has no remarks);
    the average is absent when no remark fell in the window.
    """
    if not any(s.source == GC_LOG for s in servers):
        return {}
    remarks = [p.duration_ms for p in pauses if p.kind == "remark"]
    out = {"gc_remark_total": sum(remarks) / max(server_count, 1)}
    if remarks:
        out["gc_remark_avg"] = statistics.fmean(remarks)
    return out


def _rate(eden_bytes: int | None, duration_ms: float) -> float | None:
    return eden_bytes / GIB / (duration_ms / 1000.0) if eden_bytes and duration_ms > 0 else None


def measured_summaries(run: Run, variant: str, experiment: str) -> list[ClientSummary]:
    """The client summaries (one per client host) of the phase measuring ``experiment``; [] without one."""
    phase = run.spec.measured_phase(experiment)
    return load_phase_summaries(run.client_dir(variant), phase.name) if phase is not None else []


def phase_window(run: Run, variant: str, experiment: str) -> tuple[float, float] | None:
    """[start, end] epoch ms of the measured phase over every client host, None without a summary."""
    summaries = measured_summaries(run, variant, experiment)
    if not summaries:
        return None
    return min(s.start_epoch_ms for s in summaries), max(s.end_epoch_ms for s in summaries)


def young_timeline(run: Run, variant: str, experiment: str) -> list[dict]:
    """The young (and mixed) pauses of the measured phase: one row per pause, time from the phase start.

    Rows: t_s, host, kind, duration_ms, eden_evacuated_mb (None without G1's log), eden_rate_gbps.
    """
    window = phase_window(run, variant, experiment)
    if window is None:
        return []
    start, end = window
    rows = []
    for p in window_pauses(load_variant_gc(run, variant), start, end):
        if p.kind not in ("young", "mixed"):
            continue
        eden = p.eden_evacuated_bytes
        rows.append(
            {
                "t_s": (p.start_epoch_ms - start) / 1000.0,
                "host": p.host,
                "kind": p.kind,
                "duration_ms": p.duration_ms,
                "eden_evacuated_mb": eden / 1024**2 if eden is not None else None,
                "eden_rate_gbps": _rate(eden, p.duration_ms),
            }
        )
    return rows


def timeline_figure_name(experiment: str) -> str:
    return f"figures/timeline-{experiment}.png"


def _ms(values: dict[str, float], key: str) -> str:
    return f"{values[key]:.1f}" if key in values else "-"


def kinds_in_window(run: Run, variant: str, experiment: str) -> str:
    """The measured window's pauses by kind, e.g. "young 120, initial-mark 3, remark 3, full 1"."""
    window = phase_window(run, variant, experiment)
    if window is None:
        return "-"
    counts: dict[str, int] = {}
    for p in window_pauses(load_variant_gc(run, variant), *window):
        counts[p.kind] = counts.get(p.kind, 0) + 1
    order = {k: i for i, k in enumerate(KINDS)}
    return (
        ", ".join(f"{k} {n}" for k, n in sorted(counts.items(), key=lambda kn: order.get(kn[0], 99))) or "-"
    )


def report_lines(run: Run, measurements: dict[str, dict]) -> list[str]:
    """report.md's "GC" section: per experiment and variant the pauses of the measured window (every
    region server pooled; docs/analysis.md) by kind, CMS's concurrent-mode failures when a variant ran
    CMS, and the latency timeline figure."""
    lines = [
        "## GC",
        "",
        "Stop-the-world pauses that started in the measured phase's window, all region servers pooled "
        "(rate and totals per server), from each server's unified GC log (docs/analysis.md).",
    ]
    for experiment, by_variant in measurements.items():
        shown = [m for m in by_variant.values() if m.problem is None and "gc_count" in m.values]
        if not shown:
            continue
        cms = any(CMF in m.values for m in shown)
        lines += [
            "",
            f"### {experiment}",
            "",
            "| variant | pauses | by kind | per hour | avg (ms) | p99 (ms) | max (ms) | full GCs "
            + ("| concurrent-mode failures " if cms else "")
            + "| safepoint total (ms) | spikes during GC |",
            "|---|---:|---|---:|---:|---:|---:|---:|" + ("---:|" if cms else "") + "---:|---:|",
        ]
        for m in shown:
            v = m.values
            share = f"{v['latency_spike_gc_share']:.0%}" if "latency_spike_gc_share" in v else "-"
            failures = (f"| {v[CMF]:.0f} " if CMF in v else "| - ") if cms else ""
            lines.append(
                f"| {m.variant} | {v['gc_count']:.0f} | {kinds_in_window(run, m.variant, experiment)} "
                f"| {_ms(v, 'gc_count_per_hour')} "
                f"| {_ms(v, 'gc_pause_avg')} | {_ms(v, 'gc_pause_p99')} | {_ms(v, 'gc_pause_max')} "
                f"| {v['full_gc_count']:.0f} {failures}"
                f"| {_ms(v, 'safepoint_total')} | {share} |"
            )
        lines += [
            "",
            f"![latency per second and GC pauses, {experiment}]({timeline_figure_name(experiment)})",
        ]
    return [*lines, ""] if len(lines) > 4 else []
