"""Each handout states its graded notebook's points as its questions.yml adds them up: the "At a glance"
line and the Deliverable section (no figure typed by hand that the questions do not give)."""

from __future__ import annotations

import re

import pytest
import yaml

from heaplab.lab.spec import list_labs
from heaplab.tests.conftest import REPO

LABS = [p.parent.name for p in list_labs(REPO) if (p.parent / "questions.yml").is_file()]
POINTS = re.compile(
    r"graded notebook \((?P<n>[\d.]+) points\)|\*\*Graded questions\*\* \((?P<m>[\d.]+) points\)"
)


@pytest.mark.parametrize("lab", LABS)
def test_the_handout_states_the_questions_points(lab: str) -> None:
    raw = yaml.safe_load((REPO / "labs" / lab / "questions.yml").read_text(encoding="utf-8"))
    total = sum(float(q["points"]) for q in [*(raw.get("auto") or []), *(raw.get("manual") or [])])
    text = " ".join((REPO / "labs" / lab / "README.md").read_text(encoding="utf-8").split())
    stated = [float(m["n"] or m["m"]) for m in POINTS.finditer(text)]
    assert stated, f"labs/{lab}/README.md states no points"
    assert all(n == total for n in stated), (lab, stated, total)
