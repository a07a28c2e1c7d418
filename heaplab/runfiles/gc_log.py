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
- the young generation's occupancy before and after each collection (heaplab.analysis.gc_alloc reads
allocation
  from it): G1's ``Eden regions`` plus ``Survivor regions: 2->4(4)`` times the region size, with its
  ``Humongous regions: 24->24`` kept apart; CMS's ``ParNew: 294912K->16801K(331776K)``, Serial's
  ``DefNew: ...`` and Parallel's ``PSYoungGen: 16384K(18944K)->1344K(18944K)`` (JDK 17; JDK 11 writes
  ``PSYoungGen: 16384K->1344K(18944K)``), each attached to the pause of its GC id;
- the safepoint lines, ``Safepoint "G1CollectForAllocation", ..., Reaching safepoint: N ns, ...,
  At safepoint: N ns, ...`` (JDK 17 and 21+ differ only in the fields between); JDK 11's pair
  ``Entering safepoint region: GenCollectForAllocation`` ... ``Total time for which application threads
  were stopped: A seconds, Stopping threads took: B seconds``;
- CMS on JDK 11: ``Pause Young (Allocation Failure)`` (ParNew), ``Pause Initial Mark``, ``Pause Remark``,
  ``Pause Full (...)``, and the concurrent phases ``GC(50) Concurrent Mark 14.406ms`` (time the collector
  ran beside the application, not a pause).  A **concurrent-mode failure** is a full collection that cuts
  a concurrent cycle short: JDK 11 says so only at debug level (``GC(48) Concurrent mode failure``, taken
  when present), so at info level it is a ``Pause Full`` (not asked for by System.gc(), jcmd or a heap
  dump, which the JVM calls an interruption) while a cycle is under way (its ``Pause Initial Mark`` logged,
  its ``Concurrent Sweep`` not yet ended when the full pause's ``gc,start`` line came: the reset after the
  sweep no longer counts, a sweep that ends while the full collection waits for it still does).  When a
  young collection's promotion fails, the Serial and CMS collectors run the full collection inside the
  young pause (the young pause's time includes it); the two lines are one stop of the application, kept
  as one ``full`` pause with the young pause's start and duration.

A line without the decorations, or a pause or safepoint line whose numbers do not parse, is skipped and
counted in ``GcLog.malformed`` (a crashed JVM can leave a half-written last line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from heaplab.runfiles import rawlogs
from heaplab.runfiles.gc_records import ConcurrentPhase, GcLog, GcLogError, Pause, Safepoint

GC_LOG = "gc-regionserver.log"

# Kinds of pause: young, mixed (G1), full, initial-mark (CMS), remark (G1 and CMS), cleanup (G1's
# concurrent cycle), other (ZGC's pauses of a non-generational or an old-generation cycle: short
# root-scanning pauses, neither young nor full).
KINDS = ("young", "mixed", "full", "initial-mark", "remark", "cleanup", "other")
CMS = "Concurrent Mark Sweep"  # the collector's name in "Using Concurrent Mark Sweep"
# Collectors whose young pause holds the full collection it falls back to (GenCollectedHeap).
_NESTING_COLLECTORS = ("Serial", CMS)
# A full collection someone asked for: the JVM counts it as an interruption of a concurrent cycle, not a
# failure (GCCause: System.gc(), jcmd GC.run, JVMTI, jmap -histo, jmap -dump).
_REQUESTED = (
    "System.gc()",
    "Diagnostic Command",
    "JvmtiEnv ForceGarbageCollection",
    "Heap Inspection",
    "Heap Dump",
)

_DECORATIONS = re.compile(r"^\[([^\]]+)\]\[([\d.]+)s\]\[(\w+)\s*\]\[([\w, ]+?)\s*\] ?(.*)$")
_GC_ID = re.compile(r"^GC\((\d+)\) ")
_SIZE = r"(\d+)([BKMGT])"
_PAUSE = re.compile(
    r"^GC\((?P<id>\d+)\) (?:(?P<gen>[yYO]): )?Pause (?P<what>.*?)"
    rf"(?: {_SIZE}->{_SIZE}\({_SIZE}\))? (?P<ms>\d+(?:\.\d+)?)ms$"
)
_REGIONS = re.compile(r"^GC\((\d+)\) (Eden|Survivor|Humongous) regions: (\d+)->(\d+)(?:\((\d+)\))?$")
# CMS "ParNew: 294912K->16801K(331776K)", Serial "DefNew: ...", Parallel (JDK 17) "PSYoungGen:
# 16384K(18944K)->1344K(18944K) Eden: ..." (JDK 11: no capacity before the arrow)
_YOUNG_GEN = re.compile(
    r"^GC\((\d+)\) (?:ParNew|DefNew|PSYoungGen): (\d+)K(?:\(\d+K\))?->(\d+)K\(\d+K\)(?: .*)?$"
)
_REGION_SIZE = re.compile(r"^Heap [Rr]egion [Ss]ize: (\d+)([BKMGT])$")  # JDK 11: "Heap region size: 1M"
_SAFEPOINT = re.compile(r'^Safepoint "([^"]*)",.*Reaching safepoint: (\d+) ns,.*At safepoint: (\d+) ns')
_SAFEPOINT_11 = re.compile(
    r"^Total time for which application threads were stopped: ([\d.]+) seconds, "
    r"Stopping threads took: ([\d.]+) seconds"
)
# "GC(50) Concurrent Mark 14.406ms"; not CMS's debug "GC(9) Concurrent active time: 0.005ms"
_CONCURRENT = re.compile(
    r"^GC\((?P<id>\d+)\) (?:[yYO]: )?Concurrent (?P<what>[A-Za-z ]+?) (?P<ms>\d+(?:\.\d+)?)ms$"
)
_CMS_FAILURE = re.compile(r"^GC\((\d+)\) Concurrent mode failure$")  # debug level only
_UNIT = {"B": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}


@dataclass
class _Reading:
    """What parse() carries from line to line."""

    pauses: list[Pause] = field(default_factory=list)
    eden: dict[int, tuple[int, int]] = field(default_factory=dict)
    regions: dict[int, dict[str, tuple[int, int, int]]] = field(default_factory=dict)  # G1, per GC id
    young: dict[int, tuple[int, int]] = field(default_factory=dict)  # bytes before and after
    safepoint_operation: str = "?"  # JDK 11: the last "Entering safepoint region: <operation>"
    cms_cycle: int | None = None  # the GC id of the CMS concurrent cycle under way
    full_in_cycle: dict[int, bool] = field(default_factory=dict)  # a full pause's id: cycle open at its start
    cms_failures: set[int] = field(default_factory=set)  # GC ids of debug "Concurrent mode failure" lines


def _epoch_ms(stamp: str) -> float:
    # 2026-11-22T05:51:19.470+0000 (the "time" decoration, local time with its offset); the line's pattern
    # has checked the form, and fromisoformat (Python 3.11+) reads it as strptime does, in a tenth of the time
    return datetime.fromisoformat(stamp).timestamp() * 1000.0


def _bytes(number: str | None, unit: str | None) -> int | None:
    return int(number) * _UNIT[unit] if number is not None and unit is not None else None


def _kind(what: str, gen: str | None) -> str:
    if gen is not None or what.startswith(("Mark Start", "Mark End", "Relocate Start")):
        return "young" if gen in ("y", "Y") else "other"  # ZGC
    head = what.split(" ", 1)[0]
    if what.startswith("Initial Mark"):
        return "initial-mark"  # CMS
    if head == "Young":
        return "mixed" if what.startswith("Young (Mixed)") else "young"
    return {"Full": "full", "Remark": "remark", "Cleanup": "cleanup"}.get(head, "other")


def parse(path: str | Path) -> GcLog:
    """Read one unified JVM log, plain or gzipped (``path`` or ``path.gz``, heaplab.runfiles.rawlogs); raises
    GcLogError if neither file exists."""
    found = rawlogs.locate(Path(path))
    if found is None:
        raise GcLogError(f"{path}: no such GC log (the server writes it with -Xlog:gc*,safepoint:file=...)")
    log = GcLog(found)
    reading = _Reading()
    with rawlogs.open_text(found) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            try:
                _line(line, log, reading)
            except ValueError:
                log.malformed += 1
    pauses = [_with_young(p, reading, log.region_size_bytes) for p in reading.pauses]
    if log.collector in _NESTING_COLLECTORS:
        pauses = _fold_nested(pauses)
    for p in pauses:
        before_after = (
            reading.eden.get(p.gc_id) if p.kind in ("young", "mixed") and log.region_size_bytes else None
        )
        if before_after is not None:
            before, after = before_after
            p = replace(p, eden_before_regions=before, eden_after_regions=after)  # noqa: PLW2901
        if p.kind == "full" and p.gc_id in reading.cms_failures:
            p = replace(p, concurrent_mode_failure=True)  # noqa: PLW2901
        log.pauses.append(p)
    return log


def _line(line: str, log: GcLog, reading: _Reading) -> None:
    """Take what one line says into ``log`` and ``reading``; ValueError when it does not parse."""
    d = _DECORATIONS.match(line)
    if d is None:
        raise ValueError(line)
    stamp, uptime, _level, tags, msg = d.groups()
    tags = tags.replace(" ", "")
    if tags == "safepoint":
        _safepoint_line(msg, stamp, float(uptime), log, reading)
    elif tags in ("gc", "gc,phases") and " Pause " in msg and _GC_ID.match(msg):
        if re.match(r"^GC\(\d+\)\s{2,}", msg):
            return  # a G1/Parallel sub-phase ("GC(3)   Pre Evacuate ..."), not a pause
        p = _pause(msg, stamp, float(uptime))
        if p is not None:
            reading.pauses.append(_cms_cycle(p, reading))
    elif tags == "gc,start" and " Pause Full" in msg and (g := _GC_ID.match(msg)):
        reading.full_in_cycle[int(g.group(1))] = reading.cms_cycle is not None
    elif tags in ("gc", "gc,phases") and " Concurrent " in msg and _GC_ID.match(msg):
        _concurrent_line(msg, stamp, float(uptime), log, reading)
    elif tags == "gc,heap" and " regions: " in msg and msg.split(" ", 2)[1] in _REGION_KINDS:
        _regions_line(msg, reading)
    elif tags == "gc,heap" and (y := _YOUNG_GEN.match(msg)):
        reading.young[int(y.group(1))] = (int(y.group(2)) * 1024, int(y.group(3)) * 1024)
    elif tags in ("gc,init", "gc,heap") and msg.lower().startswith("heap region size:"):
        r = _REGION_SIZE.match(msg)
        if r is None:
            raise ValueError(msg)
        log.region_size_bytes = _bytes(r.group(1), r.group(2))
    elif tags == "gc" and msg.startswith("Using "):
        log.collector = msg[len("Using ") :]


_REGION_KINDS = ("Eden", "Survivor", "Humongous")


def _regions_line(msg: str, reading: _Reading) -> None:
    """G1's ``GC(7) Eden regions: 27->0(37)``, ``Survivor regions: ...``, ``Humongous regions: 24->24``."""
    r = _REGIONS.match(msg)
    if r is None:
        raise ValueError(msg)
    gc_id, kind = int(r.group(1)), r.group(2)
    before, after, target = int(r.group(3)), int(r.group(4)), int(r.group(5) or r.group(4))
    reading.regions.setdefault(gc_id, {})[kind] = (before, after, target)
    if kind == "Eden":
        reading.eden[gc_id] = (before, after)


def _with_young(p: Pause, reading: _Reading, region_size: int | None) -> Pause:
    """The pause with the young generation's occupancy its GC id logged (and G1's humongous regions)."""
    if p.gc_id in reading.young:
        before, after = reading.young[p.gc_id]
        return replace(p, young_before_bytes=before, young_after_bytes=after)
    regions = reading.regions.get(p.gc_id, {})
    if not region_size or "Eden" not in regions or "Survivor" not in regions:
        return p
    (eb, ea), (sb, sa) = regions["Eden"][:2], regions["Survivor"][:2]
    humongous = regions.get("Humongous")
    return replace(
        p,
        young_before_bytes=(eb + sb) * region_size,
        young_after_bytes=(ea + sa) * region_size,
        humongous_before_bytes=humongous[0] * region_size if humongous else None,
        humongous_after_bytes=humongous[1] * region_size if humongous else None,
    )


def _safepoint_line(msg: str, stamp: str, uptime: float, log: GcLog, reading: _Reading) -> None:
    if msg.startswith("Safepoint "):  # JDK 17+
        log.safepoints.append(_safepoint(msg, stamp, uptime))
    elif msg.startswith("Entering safepoint region: "):  # JDK 11: the operation, before its total
        reading.safepoint_operation = msg[len("Entering safepoint region: ") :].strip()
    elif msg.startswith("Total time for which application threads were stopped"):
        m = _SAFEPOINT_11.match(msg)
        if m is None:
            raise ValueError(msg)
        total_ms, reaching_ms = float(m.group(1)) * 1000.0, float(m.group(2)) * 1000.0
        operation, reading.safepoint_operation = reading.safepoint_operation, "?"
        log.safepoints.append(
            Safepoint(operation, _epoch_ms(stamp), uptime, reaching_ms, max(total_ms - reaching_ms, 0.0))
        )


def _concurrent_line(msg: str, stamp: str, uptime: float, log: GcLog, reading: _Reading) -> None:
    """A concurrent phase's end (its start line has no duration), or CMS's debug failure line."""
    if m := _CMS_FAILURE.match(msg):
        reading.cms_failures.add(int(m.group(1)))
        return
    m = _CONCURRENT.match(msg)
    if m is None:
        return  # the phase's start line ("GC(50) Concurrent Mark"), or words without a duration
    gc_id, what = int(m.group("id")), m.group("what").strip()
    log.concurrent.append(ConcurrentPhase(gc_id, what, _epoch_ms(stamp), uptime, float(m.group("ms"))))
    if what in ("Sweep", "Reset") and reading.cms_cycle == gc_id:
        # JDK 11 leaves the sweeping state for "resizing" right after the sweep's end line; a full
        # collection that starts while the cycle resizes or resets is not a concurrent-mode failure (the
        # JVM reports one only for a cycle past "idling": CMSCollector::acquire_control_and_collect)
        reading.cms_cycle = None


def _cms_cycle(p: Pause, reading: _Reading) -> Pause:
    """Follow CMS's concurrent cycle: opened by its initial mark, cut short by a full pause."""
    if p.kind == "initial-mark":
        reading.cms_cycle = p.gc_id
    elif p.kind == "full":
        # what counts is the cycle's state when the full collection started: a sweep can log its end
        # while the full collection waits for it to yield, and the collection still cuts the cycle short
        in_cycle = reading.full_in_cycle.get(p.gc_id, reading.cms_cycle is not None)
        reading.cms_cycle = None  # the full collection abandons the cycle
        if in_cycle and not any(cause in p.what for cause in _REQUESTED):
            return replace(p, concurrent_mode_failure=True)
    return p


def _fold_nested(pauses: list[Pause]) -> list[Pause]:
    """One pause for a young pause and the full pause inside it (Serial, CMS: promotion failed).

    The young line comes last (its timer holds the full collection); the full pause's start and end lie
    within the young one's, up to the 1 ms resolution of the time decoration.
    """
    out: list[Pause] = []
    for p in pauses:
        inner = out[-1] if out else None
        if (
            p.kind == "young"
            and inner is not None
            and inner.kind == "full"
            and inner.duration_ms <= p.duration_ms
            and inner.start_epoch_ms >= p.start_epoch_ms - 1.0
            and inner.end_epoch_ms <= p.end_epoch_ms + 1.0
        ):
            out[-1] = replace(
                inner,
                what=f"{inner.what} within GC({p.gc_id}) Young",
                end_epoch_ms=p.end_epoch_ms,
                uptime_s=p.uptime_s,
                duration_ms=p.duration_ms,
                # the young line ("ParNew: 14784K->0K") is logged under the young pause's id
                young_before_bytes=p.young_before_bytes,
                young_after_bytes=p.young_after_bytes,
            )
        else:
            out.append(p)
    return out


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
