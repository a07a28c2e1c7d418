"""Claims between two variants as ratios (lab 07): the article's ratio from a ``<metric>_ratio`` row or from
its two values, the measured ratio, and verdicts both ways on fabricated runs of the real lab-07 spec."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.judge.run_analysis import analyse
from heaplab.judge.verdict import INCONCLUSIVE, NO_EFFECT, NOT_MEASURABLE, REPRODUCED
from heaplab.report.report import write_report
from heaplab.tests.conftest import PUBLISHED, REPO
from heaplab.tests.fabricate import Shape, fabricate_run

LAB07 = REPO / "labs/07-write-pipeline/experiment.yml"


def lab07_spec() -> dict[str, Any]:
    raw = copy.deepcopy(yaml.safe_load(LAB07.read_text(encoding="utf-8")))
    for v in raw["variants"].values():
        v["available"] = True
    return raw


def _run(tmp_path: Path, seconds: dict[str, int], name: str, seed: int = 3) -> Path:
    """Every variant writes the same rows; the phase takes ``seconds``, so throughput = rows / seconds, and
    its closed-loop writers wait in proportion (Little's law): 100 us of average latency per second."""
    shapes = {
        v: Shape(duration_s=s, base_us=100.0 * s, young_gcs=1, gc_pause_ms=5) for v, s in seconds.items()
    }
    return fabricate_run(tmp_path / name, lab07_spec(), shapes, seed=seed)


# Each ratio inside the article's region (its figure +-15%): sync pre-assign throughput 13 / 10 = 1.3x
# (latency 0.77x), async 17 / 10 = 1.7x (0.59x), staged 10 / 3 = 3.3x (0.3x).
FAST = {
    "sync-legacy-mvcc": 13,
    "sync-preassign": 10,
    "async-legacy-mvcc": 17,
    "async-preassign": 10,
    "sync-staged": 3,
}
# HBase 1.4.14's MVCC variants (subject apache-hbase-1.4) run as fast as the engine's of the same name
FAST |= {f"hbase14-{v}": s for v, s in FAST.items() if "mvcc" in v or "preassign" in v}
SSD_UTILISATION = "staged-ssd-underused"  # measurable: false (no disk-utilisation metric here)


def test_ratio_claims_reproduced(tmp_path: Path) -> None:
    runs = [_run(tmp_path, FAST, f"fast-{seed}", seed) for seed in (3, 4, 5)]
    results = {r.claim.id: r for r in analyse(runs[0], PUBLISHED, with_runs=runs[1:]).claims}
    expected = dict.fromkeys(results, REPRODUCED) | {SSD_UTILISATION: NOT_MEASURABLE}
    assert {k: r.verdict for k, r in results.items()} == expected
    assert len(results) == 11  # 7 on the engine, the 4 MVCC claims again on HBase 1.4
    assert results["preassign-sync-wal@apache-hbase-1.4"].claim.subject == "apache-hbase-1.4"
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


def test_ratio_claims_show_no_effect(tmp_path: Path) -> None:
    """Three runs where every variant takes as long: throughput and latency ratios within the no-effect
    margin (1 +-5%), an equivalence: `no effect`, never the article's.  One such run is only indicative."""
    same = dict.fromkeys(FAST, 8)
    runs = [_run(tmp_path, same, f"same-{seed}", seed) for seed in (3, 4, 5)]
    results = analyse(runs[0], PUBLISHED, with_runs=runs[1:]).claims
    assert {r.claim.id: r.verdict for r in results} == {
        r.claim.id: NOT_MEASURABLE if r.claim.id == SSD_UTILISATION else NO_EFFECT for r in results
    }
    judged = [r for r in results if r.claim.id != SSD_UTILISATION]
    assert all(r.why.startswith("ratio ") and "(95% t over 3 runs)" in r.why for r in judged)
    assert all(r.ratio == pytest.approx(1.0, abs=0.05) for r in judged)
    single = {r.claim.id: r.verdict for r in analyse(runs[0], PUBLISHED).claims}
    assert single["preassign-sync-wal"] == single["preassign-sync-shorter-wait"] == INCONCLUSIVE


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
    # the claims table's article column: the claim's figure and its source
    row = next(x for x in text.splitlines() if x.startswith("| preassign-sync-wal |"))
    assert row.startswith(
        "| preassign-sync-wal | article | engine | SYNC_WAL throughput +30%: 1.30x (Lift the Ceiling"
    )
    assert (run / "figures/mvcc_preassign-latency.png").is_file()
