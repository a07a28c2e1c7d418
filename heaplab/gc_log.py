"""Parse a server's unified JVM log, ``<variant>/server/<host>/gc-regionserver.log``.

The launcher logs ``-Xlog:gc*,safepoint:file=...:time,uptime,level,tags``, so every line starts with
``[2026-11-22T05:51:19.470+0000][0.297s][info][gc          ] ``.  From it we keep:

- the stop-the-world pauses, from the one ``[gc]`` (or, for ZGC, ``[gc,phases]``) line the JVM writes when
  a pause ends: G1 and Parallel ``GC(7) Pause Young (Normal) (G1 Evacuation Pause) 402M->92M(512M) 12.130ms``,
  ``Pause Young (Mixed)``, ``Pause Full (...)``, ``Pause Remark``, ``Pause Cleanup``; ZGC (JDK 17)
  ``GC(0) Pause Mark Start 0.014ms`` and generational ZGC (JDK 21+) ``GC(0) y: Pause Mark Start 0.017ms``
  (``y:`` minor collection, ``Y:``/``O:`` the young/old half of a major one);
- G1's ``GC(7) Eden regions: 27->0(37)`` (attached to the pause of the same GC id) and
  ``Heap Region Size: 1M``;
- the safepoint lines, ``Safepoint "G1CollectForAllocation", ..., Reaching safepoint: N ns, ...,
  At safepoint: N ns, ...`` (JDK 17 and 21+ differ only in the fields between).

A line without the decorations, or a pause or safepoint line whose numbers do not parse, is skipped and
counted in ``GcLog.malformed`` (a crashed JVM can leave a half-written last line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

GC_LOG = "gc-regionserver.log"

# Kinds of pause: young, mixed (G1), full, remark, cleanup (G1 concurrent cycle), other (ZGC's pauses of
# a non-generational or an old-generation cycle: short root-scanning pauses, neither young nor full).
KINDS = ("young", "mixed", "full", "remark", "cleanup", "other")

_DECORATIONS = re.compile(r"^\[([^\]]+)\]\[([\d.]+)s\]\[(\w+)\s*\]\[([\w, ]+?)\s*\] ?(.*)$")
_GC_ID = re.compile(r"^GC\((\d+)\) ")
_SIZE = r"(\d+)([BKMGT])"
_PAUSE = re.compile(
    r"^GC\((?P<id>\d+)\) (?:(?P<gen>[yYO]): )?Pause (?P<what>.*?)"
    rf"(?: {_SIZE}->{_SIZE}\({_SIZE}\))? (?P<ms>\d+(?:\.\d+)?)ms$"
)
_EDEN = re.compile(r"^GC\((\d+)\) Eden regions: (\d+)->(\d+)\((\d+)\)$")
_REGION_SIZE = re.compile(r"^Heap Region Size: (\d+)([BKMGT])$")
_SAFEPOINT = re.compile(r'^Safepoint "([^"]*)",.*Reaching safepoint: (\d+) ns,.*At safepoint: (\d+) ns')
_UNIT = {"B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


class GcLogError(ValueError):
    """The log cannot be read at all (missing file); one line for the user."""


@dataclass(frozen=True)
class Pause:
    gc_id: int
    kind: str  # one of KINDS
    what: str  # the JVM's words after "Pause", e.g. "Young (Normal) (G1 Evacuation Pause)"
    end_epoch_ms: float  # when the JVM logged the end of the pause
    uptime_s: float  # the JVM's uptime at that line
    duration_ms: float
    heap_before_bytes: int | None = None
    heap_after_bytes: int | None = None
    heap_capacity_bytes: int | None = None
    eden_before_regions: int | None = None  # G1 only
    eden_after_regions: int | None = None

    @property
    def start_epoch_ms(self) -> float:
        return self.end_epoch_ms - self.duration_ms

    @property
    def start_uptime_s(self) -> float:
        return self.uptime_s - self.duration_ms / 1000.0


@dataclass(frozen=True)
class Safepoint:
    operation: str  # the VM operation, e.g. "G1CollectForAllocation", "Cleanup"
    end_epoch_ms: float
    uptime_s: float
    reaching_ms: float  # time to bring every thread to the safepoint ("time to safepoint")
    at_safepoint_ms: float  # time the threads stood still at it

    @property
    def total_ms(self) -> float:
        return self.reaching_ms + self.at_safepoint_ms

    @property
    def start_epoch_ms(self) -> float:
        return self.end_epoch_ms - self.total_ms


@dataclass
class GcLog:
    path: Path
    pauses: list[Pause] = field(default_factory=list)
    safepoints: list[Safepoint] = field(default_factory=list)
    region_size_bytes: int | None = None  # G1's region size, None for other collectors
    collector: str | None = None  # from "Using G1", "Using Parallel", "Using The Z Garbage Collector"
    malformed: int = 0  # lines skipped because they did not parse


def _epoch_ms(stamp: str) -> float:
    # 2026-11-22T05:51:19.470+0000 (the "time" decoration, local time with its offset)
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000.0


def _bytes(number: str | None, unit: str | None) -> int | None:
    return int(number) * _UNIT[unit] if number is not None and unit is not None else None


def _kind(what: str, gen: str | None) -> str:
    if gen is not None or what.startswith(("Mark Start", "Mark End", "Relocate Start")):
        return "young" if gen in ("y", "Y") else "other"  # ZGC
    head = what.split(" ", 1)[0]
    if head == "Young":
        return "mixed" if what.startswith("Young (Mixed)") else "young"
    return {"Full": "full", "Remark": "remark", "Cleanup": "cleanup"}.get(head, "other")


def parse(path: str | Path) -> GcLog:
    """Read one unified JVM log; raises GcLogError if the file does not exist."""
    path = Path(path)
    if not path.is_file():
        raise GcLogError(f"{path}: no such GC log (the server writes it with -Xlog:gc*,safepoint:file=...)")
    log = GcLog(path)
    pauses: list[Pause] = []
    eden: dict[int, tuple[int, int]] = {}
    with path.open(encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            try:
                _line(line, log, pauses, eden)
            except ValueError:
                log.malformed += 1
    for p in pauses:
        before_after = eden.get(p.gc_id) if p.kind in ("young", "mixed") and log.region_size_bytes else None
        if before_after is not None:
            before, after = before_after
            p = replace(p, eden_before_regions=before, eden_after_regions=after)  # noqa: PLW2901
        log.pauses.append(p)
    return log


def _line(line: str, log: GcLog, pauses: list[Pause], eden: dict[int, tuple[int, int]]) -> None:
    """Take what one line says into ``log``/``pauses``/``eden``; ValueError when it does not parse."""
    d = _DECORATIONS.match(line)
    if d is None:
        raise ValueError(line)
    stamp, uptime, _level, tags, msg = d.groups()
    tags = tags.replace(" ", "")
    if tags == "safepoint" and msg.startswith("Safepoint "):
        log.safepoints.append(_safepoint(msg, stamp, float(uptime)))
    elif tags in ("gc", "gc,phases") and " Pause " in msg and _GC_ID.match(msg):
        if re.match(r"^GC\(\d+\)\s{2,}", msg):
            return  # a G1/Parallel sub-phase ("GC(3)   Pre Evacuate ..."), not a pause
        p = _pause(msg, stamp, float(uptime))
        if p is not None:
            pauses.append(p)
    elif tags == "gc,heap" and "Eden regions:" in msg:
        e = _EDEN.match(msg)
        if e is None:
            raise ValueError(msg)
        eden[int(e.group(1))] = (int(e.group(2)), int(e.group(3)))
    elif tags == "gc,init" and msg.startswith("Heap Region Size:"):
        r = _REGION_SIZE.match(msg)
        if r is None:
            raise ValueError(msg)
        log.region_size_bytes = _bytes(r.group(1), r.group(2))
    elif tags == "gc" and msg.startswith("Using "):
        log.collector = msg[len("Using ") :]


def _pause(msg: str, stamp: str, uptime: float) -> Pause | None:
    m = _PAUSE.match(msg)
    if m is None:
        # "GC(3) Pause Young (Normal) (G1 Evacuation Pause)" at the start of a pause carries no duration
        if re.match(r"^GC\(\d+\) (?:[yYO]: )?Pause [^\d]*$", msg):
            return None
        raise ValueError(msg)
    g = m.groups()
    return Pause(
        gc_id=int(m.group("id")),
        kind=_kind(m.group("what"), m.group("gen")),
        what=m.group("what").strip(),
        end_epoch_ms=_epoch_ms(stamp),
        uptime_s=uptime,
        duration_ms=float(m.group("ms")),
        heap_before_bytes=_bytes(g[3], g[4]),
        heap_after_bytes=_bytes(g[5], g[6]),
        heap_capacity_bytes=_bytes(g[7], g[8]),
    )


def _safepoint(msg: str, stamp: str, uptime: float) -> Safepoint:
    m = _SAFEPOINT.match(msg)
    if m is None:
        raise ValueError(msg)
    return Safepoint(
        operation=m.group(1),
        end_epoch_ms=_epoch_ms(stamp),
        uptime_s=uptime,
        reaching_ms=int(m.group(2)) / 1e6,
        at_safepoint_ms=int(m.group(3)) / 1e6,
    )
