"""Read a server's GC pauses, ``<variant>/server/<host>/gc-events.jsonl`` (docs/contracts.md section 4).

Decodes what the engine server appends from the JVM's GC notifications: one JSON object per pause with
``start_epoch_ms``, ``duration_ms``, ``collector``, ``cause``, ``young`` ...  Analysis uses these
events rather than scraping gc.log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

GC_EVENTS = "gc-events.jsonl"


@dataclass(frozen=True)
class GcEvent:
    host: str
    start_epoch_ms: float
    duration_ms: float
    collector: str
    cause: str
    young: bool
    uptime_ms: float | None = None  # the JVM's uptime at the pause (gc_stats lines it up with the GC log)


@dataclass(frozen=True)
class YoungGcStats:
    count: int
    avg_pause_ms: float | None  # None when no young GC happened in the window
    rate_per_s: float  # per server: count / (window seconds x servers)
    window_s: float
    servers: int


def load_gc_events(path: Path, host: str) -> list[GcEvent]:
    events = []
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                events.append(
                    GcEvent(
                        host=host,
                        start_epoch_ms=float(raw["start_epoch_ms"]),
                        duration_ms=float(raw["duration_ms"]),
                        collector=str(raw.get("collector", "")),
                        cause=str(raw.get("cause", "")),
                        young=bool(raw.get("young", False)),
                        uptime_ms=float(raw["uptime_ms"]) if "uptime_ms" in raw else None,
                    )
                )
            except (ValueError, KeyError) as e:
                raise ValueError(f"{path}:{lineno}: bad GC event: {e}") from e
    return events


def in_window(events: list[GcEvent], start_ms: float, end_ms: float) -> list[GcEvent]:
    """Events whose pause started inside [start_ms, end_ms] (both ends inclusive)."""
    return [e for e in events if start_ms <= e.start_epoch_ms <= end_ms]


def young_gc_stats(events: list[GcEvent], start_ms: float, end_ms: float, servers: int) -> YoungGcStats:
    """Young-GC count, mean pause and rate over the measured window.

    With several region servers the rate is per server (the articles report one server's rate).
    """
    young = [e for e in in_window(events, start_ms, end_ms) if e.young]
    window_s = max(end_ms - start_ms, 0.0) / 1000.0
    servers = max(servers, 1)
    avg = sum(e.duration_ms for e in young) / len(young) if young else None
    rate = len(young) / (window_s * servers) if window_s > 0 else 0.0
    return YoungGcStats(len(young), avg, rate, window_s, servers)
