"""The student edition of a handout leaves out what answers its questions ("What we measured", with its
subsections) and keeps everything else (heaplab.course.handouts)."""

from __future__ import annotations

import pytest

from heaplab.course.handouts import student_edition
from heaplab.lab.spec import list_labs
from heaplab.tests.conftest import REPO

HANDOUT = """# Lab 99

## Parts

Run it:

```bash
# What we measured is not a heading inside a code block
heaplab run 99-lab
```

### What we measured

P99.9 went from 200 to 65 ms: **reproduced**.

#### On Apache HBase

0.94x, inconclusive.

### Hints

Look at the timeline.

## What we measured (the 2-core VM)

The answer again.
"""


def test_the_measured_sections_go_and_everything_else_stays() -> None:
    student = student_edition(HANDOUT)
    assert "200 to 65 ms" not in student and "0.94x" not in student and "The answer again" not in student
    assert "# What we measured is not a heading inside a code block\nheaplab run 99-lab" in student
    assert "### Hints\n\nLook at the timeline." in student
    assert student.count("_Left out of the student edition") == 2
    assert student.startswith("# Lab 99\n\n## Parts\n")


@pytest.mark.parametrize("lab", [p.parent.name for p in list_labs(REPO)])
def test_every_handouts_student_edition_hides_its_reference_numbers(lab: str) -> None:
    handout = (REPO / "labs" / lab / "README.md").read_text(encoding="utf-8")
    student = student_edition(handout)
    sections = [line for line in handout.splitlines() if line.startswith("## ")]
    kept = [line for line in sections if "What we measured" not in line]
    assert kept and all(f"\n{line}\n" in student for line in kept), lab  # every other section stays
    assert "What we measured" in handout and "_Left out of the student edition" in student, lab
    assert len(student) < len(handout), lab
