"""What `heaplab run` is asked to do (its options, the order of its variants) and how it ends (exit codes)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from heaplab.runfiles.rundir import Run

EXIT_OK = 0


EXIT_FAILED = 1


EXIT_INTERRUPTED = 130


ORDER_RANDOM = "random"  # `--order random` (default): each repeat's own permutation, drawn from the seed


ORDER_FIXED = "fixed"  # `--order fixed`: the spec's order, every repeat


ORDERS = (ORDER_RANDOM, ORDER_FIXED)


class RunSetupError(RuntimeError):
    """Something needed before any variant can run is missing; the message is one line for the user."""


@dataclass(frozen=True)
class RunOptions:
    root: Path
    scale: str
    inventory: Path
    runs_dir: Path
    command: str
    out: Callable[[str], None] = print
    java_home: str | None = None  # `--java-home`, heaplab_java_home for every host
    profile: list[str] | None = None  # `--profile`, async-profiler events
    series: dict[str, Any] | None = None  # repeats of one command: {id, index, of} (heaplab.runfiles.series)
    size_local: bool = True  # `local` scale sized from this machine (heaplab.lab.sizing)
    variants: tuple[str, ...] = ()  # `--variant`: run only these (empty: every variant)
    student: dict[str, str] | None = None  # `--student`: {id, seed} (heaplab.run.student)
    facts_cache: str | None = None  # a run's ansible fact cache (run_lab makes one per run)
    aa: str | None = None  # `--aa VARIANT`: VARIANT and its twin only, the A/A claims (heaplab.lab.aa)
    order: str = ORDER_RANDOM  # `--order`: the variants' order in each run (variant_order)
    order_seed: int | None = None  # `--order-seed`, one per series (None: derived from the run's name)
    # Called when the last variant has ended, before run.json's final write, with the run as it ends
    # (in memory); returns run.json fields to set (`--repeat auto` records its decision in ``series``).
    before_close: Callable[[Run], dict[str, Any]] | None = None


def utc_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")


def iso(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).isoformat(timespec="seconds").replace("+00:00", "Z")


def default_order_seed(series_id: str) -> int:
    """The order seed of a series that `--order-seed` does not give: drawn from its id (lab, scale, UTC)."""
    return int(hashlib.sha256(series_id.encode("utf-8")).hexdigest()[:8], 16)


def variant_order(names: Sequence[str], seed: int | None, index: int) -> list[str]:
    """The order in which the variants ``names`` run in repeat ``index`` (1, 2, ...) of a series: a
    permutation drawn from the series' ``seed`` and ``index`` alone, so each repeat has its own and any can
    be drawn again from run.json; ``seed`` None: ``names`` as given (`--order fixed`)."""
    order = list(names)
    if seed is not None:
        random.Random(f"heaplab-order:{seed}:{index}").shuffle(order)  # noqa: S311 (an order, no secret)
    return order
