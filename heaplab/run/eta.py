"""How long the rest of a run will take, from the variants it has run so far.

An Apache HBase variant takes two to three times an engine variant (a JVM cluster to start, a slower
server), so each remaining variant is estimated by the mean duration of the finished ones of its own
kind (its ``server`` and HBase version), or of all finished ones while none of its kind has run yet.
"""

from __future__ import annotations


def minutes_left(done: list[tuple[str, float]], remaining: list[str]) -> float | None:
    """``done``: (kind, seconds) of each finished variant; ``remaining``: the kinds still to run. None
    before the first variant has finished (nothing to go by)."""
    if not done:
        return None
    overall = sum(s for _, s in done) / len(done)
    by_kind: dict[str, list[float]] = {}
    for kind, seconds in done:
        by_kind.setdefault(kind, []).append(seconds)
    left = sum(sum(by_kind[k]) / len(by_kind[k]) if k in by_kind else overall for k in remaining)
    return left / 60.0


def progress_line(name: str, seconds: float, elapsed_s: float, left_min: float | None) -> str:
    """``[v] done in 3 min 5 s; 12 min so far, about 20 min left`` (the estimate's basis is the module's)."""
    took = f"{int(seconds // 60)} min {int(seconds % 60)} s" if seconds >= 60 else f"{seconds:.0f} s"
    line = f"[{name}] done in {took}; {elapsed_s / 60:.0f} min so far"
    if left_min is None or left_min <= 0:
        return line
    return f"{line}, about {max(left_min, 1):.0f} min left"
