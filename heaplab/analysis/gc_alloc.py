"""Heap bytes a server allocated over a time window, read from its unified GC log (any server: the
engine or Apache HBase).

The standard allocation-rate method: between two collections the application allocates into the young
generation and nothing empties it, so what it allocated between collection n-1 and collection n is the
young generation's occupancy when n starts minus its occupancy when n-1 ended.  heaplab.runfiles.gc_log gives
both for every collection that logs them: G1's eden + survivor regions, CMS's ``ParNew``, Serial's ``DefNew``,
Parallel's ``PSYoungGen`` (young, mixed and full collections alike). The first interval starts with the JVM,
its young generation empty. G1 allocates an object of half a region or more ("humongous") straight into
regions of its own, outside eden: their growth between two collections (humongous regions before n minus after
n-1, never below 0) is added.

The window [start, end] (the measured phase) rarely begins or ends at a collection.  An interval wholly
inside it counts whole (``measured_bytes``).  Of an interval that straddles an edge, only the part
allocated inside the window counts, and the log does not say which part that is.  Two assumptions
bracket it: allocation spread uniformly over the interval (``low``: too little when the interval holds
idle time outside the window, the gap between two phases when the server allocates little), and the
window's own rate (its measured bytes over their time) for the time inside, up to all the interval
allocated (``high``: too much when the phase starts or ends slower than its mean, a client still
warming up).  The estimate takes the middle of the two (``edge_bytes``; the window's ``low_bytes`` and
``high_bytes`` keep both).  Time after the log's last collection, or next to a collection that logged no
occupancy, is filled at the window's rate, in both.  The error is at most the two edge intervals'
allocation, each about one young generation, so a window is measured only when it holds one whole
interval at least and ``edge_bytes`` is at most MAX_EDGE_SHARE of the total.  On the committed runs of
every lab, the engine's phases measured so (82 of the 252 that have the engine's thread counters) read
-1.7% to +7.8% from those counters (median 2.1%; lab 03's +0.2% to +7.8%, heaplab/tests/test_gc_alloc.py);
either assumption alone, or edges of up to 20%, let some phases miss by 12-29%.

What the method misses or blurs:
- objects allocated straight into the old generation outside G1's humongous regions: CMS and Serial place
  an object too large for eden (or the survivor space when eden fails) in the old generation, Parallel an
  object above half of eden; none of them logs it, so they are missing;
- G1's humongous objects are counted by whole regions: an object of just over half a region counts as a
  region (up to 2x its size; HBase's 2 MB MSLAB chunk counts 3 MB on 1 MB regions), and one that was
  allocated and freed by a concurrent cleanup between two collections is not counted;
- G1's eden is counted in regions, including the partly filled regions the threads allocate into
  (under a region per allocating thread per collection);
- a collection whose young occupancy is not in the log (ZGC, Shenandoah, Epsilon: no generations in these
  lines) leaves the intervals on both sides unknown; with no collection that logs it, nothing is known.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from heaplab.analysis.gc_stats import server_log
from heaplab.runfiles.gc_records import GcLog, Pause
from heaplab.runfiles.rundir import Run

MAX_EDGE_SHARE = 0.15  # at most this share of a window's bytes may come from edge or filled-in time
COLLECTING = ("young", "mixed", "full")  # the pauses that empty the young generation


@dataclass(frozen=True)
class Interval:
    """The application running between two collections: [start_ms, end_ms], what it allocated in it
    (None: unknown), end_ms None after the last collection."""

    start_ms: float
    end_ms: float | None
    allocated_bytes: float | None


@dataclass(frozen=True)
class WindowAllocation:
    """Bytes allocated in a window; ``bytes`` = ``measured_bytes`` + ``edge_bytes``, between ``low_bytes``
    and ``high_bytes`` (the two assumptions on the edge intervals)."""

    bytes: float
    measured_bytes: float  # intervals wholly inside the window
    edge_bytes: float  # the edge intervals' shares and the time filled in at the window's rate
    collections: int  # collections that started inside the window
    low_bytes: float
    high_bytes: float


def intervals(log: GcLog) -> list[Interval]:
    """The log's allocation intervals, from the JVM's start to after its last collection."""
    pauses = sorted((p for p in log.pauses if p.kind in COLLECTING), key=lambda p: p.start_epoch_ms)
    if not pauses:
        return []
    first = pauses[0]
    out = [
        Interval(first.end_epoch_ms - first.uptime_s * 1000.0, first.start_epoch_ms, _allocated(None, first))
    ]
    for prev, p in pairwise(pauses):
        out.append(Interval(prev.end_epoch_ms, p.start_epoch_ms, _allocated(prev, p)))
    out.append(Interval(pauses[-1].end_epoch_ms, None, None))
    return out


def _allocated(prev: Pause | None, p: Pause) -> float | None:
    """Young occupancy at ``p``'s start minus at ``prev``'s end (0 at the JVM's start), plus G1's humongous
    growth; None when either side did not log it or the young generation shrank in between (not possible
    without a collection: the chain is not what the log seems to say)."""
    after = 0 if prev is None else prev.young_after_bytes
    if p.young_before_bytes is None or after is None:
        return None
    young = p.young_before_bytes - after
    if young < 0:
        return None
    h_after = 0 if prev is None else prev.humongous_after_bytes
    humongous = (
        p.humongous_before_bytes - h_after
        if p.humongous_before_bytes is not None and h_after is not None
        else 0
    )
    return float(young + max(humongous, 0))


def window_allocation(log: GcLog, start_ms: float, end_ms: float) -> WindowAllocation | str:
    """The bytes allocated in [start_ms, end_ms], or why the log cannot say (one line)."""
    if end_ms <= start_ms:
        return "the window is empty"
    spans = intervals(log)
    if not spans or all(s.allocated_bytes is None for s in spans):
        return "its GC log gives no young-generation occupancy (a collector without generations?)"
    measured = measured_ms = unknown_ms = 0.0
    edges: list[tuple[float, float, float]] = []  # (bytes, ms inside the window, ms) of each edge interval
    for s in spans:
        end = s.end_ms if s.end_ms is not None else end_ms
        inside = min(end, end_ms) - max(s.start_ms, start_ms)
        if inside <= 0:
            continue
        if s.allocated_bytes is None:
            unknown_ms += inside
        elif s.start_ms >= start_ms and end <= end_ms:
            measured += s.allocated_bytes
            measured_ms += end - s.start_ms
        else:
            edges.append((s.allocated_bytes, inside, end - s.start_ms))
    collections = sum(
        1 for p in log.pauses if p.kind in COLLECTING and start_ms <= p.start_epoch_ms <= end_ms
    )
    if measured_ms <= 0:
        return f"{collections} collection(s) in the window: no whole interval between two of them to measure"
    rate = measured / measured_ms
    # each edge interval's share: spread uniformly over it, or at the window's rate up to all of it
    shares = [(b * inside / ms, min(b, rate * inside)) for b, inside, ms in edges]
    filled = rate * unknown_ms
    low = sum(min(pair) for pair in shares) + filled
    high = sum(max(pair) for pair in shares) + filled
    edge = (low + high) / 2
    total = measured + edge
    if edge > MAX_EDGE_SHARE * total:
        return (
            f"{collections} collection(s) in the window: {edge / total:.0%} of its bytes would be "
            f"estimated at its edges (at most {MAX_EDGE_SHARE:.0%})"
        )
    return WindowAllocation(total, measured, edge, collections, measured + low, measured + high)


def variant_bytes_per_op(run: Run, variant: str, start_ms: float, end_ms: float, ops: int) -> float | str:
    """Heap bytes every region server of ``variant`` allocated in the window, per operation; or why not."""
    if ops <= 0:
        return "no operation completed"
    hosts = run.server_hosts(variant)
    if not hosts:
        return "no region server in the run"
    total = 0.0
    for host in hosts:
        log = server_log(run.variant_dir(variant) / "server" / host)
        if log is None:
            return f"{host} left no GC log"
        found = window_allocation(log, start_ms, end_ms)
        if isinstance(found, str):
            return f"{host}: {found}"
        total += found.bytes
    return total / ops
