"""Read a client summary, ``<variant>/client/<phase>-<host>.json`` (docs/contracts.md section 3).

Decodes what the engine's ``pe --report=PREFIX`` and ``ycsb --report=PREFIX`` write.  Latencies in the
file are microseconds.  A ycsb summary also has ``ops`` (per YCSB operation: operations and latency) and,
when operations failed, ``failed`` (per YCSB measurement such as ``READ-FAILED``: count); both are
optional for readers (empty for pe).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

# ``ycsb --report=PREFIX`` also keeps YCSB's JSON export as PREFIX.ycsb.json (not a summary).
YCSB_EXPORT_SUFFIX = ".ycsb.json"
PERCENTILE_KEYS = ("mean", "min", "p50", "p75", "p95", "p99", "p999", "p9999", "max")


@dataclass(frozen=True)
class OpSummary:
    """One YCSB operation (READ, UPDATE, INCREMENT, ...) of a ycsb summary."""

    operations: int
    latency_us: dict[str, float]


@dataclass(frozen=True)
class ClientSummary:
    path: Path
    host: str
    phase: str
    command: str
    threads: int
    operations: int
    rows: int
    duration_ms: float
    throughput: float  # rows per second (HBase PE's "Avg TPS/QPS")
    latency_us: dict[str, float]
    start_epoch_ms: float
    end_epoch_ms: float
    hlog: Path | None
    tool: str = "pe"
    test: str = ""
    ops: dict[str, OpSummary] = field(default_factory=dict)
    failed: dict[str, int] = field(default_factory=dict)
    # HBase 1.4's PE: how it batched instead of --multiPut (hbase-lab pe's line; heaplab.run.hbase_pe)
    batch_substitute: str | None = None


def _latency(raw: dict) -> dict[str, float]:
    return {k: float(raw[k]) for k in PERCENTILE_KEYS if k in raw}


_SAMPLE_RATE = re.compile(r"--sampleRate=([0-9.]+)")


def sampled(args: str) -> bool:
    """Whether a PE command line samples its rows (``--sampleRate`` below 1: fewer gets than rows)."""
    m = _SAMPLE_RATE.search(args)
    try:
        return m is not None and float(m.group(1)) < 1.0
    except ValueError:
        return False


def _rows_and_throughput(raw: dict) -> tuple[int, float]:
    """The rows the clients completed and their rate. HBase PE's "for N rows" is each client's share of the
    key space; when it samples (randomRead ``--sampleRate``) it gets only a part of them, one row a
    measured get: the summaries heaplab wrote before it knew (lab 04's series of 2026-12-02) counted the
    share, so for those the rows are the gets and the rate follows (the rate was rows / the same duration)."""
    operations = int(raw["operations"])
    rows, throughput = int(raw.get("rows", operations)), float(raw["throughput"])
    if raw.get("tool") == "hbase-pe" and sampled(str(raw.get("args", ""))) and rows > operations > 0:
        return operations, throughput * operations / rows
    return rows, throughput


def summary_path(client_dir: Path, phase: str, host: str) -> Path:
    return client_dir / f"{phase}-{host}.json"


def load_client_summary(path: Path, phase: str, host: str) -> ClientSummary:
    raw = json.loads(path.read_text(encoding="utf-8"))
    if raw.get("format") != 1:
        raise ValueError(f"{path}: unsupported client summary format {raw.get('format')!r}")
    latency = _latency(raw["latency_us"])
    hlog = raw.get("hlog")
    rows, throughput = _rows_and_throughput(raw)
    return ClientSummary(
        path=path,
        host=host,
        phase=phase,
        command=str(raw.get("command", "")),
        threads=int(raw.get("threads", 0)),
        operations=int(raw["operations"]),
        rows=rows,
        duration_ms=float(raw["duration_ms"]),
        throughput=throughput,
        latency_us=latency,
        start_epoch_ms=float(raw["start_epoch_ms"]),
        end_epoch_ms=float(raw["end_epoch_ms"]),
        # Only the file name counts: the engine may record the path it wrote on the remote host.
        hlog=(path.parent / Path(hlog).name) if hlog else None,
        tool=str(raw.get("tool", "pe")),
        test=str(raw.get("test", "")),
        ops={
            name: OpSummary(int(op["operations"]), _latency(op.get("latency_us", {})))
            for name, op in (raw.get("ops") or {}).items()
        },
        failed={name: int(n) for name, n in (raw.get("failed") or {}).items()},
        batch_substitute=raw.get("batch_substitute"),
    )


SIZING_SUFFIX = ".sizing.json"  # heaplab.runfiles.phase_sizing's files, beside the summaries


def load_phase_summaries(client_dir: Path, phase: str) -> list[ClientSummary]:
    """Every client host's summary of one phase, sorted by host."""
    out = []
    prefix = f"{phase}-"
    for path in sorted(client_dir.glob(f"{phase}-*.json")):
        if path.name.endswith((YCSB_EXPORT_SUFFIX, SIZING_SUFFIX)):
            continue  # YCSB's own export beside a ycsb phase's summary; how a phase was sized
        host = path.stem[len(prefix) :]
        out.append(load_client_summary(path, phase, host))
    return out
