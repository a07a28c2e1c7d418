"""What a parsed unified GC log holds (heaplab.runfiles.gc_log reads one): its pauses, safepoints and
concurrent phases."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


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
    young_before_bytes: int | None = None  # eden + survivors, any collector that logs them
    young_after_bytes: int | None = None
    humongous_before_bytes: int | None = None  # G1 only: humongous regions x region size
    humongous_after_bytes: int | None = None
    concurrent_mode_failure: bool = False  # CMS: this full pause cut a concurrent cycle short

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


@dataclass(frozen=True)
class ConcurrentPhase:
    """A phase the collector ran beside the application (CMS, G1, ZGC), from its end line."""

    gc_id: int
    what: str  # e.g. "Mark", "Preclean", "Abortable Preclean", "Sweep", "Reset"
    end_epoch_ms: float
    uptime_s: float
    duration_ms: float


@dataclass
class GcLog:
    path: Path
    pauses: list[Pause] = field(default_factory=list)
    safepoints: list[Safepoint] = field(default_factory=list)
    region_size_bytes: int | None = None  # G1's region size, None for other collectors
    collector: str | None = None  # from "Using G1", "Using Parallel", "Using The Z Garbage Collector"
    malformed: int = 0  # lines skipped because they did not parse
    concurrent: list[ConcurrentPhase] = field(default_factory=list)

    @property
    def concurrent_mode_failures(self) -> list[Pause]:
        """The full pauses that cut a CMS concurrent cycle short (see the module docstring)."""
        return [p for p in self.pauses if p.concurrent_mode_failure]
