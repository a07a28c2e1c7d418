"""Heap bytes allocated and copied per operation on the server, from pe/ycsb --report summaries.

Usage: python3 alloc_table.py LABEL=PREFIX.json [LABEL=PREFIX.json ...]

Each summary's server_metrics (every region server's METRICS report right before the first and right
after the last measured call) gives the window's deltas, summed over the servers: alloc.by_group
(handler, reader, wal, flush, other threads), copies (request/response payload copied into heap
memory), memstore.heap_allocated_bytes (what the memstore keeps: part of the threads' bytes above) and
gc.young_count. They are divided by the summary's rows and, for batches, by its calls.
Prints one markdown table. Standard library only.
"""

import json
import sys
from pathlib import Path

GROUPS = ("handler", "reader", "wal", "flush", "other")
COPIES = ("request_heap_bytes", "request_heap_copies", "response_heap_bytes", "response_heap_copies")


def delta(before, after, path):
    """after - before of the number at path (a tuple of keys); None when a report lacks it (older engine)."""
    a, b = after, before
    for key in path:
        if key not in a or key not in b:
            return None
        a, b = a[key], b[key]
    return a - b


def per_row(value, rows):
    return "n/a" if value is None else f"{value / rows:,.0f}"


def window(summary):
    """Deltas over the window summed over every server; exits with one line on an error entry."""
    total = {}
    for entry in summary.get("server_metrics", []):
        if "error" in entry:
            sys.exit(f"alloc_table: server {entry['server']!r}: {entry['error']}")
        before, after = entry["before"], entry["after"]
        sums = {g: delta(before, after, ("alloc", "by_group", g)) for g in GROUPS}
        sums["total"] = delta(before, after, ("alloc", "total_bytes"))
        for key in COPIES:
            sums[key] = delta(before, after, ("copies", key))
        sums["young_gcs"] = delta(before, after, ("gc", "young_count"))
        sums["memstore"] = delta(before, after, ("memstore", "heap_allocated_bytes"))
        for key, value in sums.items():
            total[key] = None if value is None or total.get(key, 0) is None else total.get(key, 0) + value
    if not total:
        sys.exit("alloc_table: no server_metrics in the summary (was --report given?)")
    return total


def row(label, summary):
    d = window(summary)
    rows = summary["rows"]
    calls = summary["operations"]
    per = rows if rows else 1
    cells = [label, f"{rows}", f"{calls}"]
    cells += [f"{d[g] / per:,.0f}" for g in ("handler", "reader", "wal")]
    cells.append(f"{(d['flush'] + d['other']) / per:,.0f}")
    cells.append(per_row(d["memstore"], per))
    cells.append(f"{d['total'] / per:,.0f}")
    cells.append(f"{d['total'] / calls:,.0f}" if calls and calls != rows else "")
    cells.append(f"{d['request_heap_bytes'] / per:,.0f} ({d['request_heap_copies'] / per:.2f})")
    cells.append(f"{d['response_heap_bytes'] / per:,.0f} ({d['response_heap_copies'] / per:.2f})")
    cells.append(f"{d['young_gcs']}")
    return "| " + " | ".join(cells) + " |"


def main(argv):
    if not argv:
        sys.exit(__doc__.strip().splitlines()[2])
    print(
        "| run | rows | calls | handler B/row | reader B/row | wal B/row | flush+other B/row"
        " | of which memstore B/row | server B/row | server B/call"
        " | request copied B/row (copies) | response copied B/row (copies) | young GCs |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for arg in argv:
        label, _, path = arg.partition("=")
        print(row(label, json.loads(Path(path).read_text(encoding="utf-8"))))


if __name__ == "__main__":
    main(sys.argv[1:])
