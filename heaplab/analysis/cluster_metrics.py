"""Cluster mode: one ``admin metrics`` report per region server, read as one report for the whole cluster.

The master keeps no storage metrics, so in cluster mode the playbook asks every region server in turn and
keeps one report each, ``<phase>-<host>@<server>.json`` (docs/contracts.md section 5); standalone there is
one, ``<phase>-<host>.json``.  heaplab's memory and read metrics are sums and ratios of counters and sizes,
so they are computed from the servers' sums, as if the cluster were one server: the data-block hit ratio
over every server's lookups (not the mean of the servers' ratios), the heap the whole cluster retained,
bytes per cell over all cells.  The merged report's other numbers (ratios, means, percentiles of its own)
are sums too and mean nothing; the per-server files stay in the run directory for them.
"""

from __future__ import annotations

from functools import reduce
from pathlib import Path
from typing import Any

from heaplab.analysis.memory import AdminMetrics, load_admin_metrics

SERVER_SEPARATOR = "@"
# Numbers that are the same on every server, not amounts: the first server's value is kept.
KEEP_FIRST = frozenset({"format", "chunk_size_bytes"})


def report_paths(client_dir: Path, phase: str) -> list[Path]:
    """The phase's reports: one per region server in cluster mode, else the one client host's."""
    found = sorted(client_dir.glob(f"{phase}-*.json"))
    per_server = [p for p in found if SERVER_SEPARATOR in p.stem[len(phase) + 1 :]]
    return per_server or found[:1]


def load_phase_report(paths: list[Path]) -> AdminMetrics:
    """One report (standalone), or the sum of every region server's (cluster mode)."""
    reports = [load_admin_metrics(p) for p in paths]
    if len(reports) == 1:
        return reports[0]
    first = paths[0]
    host_part = first.stem.split(SERVER_SEPARATOR, 1)[0]
    return AdminMetrics(
        path=first.with_name(f"{host_part}{SERVER_SEPARATOR}*.json"),
        gc_requested=all(r.gc_requested for r in reports),
        heap_used=sum(r.heap_used for r in reports),
        heap_max=sum(r.heap_max for r in reports),
        direct_used=sum(r.direct_used for r in reports),
        memstore_data=sum(r.memstore_data for r in reports),
        cells=None if any(r.cells is None for r in reports) else sum(r.cells or 0 for r in reports),
        onheap_chunks=sum(r.onheap_chunks for r in reports),
        offheap_chunks=sum(r.offheap_chunks for r in reports),
        chunk_bytes=next((r.chunk_bytes for r in reports if r.chunk_bytes is not None), None),
        index=reports[0].index,
        raw=reduce(merge_raw, (r.raw for r in reports)),
    )


def merge_raw(a: Any, b: Any, key: str = "") -> Any:
    """Two reports' JSON summed: numbers added, objects merged key by key, lists of named objects (the
    block caches) merged by name; anything else (strings, booleans, other lists) is the first one's."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: merge_raw(a[k], b[k], k) if k in a and k in b else a.get(k, b.get(k)) for k in {**a, **b}}
    if _named(a) and _named(b):
        by_name = {item["name"]: item for item in b}
        merged = [
            merge_raw(item, by_name.pop(item["name"]), key) if item["name"] in by_name else item for item in a
        ]
        return merged + list(by_name.values())
    if _number(a) and _number(b) and key not in KEEP_FIRST:
        return a + b
    return a


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _named(x: Any) -> bool:
    return isinstance(x, list) and all(isinstance(i, dict) and isinstance(i.get("name"), str) for i in x)
