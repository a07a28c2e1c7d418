"""Where the garbage comes from: a collapsed alloc profile's bytes grouped by the stage of a request.

A collapsed profile (heaplab/run/alloc_profiles.py cuts one per measured phase out of a region server's
recording) has one line per distinct stack: the frames from the thread's root to the allocated class,
separated by ``;``, then the bytes allocated there. Each stack gets one stage of
heaplab/analysis/alloc_stage_rules.py, by this precedence:

1. a background stage (flush/compaction) takes the stack when any of its frames matches: that work calls
   the same cell, scanner and block code a request does, but its bytes are no request's;
2. otherwise the matching frame nearest the allocation decides (the allocated class itself, the last
   frame, is no frame of code and never matches): a ``KeyValue`` made inside the decoding
   of a request is a cell copy, a buffer grown inside the WAL's writer is the WAL's;
3. only when no frame of the subject's own matches, the library frames of the fallback rules decide the
   same way (Netty's event loop reads requests but also writes responses, protobuf parses requests but
   also builds responses: their frames say less than a frame of the server's own code);
4. a frame matched by patterns of two stages takes the stage of the longer (more specific) pattern;
5. a stack no pattern matches is ``other``: its share says how much of the table the rules explain.

Bytes per operation divide by the phase's completed operations (rows, as heaplab.analysis.mechanism counts
them).
"""

from __future__ import annotations

import gzip
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from heaplab.analysis.alloc_stage_rules import BACKGROUND, FALLBACK, FAMILIES, OTHER, OWN_CODE, RULES, STAGES

# async-profiler marks a frame's kind with a suffix: _[j] JIT-compiled, _[i] inlined, _[0] interpreted,
# _[1] C1-compiled, _[k] kernel; the allocated class of an alloc sample may carry _[i] or _[k] too.
_SUFFIX = re.compile(r"_\[[a-z0-9]\]$")
TOP_SITES = 3


class ProfileError(ValueError):
    """A file that is not a collapsed profile (one line for the user)."""


@dataclass(frozen=True)
class Stack:
    frames: tuple[str, ...]  # root first, the allocated class last; dotted names, no kind suffix
    bytes: int


def frame_name(raw: str) -> str:
    """``org/heaplab/core/cell/KeyValue.<init>_[j]`` -> ``org.heaplab.core.cell.KeyValue.<init>``."""
    return _SUFFIX.sub("", raw).replace("/", ".")


def parse_collapsed(lines: Iterable[str], where: str = "profile") -> list[Stack]:
    """The stacks of a collapsed profile's lines (``frame;frame;...;frame BYTES``)."""
    stacks: list[Stack] = []
    for n, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        frames, _, count = line.rpartition(" ")
        if not frames or not count.isdigit():
            raise ProfileError(f"{where}:{n}: not a collapsed stack line (frames;... COUNT): {line[:80]!r}")
        stacks.append(Stack(tuple(frame_name(f) for f in frames.split(";")), int(count)))
    return stacks


def read_collapsed(path: Path) -> list[Stack]:
    """A collapsed profile, plain or gzipped (``.gz``)."""
    opener = gzip.open if path.name.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:  # type: ignore[operator]
            return parse_collapsed(f, str(path))
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(f"{path}: cannot read: {e}") from e


def detect_family(stacks: Sequence[Stack]) -> str:
    """The subject family whose own code holds more of the bytes' frames (engine or apache-hbase)."""
    weight = dict.fromkeys(FAMILIES, 0)
    for s in stacks:
        for family in FAMILIES:
            if any(f.startswith(OWN_CODE[family]) for f in s.frames):
                weight[family] += s.bytes
    return max(FAMILIES, key=lambda family: weight[family])


class Classifier:
    """Stacks -> stages for one subject family (rules: stage -> frame patterns)."""

    def __init__(
        self,
        family: str,
        rules: dict[str, tuple[str, ...]] | None = None,
        fallback: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        if family not in RULES and rules is None:
            raise ProfileError(f"unknown subject family {family!r}; known: {', '.join(FAMILIES)}")
        self.family = family
        self.rules = rules if rules is not None else RULES[family]
        self.fallback = fallback if fallback is not None else FALLBACK.get(family, {})
        unknown = (set(self.rules) | set(self.fallback)) - set(STAGES)
        if unknown:
            raise ProfileError(f"rules name unknown stages: {', '.join(sorted(unknown))}")
        self._patterns = _longest_first(self.rules)
        self._fallback = _longest_first(self.fallback)
        self._cache: dict[str, tuple[str | None, str | None]] = {}

    def frame_stage(self, frame: str) -> tuple[str | None, str | None]:
        """(the stage the rules give a frame, the stage the fallback rules give it); None: no match."""
        if frame not in self._cache:
            self._cache[frame] = (
                next((stage for p, stage in self._patterns if p in frame), None),
                next((stage for p, stage in self._fallback if p in frame), None),
            )
        return self._cache[frame]

    def stage_of(self, frames: Sequence[str]) -> str:
        """The stack's stage by the precedence of the module's docstring."""
        found = [self.frame_stage(f) for f in frames[:-1]]  # the last frame is what was allocated
        own = [stage for stage, _ in found]
        for background in BACKGROUND:
            if background in own:
                return background
        deepest = next((s for s in reversed(own) if s is not None), None)
        if deepest is None:
            deepest = next((s for _, s in reversed(found) if s is not None), None)
        return deepest or OTHER

    def site_of(self, frames: Sequence[str]) -> str:
        """Where the bytes were allocated: the nearest frame of the subject's own code and the class."""
        allocated = frames[-1] if frames else "?"
        own = OWN_CODE.get(self.family, ())
        caller = next((f for f in reversed(frames[:-1]) if f.startswith(own)), None)
        caller = caller or (frames[-2] if len(frames) > 1 else "?")
        return f"{short(caller)} → {allocated}"


def _longest_first(rules: dict[str, tuple[str, ...]]) -> list[tuple[str, str]]:
    """(pattern, stage), longest pattern first: a frame's first hit is its most specific stage."""
    return sorted(
        ((p, stage) for stage, patterns in rules.items() for p in patterns), key=lambda x: -len(x[0])
    )


def short(frame: str) -> str:
    """``org.heaplab.core.cell.KeyValue.<init>`` -> ``KeyValue.<init>`` (class and method)."""
    parts = frame.split(".")
    return ".".join(parts[-2:]) if len(parts) > 2 else frame


@dataclass
class StageTable:
    """One profile's bytes by stage, the allocation sites of each, and the operations they served."""

    family: str
    operations: int
    by_stage: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    sites: dict[str, Counter[str]] = field(default_factory=lambda: {s: Counter() for s in STAGES})

    @property
    def total(self) -> int:
        return sum(self.by_stage.values())

    def per_op(self, stage: str) -> float:
        return self.by_stage[stage] / self.operations if self.operations > 0 else float("nan")

    def share(self, stage: str) -> float:
        return self.by_stage[stage] / self.total if self.total else 0.0


def classify(stacks: Sequence[Stack], operations: int, family: str | None = None) -> StageTable:
    """Group a profile's bytes by stage (``family`` None: detected from the frames)."""
    family = family or detect_family(stacks)
    classifier = Classifier(family)
    table = StageTable(family, operations)
    for s in stacks:
        stage = classifier.stage_of(s.frames)
        table.by_stage[stage] += s.bytes
        table.sites[stage][classifier.site_of(s.frames)] += s.bytes
    return table


# --- markdown ---------------------------------------------------------------------------------------


def _bytes(v: float) -> str:
    return "-" if math.isnan(v) else f"{v:,.0f}"  # NaN: no operations


def comparison_markdown(columns: Sequence[tuple[str, StageTable]]) -> str:
    """Bytes per operation per stage, one column per subject; the totals and the share left in other."""
    head = "| stage | " + " | ".join(label for label, _ in columns) + " |"
    rule = "|---|" + "---:|" * len(columns)
    lines = [head, rule]
    for stage in STAGES:
        lines.append(f"| {stage} | " + " | ".join(_bytes(t.per_op(stage)) for _, t in columns) + " |")
    totals = [_bytes(t.total / t.operations) if t.operations else "-" for _, t in columns]
    lines.append("| **total (B/op)** | " + " | ".join(f"**{v}**" for v in totals) + " |")
    lines.append("| other, share | " + " | ".join(f"{t.share(OTHER):.1%}" for _, t in columns) + " |")
    return "\n".join(lines)


def variant_markdown(table: StageTable, top: int = TOP_SITES) -> str:
    """One subject's table: bytes per operation and share per stage, with its top allocation sites."""
    lines = ["| stage | B/op | share | top allocation sites (share of the stage) |", "|---|---:|---:|---|"]
    for stage in STAGES:
        b = table.by_stage[stage]
        sites = table.sites[stage].most_common(top)
        shown = "; ".join(f"`{site}` {n / b:.0%}" for site, n in sites) if b else "-"
        lines.append(f"| {stage} | {_bytes(table.per_op(stage))} | {table.share(stage):.1%} | {shown} |")
    total = _bytes(table.total / table.operations) if table.operations else "-"
    lines.append(f"| **total** | **{total}** | 100% | {table.operations:,} operations |")
    return "\n".join(lines)
