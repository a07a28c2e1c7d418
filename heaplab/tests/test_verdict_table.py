"""`heaplab verdicts`: claims by verdict, a table per kind, from runs `heaplab report` judged.

The claims.json here is what this checkout's `heaplab report` writes (whatever its format); the tables
of format-3 files made by hand are in test_generated_tables.py.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.report.verdict_table import LEVELS_BY_KIND, tally, to_markdown
from heaplab.tests.fabricate import Shape


def _kind(claim: dict) -> str:
    kind = claim.get("kind") or "article"
    return "inference" if kind == "extension" else kind  # claims.json format 2's name of an inference


def test_tally_counts_every_claim_of_the_newest_report_per_lab(
    make_pair: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    old = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20260101T000000Z")
    new = make_pair(Shape(), Shape(young_gcs=0), name="runs/03-offheap-write-ci-20260102T000000Z")
    for run in (old, new):
        assert main(["report", str(run)]) == 0
    tables = tally([new, old])
    claims = json.loads((new / "claims.json").read_text())["claims"]
    assert set(tables) <= set(LEVELS_BY_KIND)
    assert sum(sum(row.values()) for t in tables.values() for row in t.rows.values()) == len(claims)
    for kind, table in tables.items():
        counted = sum(table.rows.values(), Counter())
        assert counted == Counter(c["verdict"] for c in claims.values() if _kind(c) == kind), kind
        assert {article for article, _ in table.rows} == {"HBase 2.0 end-to-end off-heap"}  # lab 03's one
    assert main(["verdicts", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert to_markdown(tables) in out and "| HBase 2.0 end-to-end off-heap | engine |" in out


def test_a_run_without_a_report_is_one_clear_error(
    make_pair: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    run = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20260103T000000Z")
    assert main(["verdicts", str(run)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no claims.json" in err


def test_verdicts_without_runs_or_a_mode_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verdicts"]) == 2
    assert "name the runs" in capsys.readouterr().err
    assert main(["verdicts", "--check", "some-run"]) == 2
    assert "from each file's marker" in capsys.readouterr().err
