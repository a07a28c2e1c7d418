"""Regions of a document that a command writes: the lines between a begin marker and its end marker.

Used by `heaplab verdicts --write` (heaplab.report.verdict_table) and `heaplab alloc-stages --write`
(heaplab.report.alloc_docs): each rewrites the content of its own regions and leaves every other line alone.
"""

from __future__ import annotations

from collections.abc import Callable


def rewrite(
    text: str,
    begin: str,
    end: str,
    fill: Callable[[str, str], str],
    *,
    where: str,
    error: Callable[[str], Exception],
) -> str:
    """``text`` with the content of every region made anew by ``fill(begin line, "where:line")``.

    A region starts at a line beginning with ``begin`` and ends at the next line that is ``end``; a region
    with no end before the next begin marker or the end of the file raises ``error`` with its place."""
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        out.append(line)
        i += 1
        if not line.startswith(begin):
            continue
        at = f"{where}:{i}"
        stop = next(
            (j for j in range(i, len(lines)) if lines[j].startswith(begin) or lines[j].strip() == end), None
        )
        if stop is None or lines[stop].startswith(begin):
            raise error(f"{at}: the region has no {end!r} before the next begin or the end of the file")
        out.append(fill(line, at) + "\n")
        out.append(lines[stop])
        i = stop + 1
    return "".join(out)
