"""Apache HBase PerformanceEvaluation output -> our client summary JSON (docs/contracts.md section 3).

HBase's PE (org.apache.hadoop.hbase.PerformanceEvaluation, run by infra/apache-hbase/bin/hbase-lab pe)
writes no report file: it logs, per client thread, ``Latency (us) : mean=..., min=..., max=...,
stdDev=..., 50th=..., 75th=..., 95th=..., 99th=..., 99.9th=..., 99.99th=..., 99.999th=...``,
``Num measures (latency) : N`` and ``Finished TestClient-i in Tms over R rows``, then the run's summary
(``[ Avg TPS/QPS]\t261\t row per second``).  heaplab turns the saved output ``<phase>-<host>.out`` of an
apache-hbase variant into ``<phase>-<host>.json`` after the variant ran, so every reader of client
summaries works on both servers.  How the numbers are made (docs/apache-hbase.md):

- ``operations``: the measured calls, the sum of the threads' ``Num measures``; ``rows``: the sum of the
  threads' rows (a sampling randomRead: its gets, PE's "for N rows" being each thread's share);
  ``duration_ms``: the slowest thread's time; ``throughput``: rows / duration, the
  definition of the engine's pe report (HBase PE's own ``Avg TPS/QPS``, the sum of per-thread rates, is
  kept as ``hbase_avg_tps``).
- ``latency_us``: from ``<phase>-<host>.hlog`` when the phase wrote one (``hbase-lab pe --report`` runs
  PE's commands as LabPeCommands, which also record every measured latency into the engine pe's interval
  log): the threads' latencies merged into one histogram, as the engine's pe computes its own, so both
  servers' percentiles are made the same way (``latency_method: merged``).  Without the log (a command
  LabPeCommands does not wrap), HBase PE's own numbers: it keeps one histogram per thread and prints no
  merged one, so ``mean`` is the measures-weighted mean (exact), ``min``/``max`` the extremes (exact) and
  each percentile the measures-weighted mean of the threads' percentiles (an estimate;
  ``latency_method: thread-weighted``).  PE's per-thread values are kept under ``clients`` and their
  weighted estimate under ``hbase_latency_us``.
- ``start_epoch_ms``/``end_epoch_ms``: from the log lines' timestamps (``Timed test starting`` of the
  first thread, ``Finished TestClient`` of the last), read in the host's time zone (``tz``, default the
  controller's local zone: the local target is the controller).
- ``hlog``: the interval log's file name (timelines, the merge of several client hosts), or null without
  one; ``hlog_count``: the operations it holds, which must equal ``operations``.

HBase 1.4's PE prints the same per-thread lines but no ``Avg TPS/QPS`` (``hbase_avg_tps`` is null; its
``[Test] Summary of timings`` line ends a finished run), and has no ``--multiPut``: ``hbase-lab pe`` runs a
batch as the buffered substitute (no autoFlush, a write buffer of about N puts) and says so on its first
line, which the summary keeps as ``batch_substitute`` (null for a real multiPut or no batch). Its
``operations`` are then rows (PE measures every put, most of which only enter the client's buffer), so its
latencies are per row, not per call.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any

from heaplab.lab.schema import HBASE_VERSIONS
from heaplab.runfiles import (
    gc_log,
    rawlogs,  # the unified GC log parser; plain or gzipped logs
)
from heaplab.runfiles.client_summary import PERCENTILE_KEYS, sampled
from heaplab.runfiles.hlog import latency_us, read_total
from heaplab.runfiles.phase_sizing import sized_args

# HBase PE's names for the percentiles (2.6: lower-case mean=; older releases print Mean=).
_HBASE_KEYS = {
    "mean": "mean",
    "min": "min",
    "max": "max",
    "50th": "p50",
    "75th": "p75",
    "95th": "p95",
    "99th": "p99",
    "99.9th": "p999",
    "99.99th": "p9999",
}
_STAMP = r"(?P<ts>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})"
_THREAD = r"\[(?P<thread>[^\]]+)\]"
_LATENCY = re.compile(_STAMP + r".*?" + _THREAD + r".*?Latency \(us\) : (?P<values>.*)$", re.IGNORECASE)
_MEASURES = re.compile(_THREAD + r".*?Num measures \(latency\) : (?P<n>\d+)")
_FINISHED = re.compile(
    _STAMP + r".*?Finished (?P<client>TestClient-\d+) in (?P<ms>\d+)ms over (?P<rows>\d+) rows"
)
_STARTING = re.compile(_STAMP + r".*?Timed test starting in thread (?P<client>TestClient-\d+)")
_TEST = re.compile(r"Test : (?P<test>\w+), Thread : (?P<client>TestClient-\d+)")
_TPS = re.compile(r"\[ Avg TPS/QPS\]\s+(?P<tps>[\d.]+)")
_SUMMARY = re.compile(r"\[\w+\] Summary of timings \(ms\)")  # both releases; 1.4 prints no TPS line
# bin/hbase-lab pe's first line when it ran --multiPut=N as HBase 1.4's buffered substitute
_SUBSTITUTE = re.compile(r"^hbase-lab: (?P<line>buffered substitute for --multiPut=\d+ .*)$")
_PAIR = re.compile(r"([\w.]+)=([\d.]+)")

# PE's command words -> its test class names (as the engine's pe report names them).
TESTS = {
    "sequentialWrite": "SequentialWriteTest",
    "randomWrite": "RandomWriteTest",
    "sequentialRead": "SequentialReadTest",
    "randomRead": "RandomReadTest",
    "scan": "ScanTest",
    "scanRange100": "RandomScanWithRange100Test",
    "increment": "IncrementTest",
}
# hbase-lab pe --report runs these commands as LabPeCommands' classes (LabRandomWrite, ...): PE's own tests
# with an interval log; the summary names the PE test they are.
LAB_TESTS = {
    "Lab" + c[0].upper() + c[1:]: TESTS[c] for c in ("randomWrite", "sequentialWrite", "randomRead", "scan")
}


class HBasePeError(ValueError):
    """The output is not a finished HBase PE run; the message names the file."""


@dataclass
class _Client:
    name: str
    latency_us: dict[str, float]
    measures: int = 0
    duration_ms: float = 0.0
    rows: int = 0
    start: datetime | None = None
    end: datetime | None = None


def _stamp(text: str, tz: tzinfo | None) -> datetime:
    when = datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f")
    return when.replace(tzinfo=tz) if tz is not None else when.astimezone()


def _command_of(args: str) -> tuple[str, int]:
    """PE's command word and thread count: the last two words of its arguments."""
    words = shlex.split(args)
    if len(words) >= 2 and words[-1].isdigit():
        return words[-2], int(words[-1])
    return "", 0


def _flag(args: str, name: str, default: int) -> int:
    m = re.search(rf"--{name}=(\d+)", args)
    return int(m.group(1)) if m else default


def _read_line(line: str, clients: dict[str, _Client], found: dict[str, Any], tz: tzinfo | None) -> None:
    """Take what one line of HBase PE's output says (per-client numbers, the test name, the TPS)."""
    if m := _LATENCY.search(line):
        values = {k.lower(): float(v) for k, v in _PAIR.findall(m.group("values"))}
        lat = {ours: values[theirs] for theirs, ours in _HBASE_KEYS.items() if theirs in values}
        clients.setdefault(m.group("thread"), _Client(m.group("thread"), {})).latency_us = lat
    elif m := _MEASURES.search(line):
        clients.setdefault(m.group("thread"), _Client(m.group("thread"), {})).measures = int(m.group("n"))
    elif m := _FINISHED.search(line):
        c = clients.setdefault(m.group("client"), _Client(m.group("client"), {}))
        c.duration_ms, c.rows, c.end = (
            float(m.group("ms")),
            int(m.group("rows")),
            _stamp(m.group("ts"), tz),
        )
    elif m := _STARTING.search(line):
        c = clients.setdefault(m.group("client"), _Client(m.group("client"), {}))
        c.start = _stamp(m.group("ts"), tz)
    elif m := _TEST.search(line):
        found["test"] = m.group("test")
    elif m := _TPS.search(line):
        found["tps"] = float(m.group("tps"))
    elif _SUMMARY.search(line):
        found["summary"] = True
    elif m := _SUBSTITUTE.match(line):
        found["substitute"] = m.group("line")


def parse(
    text: str,
    *,
    args: str = "",
    source: str = "HBase PE output",
    tz: tzinfo | None = None,
    hlog: Path | None = None,
) -> dict[str, Any]:
    """The client summary of one HBase PE run (``args``: PE's command line as the phase ran it; ``hlog``:
    the interval log the run wrote, if any)."""
    clients: dict[str, _Client] = {}
    found: dict[str, Any] = {"test": "", "tps": None, "summary": False, "substitute": None}
    for line in text.splitlines():
        _read_line(line, clients, found, tz)
    test, tps = found["test"], found["tps"]
    done = [c for c in clients.values() if c.end is not None and c.latency_us]
    if not done or (tps is None and not found["summary"]):
        raise HBasePeError(
            f"{source}: no finished HBase PE run (no per-client latency, or neither the Avg TPS/QPS "
            "nor the Summary of timings line)"
        )
    measures = sum(c.measures for c in done)
    weights = [c.measures if measures else 1 for c in done]
    total_w = sum(weights)
    latency = {}
    for key in PERCENTILE_KEYS:
        vals = [c.latency_us.get(key) for c in done]
        if any(v is None for v in vals):
            continue
        if key == "min":
            latency[key] = min(vals)
        elif key == "max":
            latency[key] = max(vals)
        else:
            latency[key] = round(sum(v * w for v, w in zip(vals, weights, strict=True)) / total_w, 3)
    rows = sum(c.rows for c in done)
    if sampled(args) and measures:  # PE's "for N rows" is the client's share; a sampling read gets fewer
        rows = measures
    duration = max(c.duration_ms for c in done)
    starts = [c.start for c in done if c.start is not None]
    end = max(c.end for c in done if c.end is not None)
    start_ms = (min(starts).timestamp() * 1000) if starts else end.timestamp() * 1000 - duration
    command, threads = _command_of(args)
    merged = read_total([hlog]) if hlog is not None and hlog.is_file() else None
    if merged is not None and merged.get_total_count() == 0:
        merged = None  # an empty log (no measured operation reached it): PE's own numbers
    return {
        "format": 1,
        "tool": "hbase-pe",
        "command": command,
        "args": args,
        "test": LAB_TESTS.get(test, test) or TESTS.get(command, command),
        "threads": threads or len(done),
        "rows_per_thread": _flag(args, "rows", rows // max(len(done), 1)),
        "value_size": _flag(args, "valueSize", 1000),  # HBase PE's default value size
        "batch_size": max(_flag(args, "multiPut", 1), 1),
        "batch_substitute": found["substitute"],  # HBase 1.4: how its PE batched instead of --multiPut
        "operations": measures or rows,
        "rows": rows,
        "duration_ms": duration,
        "throughput": round(rows * 1000.0 / duration, 3) if duration > 0 else 0.0,
        "hbase_avg_tps": tps,  # null from HBase 1.4's PE, which prints none
        "latency_us": latency_us(merged) if merged is not None else latency,
        "latency_method": "merged" if merged is not None else "thread-weighted",
        "hbase_latency_us": latency,
        "start_epoch_ms": round(start_ms),
        "end_epoch_ms": round(end.timestamp() * 1000),
        "hlog": hlog.name if merged is not None and hlog is not None else None,
        "hlog_count": merged.get_total_count() if merged is not None else None,
        "clients": [
            {
                "client": c.name,
                "rows": c.rows,
                "measures": c.measures,
                "duration_ms": c.duration_ms,
                "latency_us": c.latency_us,
            }
            for c in sorted(done, key=lambda c: c.name)
        ],
    }


def convert_variant(
    client_dir: Path, phases: list[dict[str, Any]], *, tz: tzinfo | None = None
) -> list[Path]:
    """Write ``<phase>-<host>.json`` beside each pe phase's ``<phase>-<host>.out`` (and ``.err``).

    ``phases``: the variant's phases as passed to the playbook (name, tool, args).  A pe phase whose output
    is not a finished run (a background phase stopped early, a failed phase) gets no JSON, as with the
    engine's pe.  Returns the files written.
    """
    written = []
    for phase in phases:
        if phase.get("tool") != "pe":
            continue
        for out in sorted(client_dir.glob(f"{phase['name']}-*.out")):
            text = out.read_text(encoding="utf-8", errors="replace")
            err = out.with_suffix(".err")
            if err.is_file():
                text += "\n" + err.read_text(encoding="utf-8", errors="replace")
            try:
                hlog = out.with_suffix(".hlog")
                args = sized_args(out) or str(phase.get("args", ""))  # as sized on the host, if it was
                summary = parse(text, args=args, source=str(out), tz=tz, hlog=hlog)
            except HBasePeError:
                continue
            target = out.with_suffix(".json")
            target.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
            written.append(target)
    return written


# Where infra/apache-hbase/fetch.sh leaves the packed HBase of each release (lib/ + bin/hbase-lab + classes/).
ARCHIVE = "infra/apache-hbase/target/apache-hbase-{version}.tar"
# How each release is fetched (the Makefile's targets run fetch.sh with its HBASE_VERSION).
FETCH_HINTS = {
    "2.6.4": "run make apache-hbase (infra/apache-hbase/fetch.sh: Apache HBase 2.6.4 from Maven Central, "
    "about 115 MB)",
    "1.4.14": "run make apache-hbase-1.4 (HBASE_VERSION=1.4.14 infra/apache-hbase/fetch.sh: Apache HBase "
    "1.4.14 from Maven Central, about 75 MB)",
}
FETCH_HINT = FETCH_HINTS[HBASE_VERSIONS[0]]


def find_archive(root: Path, version: str = HBASE_VERSIONS[0]) -> Path | None:
    """The packed Apache HBase ``version`` of infra/apache-hbase/fetch.sh, or None when it has not run."""
    path = root / ARCHIVE.format(version=version)
    return path if path.is_file() else None


def unavailable_why(server: str, root: Path, version: str = "") -> str | None:
    """Why an apache-hbase variant cannot run here (None: it can, or it is an engine variant)."""
    version = version or HBASE_VERSIONS[0]
    if server != "apache-hbase" or find_archive(root, version) is not None:
        return None
    hint = FETCH_HINTS.get(version, f"run HBASE_VERSION={version} infra/apache-hbase/fetch.sh")
    return f"Apache HBase {version} is not fetched ({ARCHIVE.format(version=version)} missing): {hint}"


def ansible_vars(server: str, root: Path, version: str = "") -> dict[str, Any]:
    """The extra vars an apache-hbase variant adds (playbooks/roles/apache_hbase); none for the engine."""
    if server != "apache-hbase":
        return {}
    archive = find_archive(root, version or HBASE_VERSIONS[0])
    return {"heaplab_server": server, "heaplab_hbase_archive": str(archive.resolve()) if archive else ""}


def mark_unavailable(entries: dict[str, dict[str, Any]], spec: Any, root: Path) -> None:
    """run.json's variant entries: an apache-hbase variant is unavailable, with the fetch command, until
    infra/apache-hbase/fetch.sh has packed its release (the engine variants still run). An entry already
    unavailable (e.g. not selected) keeps its reason."""
    for name, v in spec.variants.items():
        why = unavailable_why(v.server, root, v.hbase_version) if entries[name]["available"] else None
        if why:
            entries[name].update(available=False, why=why, status="unavailable")


def gc_events_from_log(server_dir: Path) -> Path | None:
    """Write ``gc-events.jsonl`` (docs/contracts.md section 4) from HBase's ``gc-regionserver.log``.

    The engine's region server appends its stop-the-world pauses to gc-events.jsonl itself; HBase does not,
    so heaplab derives the same file from HBase's unified GC log (the launcher's -Xlog flags, parsed by
    heaplab.runfiles.gc_log) and the young-GC metrics work for both servers. Young and mixed pauses count as
    young (as the JVM's "G1 Young Generation" collector reports them); every pause gets ``"source"``. Returns
    the file written, or None when there is no GC log.
    """

    log = rawlogs.locate(server_dir / gc_log.GC_LOG)  # plain, or gzipped by an earlier pass
    if log is None:
        return None
    lines = []
    for p in gc_log.parse(log).pauses:
        young = p.kind in ("young", "mixed")
        collector = "G1 Young Generation" if young else ("G1 Old Generation" if p.kind == "full" else p.kind)
        event = {
            "start_epoch_ms": round(p.end_epoch_ms - p.duration_ms, 3),
            "uptime_ms": round(p.uptime_s * 1000 - p.duration_ms, 3),
            "collector": collector,
            "action": f"pause {p.kind}",
            "cause": p.what,
            "duration_ms": p.duration_ms,
            "heap_before_bytes": p.heap_before_bytes,
            "heap_after_bytes": p.heap_after_bytes,
            "young": young,
            "source": gc_log.GC_LOG,
        }
        lines.append(json.dumps(event))
    target = server_dir / "gc-events.jsonl"
    target.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return target
