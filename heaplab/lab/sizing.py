"""The `local` scale sized from the machine it runs on.

Every lab's `local` numbers were chosen for the reference machine, 2 cores (REFERENCE_CORES), and its
`paper` numbers are the article's, for 8-core nodes (PAPER_CORES).  On a bigger machine the `local` run
moves towards the article: each numeric parameter that both scales give is interpolated geometrically,

    value = local x (paper / local) ** t,   t = clamp(log(cores / 2) / log(8 / 2), 0, 1)

so 2 cores keep `local` exactly, 4 cores go half-way (in log terms), 8 or more reach `paper`.  Sizes
("2g", "360m") are interpolated in bytes and written back in MB; whole numbers stay whole.  Then memory:
if the server heap and the client heap (`heap`, `client_heap`) would take more than MEMORY_SHARE of the
machine's memory, every size parameter is scaled down by the same factor so they fit.  Lab 01's no-GC arm
has a heap of its own, `epsilon_heap` (it must hold everything its server allocates): it is left out of that
factor, so it never shrinks the other arms' heaps, and is only capped to fit beside the client heap; a cap
the arm's work outgrows makes its server run out of heap, which the run names (heaplab.run.heap_exhausted).
The result, with the machine and t, goes into run.json (`sizing`) so a run says how it was sized.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REFERENCE_CORES = 2
PAPER_CORES = 8
MEMORY_SHARE = 0.6
OWN_HEAP = "epsilon_heap"  # lab 01's Epsilon arm's heap (its variant's `heap:`), sized on its own
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([kmgKMG])$")
_UNIT = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


@dataclass(frozen=True)
class Machine:
    cores: int
    memory_bytes: int


def usable_cores() -> int:
    """The cores this process may use (its CPU affinity, else the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def this_machine() -> Machine:
    """The cores this process may use and the machine's memory (from /proc/meminfo, else sysconf)."""
    cores = usable_cores()
    memory = 0
    try:
        for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
                break
    except OSError:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return Machine(cores, memory)


def size_bytes(value: Any) -> int | None:
    """'2g' -> 2147483648; None for anything that is not a JVM-style size."""
    m = _SIZE.match(str(value)) if isinstance(value, str) else None
    return int(float(m.group(1)) * _UNIT[m.group(2).lower()]) if m else None


def _mb(n: float) -> str:
    return f"{max(1, round(n / (1 << 20)))}m"


def progress(cores: int) -> float:
    """t: 0 at the reference machine's cores, 1 at the article's, geometric between."""
    t = math.log(max(cores, 1) / REFERENCE_CORES) / math.log(PAPER_CORES / REFERENCE_CORES)
    return min(max(t, 0.0), 1.0)


def _between(local: Any, paper: Any, t: float) -> Any:
    lb, pb = size_bytes(local), size_bytes(paper)
    if lb is not None and pb is not None:
        return local if t == 0 else _mb(lb * (pb / lb) ** t)
    numbers = (int, float)
    if isinstance(local, bool) or not isinstance(local, numbers) or not isinstance(paper, numbers):
        return local
    if local <= 0 or paper <= 0:
        return local
    value = local * (paper / local) ** t
    return round(value) if isinstance(local, int) and isinstance(paper, int) else value


def size_local(local: dict[str, Any], paper: dict[str, Any], machine: Machine) -> tuple[dict[str, Any], dict]:
    """The `local` parameters for ``machine``, and the record of how (run.json's ``sizing``)."""
    t = progress(machine.cores)
    sized = {k: _between(v, paper[k], t) if k in paper else v for k, v in local.items()}
    heaps = sum(size_bytes(sized.get(k)) or 0 for k in ("heap", "client_heap"))
    own_heap = sized.get(OWN_HEAP)
    budget = machine.memory_bytes * MEMORY_SHARE
    shrink = budget / heaps if heaps and machine.memory_bytes and heaps > budget else 1.0
    if shrink < 1.0:
        sized = {k: _mb(b * shrink) if (b := size_bytes(v)) is not None else v for k, v in sized.items()}
        if own_heap is not None:
            sized[OWN_HEAP] = own_heap
    own = size_bytes(sized.get(OWN_HEAP))
    client = size_bytes(sized.get("client_heap")) or 0
    if own is not None and machine.memory_bytes and own + client > budget:
        sized[OWN_HEAP] = _mb(max(budget - client, 1 << 20))
    record = {
        "cores": machine.cores,
        "memory_mb": machine.memory_bytes >> 20,
        "reference_cores": REFERENCE_CORES,
        "paper_cores": PAPER_CORES,
        "t": round(t, 3),
        "memory_shrink": round(shrink, 3),
        "changed": {k: [local[k], sized[k]] for k in local if sized[k] != local[k]},
    }
    return sized, record
