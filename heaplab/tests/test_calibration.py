"""The verdict rule on the committed A/A series (results/calibration/: `heaplab run LAB --aa VARIANT`, the
same configuration on both sides of every claim). There is no effect to find, so for every claim stating
an effect (the region rule) each label but `no effect` and `inconclusive` is a false alarm: the rule may
raise one in at most 5% of them (docs/analysis.md, Calibration). A bound or a mechanism check is no such
claim: "not lower" holds with no effect, and a check of a mechanism the twin lacks rightly fails. The
claims are judged again here from the runs' raw files with the code as it is now, and each series'
committed claims.json must say the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heaplab.judge.run_analysis import judge_runs
from heaplab.judge.verdict import INCONCLUSIVE, MIN_RUNS, NO_EFFECT, REGION
from heaplab.lab.published import load_published
from heaplab.runfiles.series import runs_to_judge
from heaplab.tests.conftest import PUBLISHED, REPO

CALIBRATION = REPO / "results" / "calibration"
QUIET = {NO_EFFECT, INCONCLUSIVE}
FALSE_ALARMS = 0.05


def _series() -> list[Path]:
    """The last run of each A/A series (the one whose claims.json judges the series)."""
    last: dict[str, Path] = {}
    for run in sorted(CALIBRATION.glob("*-aa-*-*/run.json")):
        series = json.loads(run.read_text(encoding="utf-8")).get("series") or {}
        last[str(series.get("id") or run.parent.name)] = run.parent
    return sorted(last.values())


SERIES = _series()


def test_there_is_a_committed_aa_series() -> None:
    assert SERIES, f"no A/A series under {CALIBRATION}"


@pytest.mark.parametrize("last", SERIES, ids=[p.name for p in SERIES])
def test_the_rule_rarely_raises_a_false_alarm(last: Path) -> None:
    runs = runs_to_judge(last, [])
    assert len(runs) >= MIN_RUNS and all(r.manifest.get("aa") for r in runs), [r.path.name for r in runs]
    _, results = judge_runs(runs, load_published(PUBLISHED))
    judged = [r for r in results if r.judgement is not None and r.judgement.rule == REGION]
    assert len(judged) >= 10, "too few effect claims to calibrate on"
    alarms = [f"{r.claim.id}: {r.verdict} ({r.why})" for r in judged if r.verdict not in QUIET]
    assert len(alarms) <= FALSE_ALARMS * len(judged), alarms
    committed = json.loads((last / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert {r.claim.id: r.verdict for r in results} == {k: c["verdict"] for k, c in committed.items()}
