"""What to type after an interrupted run: the same command again, or only the variants it did not finish.

run.json records the command line of the run (``command``). Rerunning it starts a new run directory from
scratch (an interrupted run is never continued: its half-measured variant would mix two server lifetimes).
The variants that did not finish can also run on their own with ``--variant`` (heaplab.run.runner
mark_unselected): a run of its own, whose claims that need the other variants are not measurable.
"""

from __future__ import annotations

import shlex
from typing import Any


def _without_variant_options(words: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--variant":
            skip = True
        elif not word.startswith("--variant="):
            kept.append(word)
    return kept


def resume_command(command: str, lab: str, remaining: list[str]) -> str | None:
    """``command`` with ``--variant`` for each of ``remaining`` instead of its own, or None when it cannot be
    said that way: no variant left, not a ``heaplab run <lab>`` command line (``heaplab run all``)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if not remaining or "run" not in words or lab not in words[words.index("run") + 1 :]:
        return None
    asked = [w for name in remaining for w in ("--variant", name)]
    return shlex.join(_without_variant_options(words) + asked)


def hints(command: str, lab: str, variants: dict[str, dict[str, Any]]) -> list[str]:
    """The lines ``heaplab run`` prints after an interrupt; ``variants`` as in run.json (the interrupted
    ones did not finish)."""
    lines = [f"to run it again from the start: {command}"]
    remaining = [name for name, entry in variants.items() if entry.get("status") == "interrupted"]
    resume = resume_command(command, lab, remaining)
    if resume is not None:
        left = ", ".join(remaining)
        lines.append(f"or only the variants it did not finish ({left}), as a run of their own: {resume}")
    return lines
