"""Memory metrics from ``bin/engine admin metrics --report=PREFIX`` (PREFIX.json; docs/contracts.md s. 7).

A lab measures memory with two ``admin metrics --gc`` phases around the phase that inserts its data: the
baseline (after the table exists, before any row) and the measured one (after the insert).  Both ask the
server to collect garbage first, so ``heap.used_bytes`` is close to the live heap.  From the pair:

  resident_after_insert  MB  heap retained + off-heap retained: what the inserted data costs the server (the
                             name of the Hypertable article's metric: the range server's resident
                             memory after the insert)
  heap_retained          MB  heap used after - heap used at the baseline
  direct_retained        MB  off-heap retained: direct memory used after - at the baseline (e.g. the JDK's
                             per-thread buffers for socket reads), plus the off-heap memstore chunks taken
                             since the baseline x the chunk size (the engine reserves its off-heap chunk
                             pool at start-up, so direct memory used does not grow as those chunks fill)
  heap_used, direct_used MB  after the insert
  memstore_data          MB  the memstore's cell data (keys and values as serialized)
  cells                      cells in the memstores
  bytes_per_cell         B   (heap + off-heap retained) / cells
  heap_bytes_per_cell    B   heap retained / cells
  heap_overhead_per_cell B   (heap retained - the cell data kept on the heap) / cells: the per-cell objects
                             (cell objects, skip-list nodes, byte[] headers, index entries) and slack

The cell data kept on the heap: all of it when the memstore has no chunks (plain cells), else the share of
on-heap chunks among the memstore's chunks (MSLAB on heap: all; off heap: none, unless the pool ran out).

A lab may go on after the measured phase: ``admin flush TABLE`` (every memstore written out and emptied),
then ``admin metrics --gc`` again with the same ``baseline``.  That report gives the memory the server still
holds once the data is gone from its memstores (heaplab.analysis.metrics finds it: the first ``admin metrics
--gc`` phase after a flush that follows the measured phase):

  resident_after_flush   MB  heap retained + off-heap retained after the flush and a GC, relative to the
                             baseline as above: what the insert left behind in the server's live memory
                             (pooled MSLAB chunks kept for the next memstore, buffers, store-file readers).
                             The Hypertable article's final values (lab 08 judges its claims on this).
  heap_committed_after_flush  MB  heap committed by the JVM after the flush (heap.committed_bytes; with
                             -Xms = -Xmx it is the whole heap whatever the memstore did)
  rss_after_flush        MB  the server process's resident set after the flush (process.rss_bytes; absent
                             where the engine cannot read it): what the OS sees, the JVM's base, every heap
                             page the GC has touched and the direct memory reserved at start-up included
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MB = 1024 * 1024
CHUNK_SIZE_KEY = "hbase.hregion.memstore.mslab.chunksize"
DEFAULT_CHUNK_BYTES = 2 * MB  # its default


class MetricsFileError(ValueError):
    """An admin metrics file that cannot be read; the message names the file and the problem."""


@dataclass(frozen=True)
class AdminMetrics:
    """One ``admin metrics`` snapshot (the fields heaplab uses; ``raw`` keeps the whole object)."""

    path: Path
    gc_requested: bool
    heap_used: int
    heap_max: int
    direct_used: int
    memstore_data: int
    cells: int | None  # None: the server does not count memstore cells (Apache HBase)
    onheap_chunks: int
    offheap_chunks: int
    chunk_bytes: int | None  # memstore.chunks.chunk_size_bytes when the engine reports it
    index: str
    raw: dict[str, Any]

    @property
    def onheap_data_share(self) -> float:
        """Share of the memstore's cell data kept on the heap (see the module docstring)."""
        chunks = self.onheap_chunks + self.offheap_chunks
        return 1.0 if chunks == 0 else self.onheap_chunks / chunks


def number_at(node: Any, path: str, where: Path, prefix: str = "") -> float:
    """The number at dotted ``path`` in a report; a one-line MetricsFileError naming ``prefix + path``
    when it is missing or not a number (shared by the memory, read and mechanism metrics)."""
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            raise MetricsFileError(f"{where}: missing {prefix}{path}")
        node = node[key]
    if not isinstance(node, (int, float)) or isinstance(node, bool):
        raise MetricsFileError(f"{where}: {prefix}{path} is not a number: {node!r}")
    return float(node)


def _int(raw: dict[str, Any], path: str, where: Path) -> int:
    return int(number_at(raw, path, where))


def load_admin_metrics(path: Path) -> AdminMetrics:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise MetricsFileError(f"{path}: cannot read: {e}") from e
    if not isinstance(raw, dict) or raw.get("format") != 1 or raw.get("command") != "metrics":
        raise MetricsFileError(f"{path}: not an `admin metrics` report of format 1")
    chunks = (raw.get("memstore") or {}).get("chunks") or {}
    return AdminMetrics(
        path=path,
        gc_requested=bool(raw.get("gc_requested")),
        heap_used=_int(raw, "heap.used_bytes", path),
        heap_max=_int(raw, "heap.max_bytes", path),
        direct_used=_int(raw, "direct.used_bytes", path),
        memstore_data=_int(raw, "memstore.data_bytes", path),
        cells=_int(raw, "memstore.cells", path) if "cells" in (raw.get("memstore") or {}) else None,
        onheap_chunks=int(chunks.get("onheap_in_use", 0)),
        offheap_chunks=int(chunks.get("offheap_in_use", 0)),
        chunk_bytes=int(chunks["chunk_size_bytes"]) if "chunk_size_bytes" in chunks else None,
        index=str((raw.get("memstore") or {}).get("index", "")),
        raw=raw,
    )


def memory_values(
    after: AdminMetrics, baseline: AdminMetrics | None, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> dict[str, float]:
    """The memory metrics of the module docstring; the retained ones need a baseline.

    ``chunk_bytes``: the memstore's chunk size (hbase.hregion.memstore.mslab.chunksize), used when the
    report does not carry it.
    """
    values: dict[str, float] = {
        "heap_used": after.heap_used / MB,
        "direct_used": after.direct_used / MB,
        "memstore_data": after.memstore_data / MB,
    }
    if after.cells is not None:
        values["cells"] = float(after.cells)
    if baseline is None:
        return values
    heap, direct = _retained(after, baseline, chunk_bytes)
    values.update(
        heap_retained=heap / MB,
        direct_retained=direct / MB,
        resident_after_insert=(heap + direct) / MB,
    )
    cells = after.cells - baseline.cells if after.cells is not None and baseline.cells is not None else 0
    if cells > 0:
        data_on_heap = (after.memstore_data - baseline.memstore_data) * after.onheap_data_share
        values.update(
            bytes_per_cell=(heap + direct) / cells,
            heap_bytes_per_cell=heap / cells,
            heap_overhead_per_cell=(heap - data_on_heap) / cells,
        )
    return values


def _retained(after: AdminMetrics, baseline: AdminMetrics, chunk_bytes: int) -> tuple[int, int]:
    """Heap and off-heap bytes retained since the baseline (the module docstring)."""
    heap = after.heap_used - baseline.heap_used
    chunks_taken = (after.offheap_chunks - baseline.offheap_chunks) * (after.chunk_bytes or chunk_bytes)
    return heap, after.direct_used - baseline.direct_used + chunks_taken


def flushed_values(
    flushed: AdminMetrics, baseline: AdminMetrics | None, chunk_bytes: int = DEFAULT_CHUNK_BYTES
) -> dict[str, float]:
    """The ``*_after_flush`` metrics of the module docstring from the report taken after the flush;
    resident_after_flush needs the baseline, the other two only fields the report carries."""
    values: dict[str, float] = {}
    where = flushed.path
    if "committed_bytes" in (flushed.raw.get("heap") or {}):
        values["heap_committed_after_flush"] = number_at(flushed.raw, "heap.committed_bytes", where) / MB
    if "rss_bytes" in (flushed.raw.get("process") or {}):
        values["rss_after_flush"] = number_at(flushed.raw, "process.rss_bytes", where) / MB
    if baseline is not None:
        heap, direct = _retained(flushed, baseline, chunk_bytes)
        values["resident_after_flush"] = (heap + direct) / MB
    return values


def metrics_path(client_dir: Path, phase: str) -> Path | None:
    """The phase's report: ``<phase>-<host>.json`` of the one client host that ran it."""
    found = sorted(client_dir.glob(f"{phase}-*.json"))
    return found[0] if found else None
