"""`heaplab verdicts`: claims by verdict level per article, from reported runs."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.tests.fabricate import Shape
from heaplab.verdict import LEVELS
from heaplab.verdict_table import tally, to_markdown


def test_tally_counts_every_claim_of_the_newest_report_per_lab(
    make_pair: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20260101T000000Z")
    new = make_pair(Shape(), Shape(young_gcs=0), name="runs/03-offheap-write-ci-20260102T000000Z")
    for run in (old, new):
        assert main(["report", str(run)]) == 0
    table = tally([new, old])
    claims = json.loads((new / "claims.json").read_text())["claims"]
    assert list(table) == ["HBase 2.0 end-to-end off-heap"]  # lab 03's one article
    row = table["HBase 2.0 end-to-end off-heap"]
    assert sum(row.values()) == len(claims)
    for level in LEVELS:
        assert row[level] == sum(1 for c in claims.values() if c["verdict"] == level)
    assert main(["verdicts", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert to_markdown(table) in out and "| HBase 2.0 end-to-end off-heap |" in out


def test_a_run_without_a_report_is_one_clear_error(
    make_pair: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20260103T000000Z")
    assert main(["verdicts", str(run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no claims.json" in err
