#!/usr/bin/env python3
"""Print a compact summary of one `make bench` run (also written to DIR/summary.txt).

Usage: python3 engine/bench/summarize.py results/runs/bench-TIMESTAMP

Reads DIR/jmh*.json (JMH's JSON results, one file per JMH run) and DIR/wal-counters.jsonl (one line
per WAL trial, written by WalAppendBenchmark's trial teardown) and prints one table per benchmark
class: the score with its error, allocation per op from the GC profiler, and for the WAL the
group-commit size (appends per filesystem flush and per force). Standard library only.
"""

import json
import math
import sys
from collections import defaultdict
from pathlib import Path

WAL = "org.heaplab.bench.WalAppendBenchmark"
MEMSTORE = "org.heaplab.bench.MemstoreInsertBenchmark"
DURABILITY_ORDER = ["SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"]


def fmt(x, digits=0):
    if isinstance(x, str):  # JMH writes "NaN" for the error of a single iteration
        x = float(x)
    if x is None or math.isnan(x):
        return "-"
    if digits == 0:
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def metric(entry, name):
    m = entry.get("secondaryMetrics", {}).get(name)
    return None if m is None else m.get("score")


def score(entry):
    p = entry["primaryMetric"]
    pct = p.get("scorePercentiles", {})
    if entry["mode"] == "sample" and pct:
        p50, p99, p999 = (fmt(pct.get(k), 3) for k in ("50.0", "99.0", "99.9"))
        return f"p50 {p50} p99 {p99} p99.9 {p999} {p['scoreUnit']}"
    err = p.get("scoreError")
    return f"{fmt(p['score'])} ± {fmt(err)} {p['scoreUnit']}"


def wal_key(benchmark, threads, params):
    return (
        benchmark,
        int(threads),
        params.get("durability"),
        params.get("mvcc"),
        str(params.get("batch")),
        str(params.get("syncers")),
        str(params.get("valueSize")),
    )


def wal_order(e):
    p = e["params"]
    durability = DURABILITY_ORDER.index(p["durability"]) if p["durability"] in DURABILITY_ORDER else 9
    return (e["threads"], durability, int(p["batch"]), p["mvcc"])


def cells_per_second(e):
    p = e["primaryMetric"]
    if p["scoreUnit"] != "ops/s":
        return "-"
    return fmt(p["score"] * int(e["params"]["batch"]))


def load_counters(path):
    sums = defaultdict(lambda: defaultdict(float))
    if not path.exists():
        return sums
    for line in path.read_text().splitlines():
        if line.strip():
            c = json.loads(line)
            s = sums[wal_key(c["benchmark"], c["threads"], c["params"])]
            for k in ("appends", "syncs", "forces", "wal_bytes", "seconds"):
                s[k] += c[k]
    return sums


def table(header, rows):
    """Left-aligned parameter columns (the first four), right-aligned figures."""
    all_rows = [header, *rows]
    widths = [max(len(str(r[i])) for r in all_rows) for i in range(len(header))]
    lines = []
    for r in all_rows:
        cells = zip(r, widths, strict=True)
        lines.append(
            "  ".join(str(c).ljust(w) if i < 4 else str(c).rjust(w) for i, (c, w) in enumerate(cells))
        )
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def load_results(d):
    """Every JMH result file of the run (the default suite writes one per pass); empty ones are skipped."""
    results = []
    for f in sorted(d.glob("jmh*.json")):
        text = f.read_text().strip()
        if not text:
            print(f"note: {f.name} is empty (its JMH pass failed; see jmh.log)", file=sys.stderr)
            continue
        results.extend(json.loads(text))
    return results


def summarize(d):
    results = load_results(d)
    if not results:
        print("no benchmark results to summarize")
        return
    counters = load_counters(d / "wal-counters.jsonl")
    out = []
    mem = [e for e in results if e["benchmark"].startswith(MEMSTORE)]
    if mem:
        rows = []
        for e in mem:
            p = e["params"]
            rows.append(
                [
                    p.get("variant"),
                    p.get("request"),
                    p.get("valueSize"),
                    p.get("cellsPerMemstore"),
                    score(e),
                    fmt(metric(e, "gc.alloc.rate.norm")),
                    fmt(metric(e, "gc.count")),
                ]
            )
        out.append(
            "Memstore insert (one op = one cell)\n"
            + table(
                ["variant", "request", "valueSize", "cells/memstore", "inserts", "alloc B/op", "GCs"], rows
            )
        )
    wal = [e for e in results if e["benchmark"].startswith(WAL)]
    if wal:
        rows = []
        for e in sorted(wal, key=wal_order):
            p = e["params"]
            c = counters.get(wal_key(e["benchmark"], e["threads"], p))
            per_sync = c["appends"] / c["syncs"] if c and c["syncs"] else None
            # the close barrier forces once in every trial: only FSYNC_WAL's forces are the group size
            fsync = p["durability"] == "FSYNC_WAL"
            per_force = c["appends"] / c["forces"] if c and c["forces"] and fsync else None
            rows.append(
                [
                    e["threads"],
                    p["durability"],
                    p["mvcc"],
                    p["batch"],
                    score(e),
                    cells_per_second(e),
                    fmt(metric(e, "gc.alloc.rate.norm")),
                    fmt(per_sync, 1),
                    fmt(per_force, 1),
                ]
            )
        title = "WAL append + sync (one op = one batch begun, made durable, completed; one region)"
        out.append(
            title
            + "\n"
            + table(
                [
                    "threads",
                    "durability",
                    "mvcc",
                    "batch",
                    "appends",
                    "cells/s",
                    "alloc B/op",
                    "appends/sync",
                    "appends/force",
                ],
                rows,
            )
        )
    other = [e for e in results if not e["benchmark"].startswith((WAL, MEMSTORE))]
    for e in other:
        out.append(f"{e['benchmark']} {e.get('params', {})}: {score(e)}")
    text = "\n\n".join(out) + "\n"
    print(text, end="")
    (d / "summary.txt").write_text(text)


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    d = Path(argv[1])
    if not list(d.glob("jmh*.json")):
        print(f"ERROR: no JMH results (jmh*.json) in {d} (did the run fail?)", file=sys.stderr)
        return 1
    summarize(d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
