"""Fabricate run directories shaped like a real `heaplab run` (docs/contracts.md sections 3-6).

Used by the tests (runs that do / do not show the effect) and to write the PROVISIONAL committed fixture
results/reference/03-offheap-write-ci-fixture until the lead replaces it with a real ci run:

    .venv/bin/python -m heaplab.tests.fabricate results/reference/03-offheap-write-ci-fixture

Latencies are drawn from a seeded log-normal around ``base_us``; each young GC pause in the measured window
delays ``threads`` operations by up to the pause, which is what moves p999 and max.  Every summary value is
computed from the same histograms that go into the .hlog, so the files agree with each other the way a real
run's do.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter

from heaplab.lab.spec import parse_spec, spec_sha256
from heaplab.run.variant_run import ansible_vars
from heaplab.runfiles.runjson import write_run_json

HOST = "localhost"
START_MS = 1_795_291_200_000  # 2026-11-21T20:00:00Z: fixed, so the fixture is reproducible byte for byte
REPO = Path(__file__).resolve().parents[2]
LAB03_SPEC = REPO / "results/reference/03-offheap-write-ci-fixture/experiment.yml"


@dataclass
class Shape:
    """How one variant's measured phase behaves."""

    base_us: float = 700.0
    young_gcs: int = 6
    gc_pause_ms: float = 45.0
    other_gcs: int = 1  # non-young pauses in the window (must not count as young)
    outside_gcs: int = 3  # young pauses before/after the window (must not count)
    duration_s: int = 6
    status: str = "complete"
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # `admin metrics` reports by phase name (admin_metrics() builds one); others get a stub .out
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    # another shape for some measured pe phases of the variant (by phase name; labs measuring several)
    phases: dict[str, Shape] = field(default_factory=dict)
    # the measured summary's server_metrics (server_entry() builds one entry); None: the summary has none
    server_metrics: list[dict[str, Any]] | None = None


def admin_metrics(
    heap_used: int,
    *,
    direct_used: int = 0,
    data_bytes: int = 0,
    cells: int = 0,
    onheap_chunks: int = 0,
    offheap_chunks: int = 0,
    index: str = "CSLM",
    gc_requested: bool = True,
    reads: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An `admin metrics` report shaped as the contract (docs/contracts.md section 7); ``reads``: the
    read groups (read_groups())."""
    return {
        **(reads or {}),
        "format": 1,
        "tool": "admin",
        "command": "metrics",
        "gc_requested": gc_requested,
        "heap": {"used_bytes": heap_used, "committed_bytes": 2 * heap_used, "max_bytes": 1 << 30},
        "direct": {"used_bytes": direct_used, "buffers": direct_used // (2 << 20)},
        "memstore": {
            "data_bytes": data_bytes,
            "cells": cells,
            "regions": 4,
            "chunks": {
                "offheap_in_use": offheap_chunks,
                "onheap_in_use": onheap_chunks,
                "heap_fallback": 0,
                "pooled_free": 0,
            },
            "index": index,
            "flattened_segments": 0 if index == "CSLM" else 3,
        },
        "request_buffers": {"pooled_in_use": 0, "heap_fallback": 0, "allocations": 0},
        "wal": {"appends": cells, "syncs": cells // 10, "forces": 0},
    }


def server_report(
    alloc: dict[str, int] | None = None,
    *,
    request_copy: int = 0,
    response_copy: int = 0,
    direct_used: int = 0,
    rpc_calls: int = 0,
    supported: bool = True,
    cpu_ms: int | None = None,
) -> dict[str, Any]:
    """A region server's METRICS report with the mechanism groups (docs/contracts.md section 7): ``alloc``
    bytes by thread group (the groups not given are 0; total_bytes is their sum), heap copies, direct, and
    the process's CPU time when ``cpu_ms`` is given."""
    groups = dict.fromkeys(("handler", "reader", "wal", "flush", "other"), 0) | (alloc or {})
    process = {} if cpu_ms is None else {"process": {"cpu_ms": cpu_ms}}
    return {
        **process,
        **admin_metrics(64 << 20, direct_used=direct_used, gc_requested=False),
        "alloc": {
            "total_bytes": sum(groups.values()),
            "by_group": groups,
            "threads": 48,
            "supported": supported,
        },
        "copies": {
            "request_heap_bytes": request_copy,
            "response_heap_bytes": response_copy,
            "request_heap_copies": request_copy // 256,
            "response_heap_copies": response_copy // 256,
        },
        "rpc_calls": {"total": rpc_calls, "by_method": {"MUTATE": rpc_calls}},
    }


def server_entry(server: str, before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """One element of a summary's server_metrics: the server's reports before and after the phase."""
    return {"server": server, "before": before, "after": after}


def read_groups(
    gets: int,
    *,
    data_hits: int = 0,
    data_misses: int = 0,
    blocks_read: int = 0,
    cpu_ms: int = 0,
    qc_hits: int = 0,
    qc_misses: int = 0,
    caches: tuple[str, ...] = ("lru",),
) -> dict[str, Any]:
    """The read groups of an `admin metrics` report: block caches (the data counts go to the last cache,
    as a combined cache's L2 holds the data blocks), store-file reads, gets, query cache, process CPU."""

    def cache(name: str, data: bool) -> dict[str, Any]:
        hits, misses = (data_hits, data_misses) if data else (0, 0)
        counts = {"hits": hits, "misses": misses, "hit_ratio": hits / (hits + misses) if hits + misses else 0}
        zero = {"hits": 0, "misses": 0, "hit_ratio": 0}
        return {
            "name": name,
            "capacity_bytes": 64 << 20,
            "used_bytes": 32 << 20,
            "block_count": 500,
            "evictions": 0,
            "evicted_blocks": 0,
            "failed_inserts": 0,
            "wasted_bytes": 0,
            **counts,
            "by_type": {"data": counts, "leaf_index": zero, "bloom": zero},
        }

    return {
        "block_cache": {"caches": [cache(n, i == len(caches) - 1) for i, n in enumerate(caches)]},
        "store_files": {
            "data_blocks_read": blocks_read,
            "bytes_read": blocks_read * 65536,
            "bloom_checks": 0,
            "bloom_negatives": 0,
            "count": 4,
        },
        "reads": {"gets": gets, "scanned_rows": 0},
        "query_cache": {"hits": qc_hits, "misses": qc_misses, "invalidations": 0, "entries": 0, "bytes": 0},
        "process": {"cpu_ms": cpu_ms},
    }


def lab03_spec(offheap_available: bool = False) -> dict[str, Any]:
    raw = yaml.safe_load(LAB03_SPEC.read_text(encoding="utf-8"))
    raw = copy.deepcopy(raw)
    if offheap_available:
        raw["variants"]["hbase2-offheap"]["available"] = True
    return raw


def _iso(ms: float) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def _new_hist() -> HdrHistogram:
    return HdrHistogram(1, 3_600_000_000, 3)


def _gc_event(ms: float, pause: float, young: bool, uptime0: float) -> dict[str, Any]:
    return {
        "start_epoch_ms": int(ms),
        "uptime_ms": int(ms - uptime0),
        "collector": "G1 Young Generation" if young else "G1 Concurrent GC",
        "action": "end of minor GC" if young else "end of major GC",
        "cause": "G1 Evacuation Pause" if young else "G1 Remark",
        "duration_ms": round(pause, 1),
        "heap_before_bytes": 201_326_592,
        "heap_after_bytes": 50_331_648,
        "young": young,
    }


def _pe_counts(args: str, params: dict[str, Any]) -> tuple[int, int]:
    """(clients, rows per client) of a pe command line: `... --rows=N <command> <nclients>`."""
    words = args.split()
    rows = next((int(w.split("=", 1)[1]) for w in words if w.startswith("--rows=")), None)
    try:
        threads = int(words[-1])
    except (IndexError, ValueError):
        threads = int(params["threads"])
    return threads, rows if rows is not None else int(params["rows"])


def _write_phase(
    client: Path,
    phase: dict[str, Any],
    params: dict[str, Any],
    shape: Shape,
    rng: random.Random,
    start_ms: float,
    gc_times: list[tuple[float, float]],
) -> None:
    threads, rows = _pe_counts(phase["args"], params)
    total = threads * rows
    per_interval = total // shape.duration_s
    hists = []
    overall = _new_hist()
    for i in range(shape.duration_s):
        h = _new_hist()
        n = per_interval if i < shape.duration_s - 1 else total - per_interval * (shape.duration_s - 1)
        for _ in range(n):
            h.record_value(max(1, int(rng.lognormvariate(0, 0.35) * shape.base_us)))
        lo, hi = start_ms + i * 1000, start_ms + (i + 1) * 1000
        for t, pause in gc_times:
            if lo <= t < hi:  # operations caught by the pause wait for (part of) it
                for _ in range(threads):
                    h.record_value(int(shape.base_us + pause * 1000 * rng.uniform(0.5, 1.0)))
        h.set_start_time_stamp(lo)
        h.set_end_time_stamp(hi)
        hists.append(h)
        overall.add(h)
    prefix = f"{phase['name']}-{HOST}"
    write_interval_log(
        client / f"{prefix}.hlog",
        start_ms,
        hists,
        comment="[Logged with heaplab fabricate (PROVISIONAL fixture, not a real run)]",
    )
    end_ms = start_ms + shape.duration_s * 1000
    count = overall.get_total_count()
    lat = {
        "mean": round(overall.get_mean_value(), 1),
        "min": overall.get_min_value(),
        **{
            k: overall.get_value_at_percentile(p)
            for k, p in (("p50", 50), ("p75", 75), ("p95", 95), ("p99", 99), ("p999", 99.9), ("p9999", 99.99))
        },
        "max": overall.get_max_value(),
    }
    summary = {
        "format": 1,
        "tool": "pe",
        "command": "randomWrite",
        "args": phase["args"],
        "test": "RandomWriteTest",
        "threads": threads,
        "rows_per_thread": rows,
        "value_size": 200,
        "batch_size": 1,
        "operations": count,
        "rows": count,
        "duration_ms": float(end_ms - start_ms),
        "throughput": round(count / shape.duration_s, 1),
        "latency_us": lat,
        "start_epoch_ms": int(start_ms),
        "end_epoch_ms": int(end_ms),
        "hlog": f"{prefix}.hlog",
    }
    if shape.server_metrics is not None:
        summary["server_metrics"] = shape.server_metrics
    (client / f"{prefix}.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    ms = shape.duration_s * 1000
    (client / f"{prefix}.out").write_text(
        f"{_iso(start_ms)} INFO PerformanceEvaluation: RandomWriteTest test run options={phase['args']}\n"
        f"{_iso(end_ms)} INFO PerformanceEvaluation: [RandomWriteTest] Summary of timings (ms): "
        f"[{shape.duration_s * 1000}]\n"
        f"{_iso(end_ms)} INFO PerformanceEvaluation: [RandomWriteTest duration ]\tMin: {ms}ms"
        f"\tMax: {ms}ms\tAvg: {ms}ms\n"
        f"{_iso(end_ms)} INFO PerformanceEvaluation: [ RandomWriteTest Throughput ]\t"
        f"Avg TPS/QPS: {summary['throughput']:.0f} row per second\n"
        f"{_iso(end_ms)} INFO PerformanceEvaluation: Mean latency: {lat['mean']}us, "
        f"99.9th: {lat['p999']}us\n",
        encoding="utf-8",
    )


def _write_variant(
    run_dir: Path,
    spec_raw: dict[str, Any],
    name: str,
    scale: str,
    shape: Shape,
    rng: random.Random,
    archive: Path,
) -> dict[str, Any]:
    spec = parse_spec(spec_raw)
    variant = spec.variants[name]
    params = spec.params(scale)
    vdir = run_dir / name
    for d in ("conf", f"server/{HOST}", "client"):
        (vdir / d).mkdir(parents=True, exist_ok=True)
    vars_ = ansible_vars(spec, variant, params, archive, run_dir)
    (vdir / "ansible-vars.json").write_text(json.dumps(vars_, indent=2) + "\n", encoding="utf-8")
    (vdir / "ansible.log").write_text(
        "PLAY [heaplab variant] *********\n"
        + "".join(
            f"TASK [experiment : phase {p['name']}] *********\nchanged: [{HOST}]\n"
            for p in vars_["heaplab_phases"]
        )
        + f"PLAY RECAP *********\n{HOST} : ok=12 changed=6 unreachable=0 failed=0\n",
        encoding="utf-8",
    )
    site = "".join(
        f"  <property><name>{k}</name><value>{v}</value></property>\n"
        for k, v in vars_["heaplab_site"].items()
    )
    (vdir / "conf/engine-site.xml").write_text(
        f'<?xml version="1.0"?>\n<!-- profile {variant.profile} + lab overrides -->\n<configuration>\n{site}'
        "</configuration>\n",
        encoding="utf-8",
    )
    (vdir / "conf/jvm.options").write_text(
        "\n".join(vars_["heaplab_server_jvm_flags"]) + "\n", encoding="utf-8"
    )

    phases = vars_["heaplab_phases"]
    measured = [p for p in phases if p["record"] and p["tool"] == "pe"]
    # create (1 s), warmup (3 s), then the measured phases one after the other, 4 s apart.
    uptime0 = START_MS - 5_000
    windows: dict[str, tuple[float, Shape, list[tuple[float, float]]]] = {}
    events = []
    start_ms = end_ms = START_MS + 4_000
    for p in measured:
        ps = shape.phases.get(p["name"], shape)
        window = ps.duration_s * 1000
        gc_times = sorted(
            (end_ms + rng.uniform(0, window - 1), ps.gc_pause_ms * rng.uniform(0.8, 1.2))
            for _ in range(ps.young_gcs)
        )
        windows[p["name"]] = (end_ms, ps, gc_times)
        events += [_gc_event(t, pause, True, uptime0) for t, pause in gc_times]
        events += [
            _gc_event(end_ms + rng.uniform(0, window - 1), 3.0, False, uptime0) for _ in range(ps.other_gcs)
        ]
        end_ms += window + 4_000
    end_ms -= 4_000
    for k in range(shape.outside_gcs):  # warmup before, shutdown flush after
        t = START_MS + 1_000 + k * 700 if k % 2 == 0 else end_ms + 200 + k * 100
        events.append(_gc_event(t, shape.gc_pause_ms, True, uptime0))
    events.sort(key=lambda e: e["start_epoch_ms"])
    server = vdir / "server" / HOST
    (server / "gc-events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (server / "gc.log").write_text(
        "".join(
            f"[{_iso(e['start_epoch_ms'])}][{e['uptime_ms'] / 1000:.3f}s][info][gc] GC({i}) Pause "
            f"{'Young (Normal)' if e['young'] else 'Remark'} ({e['cause']}) 192M->48M(256M) "
            f"{e['duration_ms']}ms\n"
            for i, e in enumerate(events)
        ),
        encoding="utf-8",
    )
    (server / "server.log").write_text(
        f"{_iso(uptime0)} INFO RegionServer: starting with profile {variant.profile}\n"
        f"{_iso(uptime0 + 900)} INFO RegionServer: listening on {HOST}:16020\n"
        f"{_iso(end_ms + 500)} INFO RegionServer: stopping: flushed memstores, closed WAL\n",
        encoding="utf-8",
    )
    client = vdir / "client"
    for p in phases:
        if p["name"] in windows:
            at, ps, gc_times = windows[p["name"]]
            _write_phase(client, p, params, ps, rng, at, gc_times)
        elif p["name"] in shape.metrics:
            report = json.dumps(shape.metrics[p["name"]], indent=2) + "\n"
            (client / f"{p['name']}-{HOST}.json").write_text(report, encoding="utf-8")
            (client / f"{p['name']}-{HOST}.out").write_text(report, encoding="utf-8")
        else:
            (client / f"{p['name']}-{HOST}.out").write_text(
                f"{p['tool']} {p['args']}\nOK\n", encoding="utf-8"
            )
        (client / f"gc-{p['name']}-{HOST}.log").write_text(
            f"[{_iso(start_ms)}][0.010s][info][gc] Using G1\n", encoding="utf-8"
        )
    return {
        "profile": variant.profile,
        "published": variant.published,
        "available": True,
        "why": None,
        "server_jvm_flags": vars_["heaplab_server_jvm_flags"],
        "client_jvm_flags": vars_["heaplab_client_jvm_flags"],
        "site": spec.variant_site(params, variant),
        "vars": {k: x for k, x in spec.variant_params(variant, params).items() if k in variant.vars},
        "status": shape.status,
        "error": shape.error,
        "log": f"{name}/ansible.log",
    }


def fabricate_run(
    dest: Path,
    spec_raw: dict[str, Any],
    shapes: dict[str, Shape],
    scale: str = "ci",
    seed: int = 3,
    spec_text: str | None = None,
) -> Path:
    """Write a run directory at ``dest``; variants without a shape are recorded as unavailable/missing."""
    rng = random.Random(seed)
    spec = parse_spec(spec_raw)
    dest.mkdir(parents=True, exist_ok=True)
    spec_path = dest / "experiment.yml"
    spec_path.write_text(spec_text or yaml.safe_dump(spec_raw, sort_keys=False), encoding="utf-8")
    archive = REPO / "engine/dist/target/heaplab-engine-0.1.0-bin.tar.gz"
    host = {
        "name": HOST,
        "role": "regionserver,client",
        "cpu_model": "Intel(R) Xeon(R) CPU @ 2.20GHz",
        "cores": 8,
        "memory_mb": 16008,
        "disk": "ssd 100G",
        "kernel": "6.8.0-1019",
        "jdk": "17.0.13+11",
    }
    (dest / "hosts").mkdir(exist_ok=True)
    (dest / "hosts" / f"{HOST}.json").write_text(json.dumps(host, indent=2) + "\n", encoding="utf-8")
    variants: dict[str, Any] = {}
    for name, v in spec.variants.items():
        params = spec.params(scale)
        if name in shapes:
            variants[name] = _write_variant(dest, spec_raw, name, scale, shapes[name], rng, archive)
        elif not v.available:
            variants[name] = {
                "profile": v.profile,
                "published": v.published,
                "available": False,
                "why": v.why,
                "server_jvm_flags": spec.server_jvm_flags(v, params),
                "client_jvm_flags": spec.client_jvm_flags(v, params),
                "status": "unavailable",
                "error": None,
                "log": None,
            }
    statuses = {v["status"] for v in variants.values()}
    write_run_json(
        dest,
        {
            "lab": spec.lab,
            "title": spec.title,
            "spec_sha256": spec_sha256(spec_path),
            "scale": scale,
            "scale_params": spec.params(scale),
            "target": str(REPO / "playbooks/inventories/local/hosts.yml"),
            "command": f"heaplab run {spec.lab} --scale {scale}",
            "git": {"commit": "0000000000000000000000000000000000000000", "dirty": False},
            "start": _iso(START_MS - 6_000),
            "end": _iso(START_MS + 20_000),
            "status": "failed" if "failed" in statuses else "complete",
            "hosts": [host],
            "jdk": host["jdk"],
            "variants": variants,
        },
    )
    return dest


def main(argv: list[str]) -> int:
    dest = Path(argv[0]) if argv else LAB03_SPEC.parent
    fabricate_run(
        dest, lab03_spec(), {"hbase1-onheap": Shape()}, spec_text=LAB03_SPEC.read_text(encoding="utf-8")
    )
    print(dest)
    return 0


def mark_series(runs: list[Path]) -> Path:
    """Mark fabricated runs as one `heaplab run --repeat N` series (run.json's `series`, as
    heaplab.runfiles.series
    finds the repeats beside a run); the first is the run the notebook opens."""
    for index, run in enumerate(runs, 1):
        path = run / "run.json"
        manifest = json.loads(path.read_text(encoding="utf-8"))
        manifest["series"] = {"id": runs[0].name, "index": index, "of": len(runs)}
        path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return runs[0]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def write_interval_log(path: Path, start_ms: float, hists: list[HdrHistogram], comment: str = "") -> Path:
    """An interval log as pe and hbase-lab pe write one: StartTime and BaseTime, then each histogram with
    its stamps relative to them (microseconds)."""
    with path.open("w", encoding="utf-8") as f:
        w = HistogramLogWriter(f)
        if comment:
            w.output_comment(comment)
        w.output_log_format_version()
        f.write(f"#[StartTime: {start_ms / 1000:.3f} (seconds since epoch), {_iso(start_ms)}]\n")
        w.output_base_time(start_ms)
        w.base_time = start_ms
        w.output_legend()
        for h in hists:
            w.output_interval_histogram(h, max_value_unit_ratio=1000.0)
    return path
