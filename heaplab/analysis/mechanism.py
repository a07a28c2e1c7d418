"""Mechanism metrics: what the region servers allocate and copy on their heap per operation, and the young
GCs that follow (docs/analysis.md "Mechanism metrics"; the fields: docs/contracts.md sections 3 and 7).

A measured phase's client summary carries ``server_metrics``: each region server's METRICS report taken
right before the client's first and right after its last measured operation.  The counters in a report
run since the server started, so the window's share is ``after - before``.  Over several client hosts a
server's ``before`` comes from the summary that started first and its ``after`` from the one that ended
last (every host's reports are of the same servers: adding them would count each byte once per host);
several servers are summed, as heaplab/analysis/cluster_metrics.py sums the memory reports.  Per operation
means per row the clients completed in the phase, summed over client hosts (as ``throughput`` counts them).

A group missing from the reports (an engine without that counter, an Apache HBase variant, a run made
before the counters existed) leaves its metrics out, so a claim on them is inconclusive; so does a server
entry with ``error``.  A group that is present but lacks a field or holds a non-number is a one-line error
naming the file and the field (MetricsFileError).

Two of the chain's metrics exist for every server, and heaplab.analysis.metrics adds them:
``gc_alloc_bytes_per_op``,
the heap bytes allocated per operation read from the servers' GC logs (heaplab.analysis.gc_alloc), and, when
the summaries carry no server counters, ``server_cpu_us_per_op`` from the /proc samples around the phase, else
from the ``admin metrics`` reports around it (heaplab.analysis.server_cpu); ``server_cpu_proc_us_per_op``, the
/proc figure, is given for every server, beside the engine's own counter.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heaplab.analysis.memory import MB, MetricsFileError, number_at
from heaplab.lab.catalogue import MECHANISM, units_of
from heaplab.runfiles.client_summary import ClientSummary
from heaplab.runfiles.gc_events import YoungGcStats

MECHANISM_UNITS = units_of(MECHANISM)
ALLOC_GROUPS = ("handler", "reader", "wal", "flush", "other")
RPC_GROUPS = ("handler", "reader")  # the threads that decode requests and run calls
COPY_FIELDS = ("request_heap_bytes", "response_heap_bytes")
SERVER_METRICS = "server_metrics"
UNKNOWN_SERVERS = "the region servers"  # an entry whose server is "" (the client could not list them)


@dataclass(frozen=True)
class Counters:
    """Counters of one report, or their sum / difference; a group is None when it cannot be known."""

    alloc: dict[str, float] | None  # "total" and each of ALLOC_GROUPS, bytes
    copies: dict[str, float] | None  # COPY_FIELDS, bytes
    direct_used: float | None  # bytes in use now (not a counter)
    cpu_ms: float | None = None  # the server process's CPU time (every thread, user + system)


@dataclass(frozen=True)
class ServerWindow:
    """Every region server's counters over the measured window, summed over servers."""

    servers: tuple[str, ...]
    growth: Counters  # after - before: alloc and copies; direct_used is the sum at the end
    notes: tuple[str, ...]  # why a group is None


def read_counters(report: Any, where: Path, at: str) -> tuple[Counters, str | None]:
    """One METRICS report's counters, and a note when the JVM cannot count allocation."""
    if not isinstance(report, dict):
        raise MetricsFileError(f"{where}: {at} is not an object")
    alloc = None
    note = None
    if "alloc" in report:
        supported = report["alloc"].get("supported") if isinstance(report["alloc"], dict) else None
        if not isinstance(supported, bool):
            raise MetricsFileError(f"{where}: {at}.alloc.supported is not true or false: {supported!r}")
        if supported:
            alloc = {"total": number_at(report, "alloc.total_bytes", where, f"{at}.")}
            alloc.update({g: number_at(report, f"alloc.by_group.{g}", where, f"{at}.") for g in ALLOC_GROUPS})
        else:
            note = "the server's JVM cannot count allocated bytes per thread"
    copies = None
    if "copies" in report:
        copies = {f: number_at(report, f"copies.{f}", where, f"{at}.") for f in COPY_FIELDS}
    direct = number_at(report, "direct.used_bytes", where, f"{at}.") if "direct" in report else None
    cpu = number_at(report, "process.cpu_ms", where, f"{at}.") if "process" in report else None
    return Counters(alloc, copies, direct, cpu), note


def server_entries(summary: ClientSummary) -> dict[str, tuple[str, dict[str, Any]]] | None:
    """The summary's server_metrics by server ("host:port"): (where in the file, the entry); None when it
    has none."""
    try:
        raw = json.loads(summary.path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise MetricsFileError(f"{summary.path}: cannot read: {e}") from e
    entries = raw.get(SERVER_METRICS)
    if entries is None:
        return None
    if not isinstance(entries, list):
        raise MetricsFileError(f"{summary.path}: {SERVER_METRICS} is not a list")
    out = {}
    for i, entry in enumerate(entries):
        server = entry.get("server") if isinstance(entry, dict) else None
        # "" with an error: the client could not even list the table's servers
        if not isinstance(server, str) or not (server or "error" in entry):
            raise MetricsFileError(f"{summary.path}: {SERVER_METRICS}[{i}].server is missing")
        out[server or UNKNOWN_SERVERS] = (f"{SERVER_METRICS}[{i}]", entry)
    return out


def _difference(a: dict[str, float] | None, b: dict[str, float] | None) -> dict[str, float] | None:
    return {k: a[k] - b[k] for k in a} if a is not None and b is not None else None


def _sum(groups: list[dict[str, float] | None]) -> dict[str, float] | None:
    if not groups or any(g is None for g in groups):
        return None
    return {k: sum(g[k] for g in groups if g is not None) for k in groups[0]}


def _cpu_growth(after: float | None, before: float | None) -> float | None:
    return after - before if after is not None and before is not None and after >= before else None


def _snapshot(
    entries: dict[str, tuple[str, dict[str, Any]]],
    server: str,
    side: str,
    summary: ClientSummary,
    notes: list[str],
) -> Counters | None:
    """One server's ``before`` or ``after`` report in one summary, None (with a note) when it has none."""
    if server not in entries:
        notes.append(f"{server}: not in {summary.path.name}")
        return None
    at, entry = entries[server]
    if "error" in entry:
        notes.append(f"{server}: {entry['error']} ({summary.path.name})")
        return None
    counters, note = read_counters(entry.get(side), summary.path, f"{at}.{side}")
    if note:
        notes.append(f"{server}: {note}")
    return counters


def _went_back(server: str, growth: Counters, notes: list[str]) -> Counters:
    """A counter that fell means the server restarted inside the window: that group is unknown."""
    groups = {"alloc": growth.alloc, "copies": growth.copies}
    for name, group in groups.items():
        if group is not None and any(v < 0 for v in group.values()):
            notes.append(f"{server}: {name} counters fell during the phase (did the server restart?)")
            groups[name] = None
    return Counters(groups["alloc"], groups["copies"], growth.direct_used, growth.cpu_ms)


def load_server_window(summaries: list[ClientSummary]) -> ServerWindow | None:
    """The servers' counters over the phase, None when a summary carries no server_metrics."""
    if not summaries:
        return None
    entries = [server_entries(s) for s in summaries]
    if any(e is None for e in entries):
        return None
    by_path = dict(zip((s.path for s in summaries), entries, strict=True))
    first = min(summaries, key=lambda s: s.start_epoch_ms)
    last = max(summaries, key=lambda s: s.end_epoch_ms)
    servers = sorted({name for e in entries for name in e or {}})
    notes: list[str] = [] if servers else ["server_metrics names no region server"]
    growths: list[Counters | None] = []
    for server in servers:
        before = _snapshot(by_path[first.path] or {}, server, "before", first, notes)
        after = _snapshot(by_path[last.path] or {}, server, "after", last, notes)
        if before is None or after is None:
            growths.append(None)
            continue
        alloc, copies = _difference(after.alloc, before.alloc), _difference(after.copies, before.copies)
        cpu = _cpu_growth(after.cpu_ms, before.cpu_ms)
        growths.append(_went_back(server, Counters(alloc, copies, after.direct_used, cpu), notes))
    known = [g for g in growths if g is not None]
    complete = bool(known) and len(known) == len(growths)
    total = Counters(
        _sum([g.alloc for g in known]) if complete else None,
        _sum([g.copies for g in known]) if complete else None,
        _total([g.direct_used for g in known]) if complete else None,
        _total([g.cpu_ms for g in known]) if complete else None,
    )
    return ServerWindow(tuple(servers), total, tuple(dict.fromkeys(notes)))


def _total(values: list[float | None]) -> float | None:
    return sum(v for v in values if v is not None) if values and None not in values else None


def completed_operations(summaries: Iterable[ClientSummary]) -> int:
    """Rows the clients completed in the phase, every host (what ``throughput`` counts)."""
    return sum(s.rows for s in summaries)


def mechanism_values(summaries: list[ClientSummary], gc: YoungGcStats | None) -> dict[str, float]:
    """The metrics of MECHANISM_UNITS that the phase's files support (docs/analysis.md)."""
    ops = completed_operations(summaries)
    if ops <= 0:
        return {}
    values: dict[str, float] = {}
    if gc is not None:  # the young-GC count of heaplab.analysis.metrics over the same window, all servers
        values["young_gc_per_mop"] = gc.count * 1e6 / ops
    window = load_server_window(summaries)
    if window is None:
        return values
    alloc, copies = window.growth.alloc, window.growth.copies
    if alloc is not None:
        values["alloc_bytes_per_op"] = alloc["total"] / ops
        values["alloc_rpc_bytes_per_op"] = sum(alloc[g] for g in RPC_GROUPS) / ops
        values["alloc_wal_bytes_per_op"] = alloc["wal"] / ops
    if copies is not None:
        values["request_copy_bytes_per_op"] = copies["request_heap_bytes"] / ops
        values["response_copy_bytes_per_op"] = copies["response_heap_bytes"] / ops
        values["heap_copy_bytes_per_op"] = sum(copies[f] for f in COPY_FIELDS) / ops
    if window.growth.direct_used is not None:
        values["direct_used_mb"] = window.growth.direct_used / MB
    if window.growth.cpu_ms is not None:  # every server thread's CPU, not only the calls' own
        values["server_cpu_us_per_op"] = window.growth.cpu_ms * 1000 / ops
    return values


# report.md's Mechanism section: (metric, column heading) in causal order, outcome last.
