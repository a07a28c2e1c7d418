"""Read-path metrics from two ``admin metrics`` reports (docs/contracts.md sections 6 and 7).

A read lab brackets its measured read with two ``admin metrics`` phases (without --gc: a forced collection
would add its pause to the window): the baseline just before the read and the measured one just after.
The server's counters only grow, so the differences belong to the read (and to anything running beside it,
e.g. the background writer of mixed_read_write).  From the pair:

  data_block_hit_ratio   ratio  data-block hits / (hits + misses), summed over the caches (the on-heap LRU,
                                or the L1 and L2 of a combined cache): the off-heap article's "data block hit
                                ratio"
  disk_reads_per_get     reads  data blocks read from the store files (cache misses that went to disk, or
                                to the OS page cache) per get: the Hypertable article's random reads per query
  cpu_us_per_get         us     the server process's CPU time per get (user + system, all threads)
  query_cache_hit_ratio  ratio  row query cache hits / (hits + misses) (the Hypertable article's Query Cache)
  gets                   gets   rows the server was asked for
  store_file_mb          MB     the store files' bytes on disk after the read (not a difference; an engine
                                build older than the field has none): what an encoding or compression saves

A metric whose group is missing from the reports (an engine without that mechanism) is left out, so a claim
on it is inconclusive; a group that is present but lacks a field, or carries a non-number, is a one-line
error naming the file and the field.  A ratio with no lookups at all is left out as well.

Counters that did not move while the client read (``frozen``) are no measurement: Apache HBase's JMX beans
answer with the values of the previous read until a Hadoop metrics period has passed (10 s unless
configured; MetricsSourceAdapter), so a report taken less than that after the one before repeats it.
The metrics that rest on the server's request counters are then left out, with that reason, instead of
a zero count of gets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from heaplab.analysis.memory import AdminMetrics, MetricsFileError, number_at
from heaplab.runfiles.client_summary import ClientSummary

# the metrics that rest on the server's request counters (gets, block-cache and query-cache lookups)
COUNTER_METRICS = (
    "gets",
    "data_block_hit_ratio",
    "disk_reads_per_get",
    "cpu_us_per_get",
    "query_cache_hit_ratio",
)
FROZEN = "the server's counters did not move"  # how frozen()'s reason begins (the report looks for it)
# PE's commands that make one Get per row (scan and the writes do not)
_PE_GETS = ("randomRead", "sequentialRead")
_PE_TOOLS = ("pe", "hbase-pe")  # the engine's pe and HBase's own PE (summary field "tool")


def _data_counts(raw: dict[str, Any], where: Path) -> dict[str, tuple[float, float]] | None:
    """{cache name: (data hits, data misses)}, or None when the report has no block_cache group."""
    group = raw.get("block_cache")
    if group is None:
        return None
    caches = group.get("caches") if isinstance(group, dict) else None
    if not isinstance(caches, list):
        raise MetricsFileError(f"{where}: block_cache.caches is not a list")
    out = {}
    for i, cache in enumerate(caches):
        name = cache.get("name") if isinstance(cache, dict) else None
        if not isinstance(name, str):
            raise MetricsFileError(f"{where}: block_cache.caches[{i}].name is missing")
        at = f"block_cache.caches[{i}]."
        hits = number_at(cache, "by_type.data.hits", where, at)
        misses = number_at(cache, "by_type.data.misses", where, at)
        out[name] = (hits, misses)
    return out


def _group(raw: dict[str, Any], group: str, fields: tuple[str, ...], where: Path) -> dict[str, float] | None:
    if group not in raw:
        return None
    return {f: number_at(raw, f"{group}.{f}", where) for f in fields}


def _ratio(hits: float, misses: float) -> float | None:
    return hits / (hits + misses) if hits + misses > 0 else None


def read_values(after: AdminMetrics, baseline: AdminMetrics) -> dict[str, float]:
    """The metrics of the module docstring, from the counters' growth between the two reports."""
    values: dict[str, float] = {}
    a_reads = _group(after.raw, "reads", ("gets",), after.path)
    b_reads = _group(baseline.raw, "reads", ("gets",), baseline.path)
    gets = a_reads["gets"] - b_reads["gets"] if a_reads is not None and b_reads is not None else None
    if gets is not None:
        values["gets"] = gets

    a_cache, b_cache = _data_counts(after.raw, after.path), _data_counts(baseline.raw, baseline.path)
    if a_cache is not None and b_cache is not None:
        hits = sum(h - b_cache.get(name, (0.0, 0.0))[0] for name, (h, _) in a_cache.items())
        misses = sum(m - b_cache.get(name, (0.0, 0.0))[1] for name, (_, m) in a_cache.items())
        ratio = _ratio(hits, misses)
        if ratio is not None:
            values["data_block_hit_ratio"] = ratio

    per_get = gets if gets else None  # no gets: nothing per get
    a_files = _group(after.raw, "store_files", ("data_blocks_read",), after.path)
    b_files = _group(baseline.raw, "store_files", ("data_blocks_read",), baseline.path)
    if per_get and a_files is not None and b_files is not None:
        values["disk_reads_per_get"] = (a_files["data_blocks_read"] - b_files["data_blocks_read"]) / per_get

    if "size_bytes" in after.raw.get("store_files", {}):
        values["store_file_mb"] = number_at(after.raw, "store_files.size_bytes", after.path) / 1e6

    a_cpu = _group(after.raw, "process", ("cpu_ms",), after.path)
    b_cpu = _group(baseline.raw, "process", ("cpu_ms",), baseline.path)
    if per_get and a_cpu is not None and b_cpu is not None:
        values["cpu_us_per_get"] = (a_cpu["cpu_ms"] - b_cpu["cpu_ms"]) * 1000.0 / per_get

    a_qc = _group(after.raw, "query_cache", ("hits", "misses"), after.path)
    b_qc = _group(baseline.raw, "query_cache", ("hits", "misses"), baseline.path)
    if a_qc is not None and b_qc is not None:
        ratio = _ratio(a_qc["hits"] - b_qc["hits"], a_qc["misses"] - b_qc["misses"])
        if ratio is not None:
            values["query_cache_hit_ratio"] = ratio
    return values


def reads_asked(summaries: list[ClientSummary]) -> int:
    """How many reads the clients of a measured phase made: the rows of PE's get commands and YCSB's READ
    operations (0 for writes, scans and tools that count neither)."""
    total = 0
    for s in summaries:
        if s.tool in _PE_TOOLS and s.command in _PE_GETS:
            total += s.rows
        elif "READ" in s.ops:
            total += s.ops["READ"].operations
    return total


def frozen(after: AdminMetrics, baseline: AdminMetrics, reads: int) -> str | None:
    """Why the pair's request counters are no measurement (None: they are): the clients made ``reads``
    reads between the two reports and the server counted not one get."""
    a_reads = _group(after.raw, "reads", ("gets",), after.path)
    b_reads = _group(baseline.raw, "reads", ("gets",), baseline.path)
    if reads <= 0 or a_reads is None or b_reads is None or a_reads["gets"] != b_reads["gets"]:
        return None
    return (
        f"{FROZEN} over {reads:,} reads ({after.path.name} repeats the gets of "
        f"{baseline.path.name}: Apache HBase's JMX cache or a server that counted nothing; no measurement)"
    )
