"""Student and instructor editions of a lab's handout (labs/<lab>/README.md), for `heaplab course build`.

The repository's handout is the instructor's edition: it has everything, including the sections that
report what the reference runs measured ("What we measured"), which answer the lab's questions. The
student edition is the same text without those sections: a section ends at the next heading of its
level or higher, so its subsections go with it.
"""

from __future__ import annotations

import re

INSTRUCTOR_ONLY = re.compile(r"what we measured", re.IGNORECASE)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def student_edition(handout: str) -> str:
    """The handout without its instructor-only sections, with a line saying that they were left out."""
    kept: list[str] = []
    dropping_at: int | None = None  # the level of the section being left out
    fenced = False
    for line in handout.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            level = len(heading.group(1))
            if dropping_at is not None and level <= dropping_at:
                dropping_at = None
            if dropping_at is None and INSTRUCTOR_ONLY.search(heading.group(2)):
                dropping_at = level
                kept.append(
                    f"{heading.group(1)} {heading.group(2)}\n\n"
                    "_Left out of the student edition: your instructor has the reference runs' results._\n\n"
                )
                continue
        if dropping_at is None:
            kept.append(line)
    return "".join(kept)
