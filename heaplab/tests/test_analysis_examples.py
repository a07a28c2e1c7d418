"""The worked examples of docs/analysis.md ("Verdicts") quote the committed reference series: each
example's interval and label must be what the series' claims.json says (no figure typed by hand)."""

from __future__ import annotations

import json
import re

import pytest

from heaplab.tests.conftest import REPO

EXAMPLE = re.compile(
    r"^- \*(?P<lab>\d\d-[a-z0-9-]+), (?P<claim>[a-z0-9@.-]+)\*(?P<text>.*?)(?=^- \*|^\n)", re.M | re.S
)
INTERVAL = re.compile(r"(?P<mean>[\d.]+)x \[(?P<low>[\d.]+), (?P<high>[\d.]+)\]")
LABEL = re.compile(r"`(?P<label>[a-z ]+)`")


def _examples() -> list[tuple[str, str, str]]:
    text = (REPO / "docs/analysis.md").read_text(encoding="utf-8")
    section = text.split("Worked examples", 1)[1]
    return [(m["lab"], m["claim"], m["text"]) for m in EXAMPLE.finditer(section)]


def _claims(lab: str) -> dict:
    newest = sorted((REPO / "results/reference").glob(f"{lab}-local-*/claims.json"))[-1]
    return json.loads(newest.read_text(encoding="utf-8"))["claims"]


def _g3(x: float) -> str:
    return f"{x:.3g}"


def test_there_are_worked_examples() -> None:
    assert len(_examples()) >= 4


@pytest.mark.parametrize(("lab", "claim", "text"), _examples(), ids=lambda x: str(x)[:40])
def test_example_quotes_its_series(lab: str, claim: str, text: str) -> None:
    c = _claims(lab)[claim]
    labels = LABEL.findall(" ".join(text.split()))
    assert labels and labels[-1] == c["verdict"], (claim, labels, c["verdict"])
    found = INTERVAL.search(" ".join(text.split()))
    if found is None:  # a check quoted as "0 in every run"
        assert c["low"] == c["high"] == 0, claim
        return
    quoted = (found["mean"], found["low"], found["high"])
    assert quoted == (_g3(c["mean"]), _g3(c["low"]), _g3(c["high"])), (claim, quoted)
