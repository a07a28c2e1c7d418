"""The metric catalogue: every metric a claim may name, its unit, the family that computes it and which
servers can measure it.

Every module that names a metric reads it here: the spec's schema (what a claim may name), the analysis
modules (the unit of what they compute), the subjects (what Apache HBase cannot measure) and the reports
and notebooks (a figure's unit). docs/analysis.md defines each metric.
"""

from __future__ import annotations

from dataclasses import dataclass

# The families, named after the module of heaplab.analysis that computes them.
CLIENT = "client"  # the clients' summaries and latency logs (heaplab.analysis.metrics)
GC = "gc"  # the servers' GC logs (heaplab.analysis.gc_stats, heaplab.analysis.timeline)
MEMORY = "memory"  # `admin metrics` reports (heaplab.analysis.memory)
READ = "read"  # counter deltas between two `admin metrics` reports (heaplab.analysis.read_metrics)
MECHANISM = "mechanism"  # the server's allocation and copies per operation (heaplab.analysis.mechanism)
SPIKE_OVERLAP = (
    "spike_overlap"  # tail requests against pauses, the hiccup control (heaplab.analysis.spike_overlap)
)

ANY_SERVER = "any"  # the engine and Apache HBase
ENGINE_ONLY = "engine"  # the engine's own counters around the measured operations (engine/docs/allocation.md)

GC_ALLOC = "gc_alloc_bytes_per_op"  # from the GC logs, any server (heaplab.analysis.gc_alloc)
CMS_FAILURES = "cms_concurrent_mode_failures"  # CMS runs (JDK 11): heaplab.analysis.gc_stats


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    family: str
    measured_on: str = ANY_SERVER


def _family(family: str, units: dict[str, str], engine_only: frozenset[str] = frozenset()) -> list[Metric]:
    return [Metric(n, u, family, ENGINE_ONLY if n in engine_only else ANY_SERVER) for n, u in units.items()]


_METRICS = [
    *_family(
        CLIENT,
        {
            "throughput": "ops/s",
            "latency_avg": "ms",
            "latency_p95": "ms",
            "latency_p99": "ms",
            "latency_p999": "ms",
            "latency_max": "ms",
            "young_gc_avg_pause": "ms",
            "young_gc_rate": "1/s",
        },
    ),
    *_family(
        GC,
        {
            "latency_p50": "ms",
            "latency_p999_over_p50": "x",
            "gc_pause_avg": "ms",
            "gc_pause_min": "ms",
            "gc_pause_max": "ms",
            "gc_pause_stddev": "ms",
            "gc_pause_p99": "ms",
            "gc_pause_total": "ms",
            "gc_count": "pauses",
            "gc_count_per_hour": "1/h",
            "full_gc_count": "pauses",
            "safepoint_total": "ms",
            "gc_pause_initial_peak": "ms",
            "gc_remark_avg": "ms",
            "gc_remark_total": "ms",
            "eden_evacuation_rate": "GB/s",
            "latency_spike_gc_share": "fraction",
            "latency_spike_gc_lift": "x",  # spike seconds' GC overlap over other seconds'
            "latency_p999_over_avg": "x",
            CMS_FAILURES: "failures",
        },
    ),
    *_family(
        MEMORY,
        {
            "resident_after_insert": "MB",
            "heap_retained": "MB",
            "direct_retained": "MB",
            "heap_used": "MB",
            "direct_used": "MB",
            "memstore_data": "MB",
            "cells": "cells",
            "bytes_per_cell": "B",
            "heap_bytes_per_cell": "B",
            "heap_overhead_per_cell": "B",
            "resident_after_flush": "MB",  # the `admin metrics --gc` phase after an `admin flush`
            "heap_committed_after_flush": "MB",
            "rss_after_flush": "MB",
        },
    ),
    *_family(
        READ,
        {
            "data_block_hit_ratio": "ratio",
            "disk_reads_per_get": "reads",
            "cpu_us_per_get": "us",
            "query_cache_hit_ratio": "ratio",
            "gets": "gets",
            "store_file_mb": "MB",
        },
    ),
    # Every server has the young GCs per operation and the allocation per operation from its GC log, and the
    # server CPU per operation from the /proc samples around the phase or the `admin metrics` reports around
    # it (heaplab.analysis.server_cpu); the rest are the engine's own counters: HBase's PE reads none.
    *_family(
        MECHANISM,
        {
            "alloc_bytes_per_op": "B/op",
            GC_ALLOC: "B/op",
            "alloc_rpc_bytes_per_op": "B/op",
            "alloc_wal_bytes_per_op": "B/op",
            "heap_copy_bytes_per_op": "B/op",
            "request_copy_bytes_per_op": "B/op",
            "response_copy_bytes_per_op": "B/op",
            "young_gc_per_mop": "1/Mop",
            "direct_used_mb": "MB",
            "server_cpu_us_per_op": "us/op",
            "server_cpu_proc_us_per_op": "us/op",  # from the /proc samples (heaplab.analysis.proc_cpu)
        },
        engine_only=frozenset(
            {
                "alloc_bytes_per_op",
                "alloc_rpc_bytes_per_op",
                "alloc_wal_bytes_per_op",
                "heap_copy_bytes_per_op",
                "request_copy_bytes_per_op",
                "response_copy_bytes_per_op",
                "direct_used_mb",
            }
        ),
    ),
    *_family(
        SPIKE_OVERLAP,
        {
            "tail_gc_share": "fraction",
            "all_gc_share": "fraction",
            "tail_gc_lift": "x",
            "pause_time_share": "fraction",
            "hiccup_p999": "ms",
            "hiccup_max": "ms",
            "hiccup_p999_over_latency_p999": "x",
            "tail_stall_share": "fraction",
        },
    ),
]

CATALOGUE: dict[str, Metric] = {m.name: m for m in _METRICS}
METRICS = tuple(CATALOGUE)  # what a claim may name
UNITS = {m.name: m.unit for m in _METRICS}


def units_of(family: str) -> dict[str, str]:
    """The metrics of one family with their units, in the catalogue's order."""
    return {m.name: m.unit for m in _METRICS if m.family == family}


def names_of(family: str) -> tuple[str, ...]:
    return tuple(units_of(family))


# An engine counter and the measure of the same quantity every server has: a claim on the first is judged
# on another subject on the second.
SUBJECT_MEASURES = {"alloc_bytes_per_op": GC_ALLOC}
# What only the engine counts and no other server has a measure of: a claim on it is not judged there.
ENGINE_ONLY_METRICS = frozenset(m.name for m in _METRICS if m.measured_on == ENGINE_ONLY) - set(
    SUBJECT_MEASURES
)
