"""Claims between two variants as ratios (lab 07): the article's ratio from a ``<metric>_ratio`` row or from
its two values, the measured ratio, and verdicts both ways on fabricated runs of the real lab-07 spec."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.analysis import analyse
from heaplab.claims import NOT_REPRODUCED, REPRODUCED
from heaplab.report import write_report
from heaplab.tests.conftest import PUBLISHED, REPO
from heaplab.tests.fabricate import Shape, fabricate_run

LAB07 = REPO / "labs/07-write-pipeline/experiment.yml"


def lab07_spec() -> dict[str, Any]:
    raw = copy.deepcopy(yaml.safe_load(LAB07.read_text(encoding="utf-8")))
    for v in raw["variants"].values():
        v["available"] = True
    return raw


def _run(tmp_path: Path, seconds: dict[str, int], name: str) -> Path:
    """Every variant writes the same rows; the phase takes ``seconds``, so throughput = rows / seconds."""
    shapes = {v: Shape(duration_s=s, young_gcs=1, gc_pause_ms=5) for v, s in seconds.items()}
    return fabricate_run(tmp_path / name, lab07_spec(), shapes)


FAST = {
    "sync-legacy-mvcc": 14,
    "sync-preassign": 10,
    "async-legacy-mvcc": 10,
    "async-preassign": 5,
    "sync-staged": 3,
}


def test_ratio_claims_reproduced(tmp_path: Path) -> None:
    results = {r.claim.id: r for r in analyse(_run(tmp_path, FAST, "fast"), PUBLISHED).claims}
    assert {k: r.verdict for k, r in results.items()} == dict.fromkeys(results, REPRODUCED)
    sync = results["preassign-sync-wal"]
    assert sync.article_ratio == pytest.approx(1.30)  # the CSV's 002,mvcc_preassign,sync-wal,throughput_ratio
    assert sync.article_holds is True
    assert sync.article == {"sync-preassign": None, "sync-legacy-mvcc": None}
    m = sync.measured
    assert sync.ratio == pytest.approx(m["sync-preassign"] / m["sync-legacy-mvcc"])
    assert results["preassign-async-wal"].article_ratio == pytest.approx(1.70)
    staged = results["staged-triples"]
    assert staged.article == {"sync-staged": 420000.0, "sync-preassign": 140000.0}
    assert staged.article_ratio == pytest.approx(3.0) and staged.article_holds is True


def test_ratio_claims_not_reproduced(tmp_path: Path) -> None:
    same = dict.fromkeys(FAST, 8)
    results = analyse(_run(tmp_path, same, "same"), PUBLISHED).claims
    assert {r.verdict for r in results} == {NOT_REPRODUCED}
    assert all("(ratio " in r.why for r in results)


def test_report_tables_keep_each_experiments_variants(tmp_path: Path) -> None:
    run = _run(tmp_path, FAST, "report")
    text = write_report(run, PUBLISHED).read_text(encoding="utf-8")
    staged = text.split("\n## staged_write_path ", 1)[1].split("\n## ", 1)[0]
    rows = [x.split("|")[1].strip() for x in staged.splitlines() if x.startswith("| sync")]
    assert rows == ["sync-preassign", "sync-preassign", "sync-staged", "sync-staged"]  # article + this run
    mvcc = text.split("\n## mvcc_preassign ", 1)[1].split("\n## ", 1)[0]
    assert "sync-staged" not in mvcc
    assert (
        "- article, sync-wal (no variant here): throughput_ratio = 1.3 x (HBASE-16698 / HBASE-17471)" in mvcc
    )
    assert "sync-wal: ratio 1.30x" in text  # the claims table's article column
    assert (run / "figures/mvcc_preassign-latency.png").is_file()
