"""`heaplab run --repeat auto` (heaplab.judge.auto_repeat): the decision after each run, its record in
run.json, and the series loop of heaplab.cli_runs around it; the variants' seeded order
(heaplab.run.runner.variant_order). No lab runs here: decisions on made-up claim results, judgements of
fabricated runs, a stand-in run_lab."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from heaplab import cli_runs
from heaplab.judge import auto_repeat
from heaplab.judge.auto_repeat import AutoSeries, Limits, next_step
from heaplab.judge.verdict import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from heaplab.run.options import RunOptions, default_order_seed, variant_order
from heaplab.runfiles.rundir import load_run
from heaplab.runfiles.runjson import write_run_json
from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec

MIN = 60.0


@dataclass(frozen=True)
class _Claim:
    id: str


@dataclass(frozen=True)
class _Result:  # what next_step reads of a heaplab.judge.claim_results.ClaimResult
    claim: _Claim
    verdict: str

    @property
    def decided(self) -> bool:  # a stand-in for ClaimResult.decided, the default predicate
        return self.verdict != INCONCLUSIVE


def results(**verdicts: str) -> list[_Result]:
    return [_Result(_Claim(cid.replace("_", "-")), v) for cid, v in verdicts.items()]


MIXED = results(a=REPRODUCED, b=INCONCLUSIVE, c=NOT_REPRODUCED, d=INCONCLUSIVE)
DECIDED = results(a=REPRODUCED, b=NOT_REPRODUCED)


# --- next_step ------------------------------------------------------------------------------------------


def test_undecided_claims_and_budget_left_run_again() -> None:
    go, why = next_step(MIXED, 3, elapsed_s=9 * MIN, budget_s=60 * MIN, cap=10)
    assert go
    assert (
        why == "3 runs: 2 of 4 claims undecided (b, d); running run 4 of at most 10, about 51 min left of 60"
    )


def test_every_claim_decided_stops() -> None:
    go, why = next_step(DECIDED, 3, elapsed_s=9 * MIN, budget_s=60 * MIN, cap=10)
    assert not go and why == "3 runs: every one of the 2 claims decided; stopping"
    assert next_step([], 3, 1.0, 60 * MIN, 10) == (False, "3 runs: no claim to judge; stopping")


def test_a_run_that_would_pass_the_budget_is_not_started() -> None:
    # 5 runs in 50 min: the next one, about 10 min, would end after 60
    go, why = next_step(MIXED, 5, elapsed_s=50.5 * MIN, budget_s=60 * MIN, cap=10)
    assert not go
    assert why.endswith("stopping: one more run (about 10 min) would pass the budget (10 min left of 60)"), (
        why
    )
    assert next_step(MIXED, 5, elapsed_s=49.5 * MIN, budget_s=60 * MIN, cap=10)[0]  # it still fits


def test_the_cap_stops() -> None:
    go, why = next_step(MIXED, 10, elapsed_s=10 * MIN, budget_s=600 * MIN, cap=10)
    assert not go and why.endswith("; stopping at the cap of 10 runs")


def test_the_first_runs_always_run() -> None:
    # before the third run no judgement counts, not even a spent budget
    assert next_step(DECIDED, 2, elapsed_s=90 * MIN, budget_s=60 * MIN, cap=10) == (
        True,
        "2 of the first 3 runs done; running run 3",
    )


def test_the_default_predicate_is_the_claims_own_decided() -> None:
    """ClaimResult.decided: the interval no longer overlaps both regions (heaplab.judge.verdict)."""
    assert auto_repeat.default_decided(_Result(_Claim("x"), REPRODUCED))
    assert not auto_repeat.default_decided(_Result(_Claim("x"), INCONCLUSIVE))
    assert (
        auto_repeat.default_decided.__doc__ and "ClaimResult.decided" in auto_repeat.default_decided.__doc__
    )


def test_decided_is_a_predicate_passed_in() -> None:
    # e.g. the verdicts' own `decided`: here only `reproduced` counts as decided
    go, why = next_step(DECIDED, 3, 1.0, 60 * MIN, 10, decided=lambda r: r.verdict == REPRODUCED)
    assert go and "1 of 2 claims undecided (b)" in why


def test_many_undecided_claims_are_counted_past_a_few() -> None:
    many = results(**{f"c{i}": INCONCLUSIVE for i in range(9)})
    _, why = next_step(many, 3, 1.0, 60 * MIN, 10)
    assert "9 of 9 claims undecided (c0, c1, c2, c3, c4, c5, and 3 more)" in why


# --- AutoSeries: the runner's hook, on fabricated runs ------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _series_run(path: Path, series: dict[str, Any], seed: int = 3) -> Path:
    """A fabricated lab 03 run of both variants, as a run of ``series``."""
    shapes = {"hbase1-onheap": Shape(), "hbase2-offheap": Shape(young_gcs=2)}
    fabricate_run(path, lab03_spec(offheap_available=True), shapes, seed=seed)
    manifest = json.loads((path / "run.json").read_text(encoding="utf-8"))
    manifest["series"] = series
    write_run_json(path, manifest)
    return path


def test_the_hook_judges_the_series_so_far_and_records_its_decision(tmp_path: Path) -> None:
    clock, lines = Clock(), []
    judged_over: dict[float, set[int]] = {}  # clock -> the number of runs of the claims judged then

    def decided(r: Any) -> bool:
        if r.judgement is not None:
            judged_over.setdefault(clock.now, set()).add(r.judgement.n)
        return clock.now > 40 * MIN  # every claim undecided until the 4th run

    auto = AutoSeries(Limits(budget_s=60 * MIN, cap=10), out=lines.append, decided=decided, clock=clock)
    for index in (1, 2, 3, 4):
        series = {"id": "s", "index": index, "of": None}
        run = load_run(_series_run(tmp_path / f"r{index}", series, seed=index))
        clock.now = index * 10 * MIN + 1
        series = auto.before_close(run)["series"]
        assert series["decision"]["reason"] == lines[-1]
        if index < 3:  # nothing judged before the third run
            assert series["decision"] == {"continue": True, "reason": lines[-1], "undecided": []}
            assert not judged_over
        auto.ended(run.path)
    # the third run's judgement is over runs 1-3, the fourth's over 1-4
    assert judged_over == {30 * MIN + 1: {3}, 40 * MIN + 1: {4}}
    third = lines[2]
    assert third.startswith("3 runs: ") and "running run 4 of at most 10, about 30 min left of 60" in third
    assert series["decision"]["continue"] is False and not auto.go_on
    assert series["stopped"] == lines[-1] and series["of"] == 4 and series["index"] == 4
    assert lines[-1].startswith("4 runs: every one of the ")


def test_a_series_that_cannot_be_judged_stops_saying_why(tmp_path: Path) -> None:
    auto = AutoSeries(Limits(), out=lambda _: None)
    run = load_run(_series_run(tmp_path / "r3", {"id": "s", "index": 3, "of": None}))
    auto.earlier = [run, run]
    (run.path / "experiment.yml").unlink()  # a run of the series went missing in the meantime

    def broken(_: Any) -> list[Any]:
        raise ValueError("r1: not a run directory")

    auto.judge = broken  # type: ignore[method-assign]
    series = auto.before_close(run)["series"]
    assert series["stopped"] == "3 runs: stopping, the claims cannot be judged: r1: not a run directory"


# --- the loop of `heaplab run --repeat auto` (heaplab.cli_runs) ------------------------------------------


def test_the_series_loop_stops_when_the_hook_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in run_lab writes run.json with what the hook returns; the claims stay undecided until the
    cap of 4 runs.  Every run shares the series id and order seed; only the last has `stopped`."""
    made: list[dict[str, Any]] = []

    def fake_run_lab(lab: str, opts: RunOptions) -> tuple[int, Path]:
        run_dir = tmp_path / f"run{len(made) + 1}"
        assert opts.series is not None and opts.before_close is not None
        _series_run(run_dir, opts.series)
        manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        manifest.update(order_seed=opts.order_seed)
        manifest.update(opts.before_close(load_run(run_dir)))
        write_run_json(run_dir, manifest)
        made.append(manifest)
        return 0, run_dir

    monkeypatch.setattr(cli_runs, "run_lab", fake_run_lab)
    monkeypatch.setattr(auto_repeat.AutoSeries, "judge", lambda self, run: MIXED)
    opts = RunOptions(root=tmp_path, scale="ci", inventory=tmp_path, runs_dir=tmp_path, command="heaplab run")
    code, runs = cli_runs._run_series(
        "03-offheap-write", opts, Limits(budget_s=600 * MIN, cap=4), report=False
    )
    assert code == 0 and len(runs) == 4
    ids = {m["series"]["id"] for m in made}
    assert len(ids) == 1 and ids.pop().endswith("-auto")
    assert len({m["order_seed"] for m in made}) == 1 and made[0]["order_seed"] is not None
    assert [m["series"]["index"] for m in made] == [1, 2, 3, 4]
    assert [m["series"]["of"] for m in made] == [None, None, None, 4]
    assert ["stopped" in m["series"] for m in made] == [False, False, False, True]
    assert made[-1]["series"]["stopped"].endswith("stopping at the cap of 4 runs")
    assert made[2]["series"]["decision"]["undecided"] == ["b", "d"]
    assert made[0]["series"]["auto"] == {"min": 3, "cap": 4, "budget_min": 600.0}


# --- the variants' order ------------------------------------------------------------------------------


def test_variant_order_is_a_permutation_drawn_from_the_seed_and_the_repeat() -> None:
    names = ["a", "b", "c", "d", "e"]
    orders = [variant_order(names, 7, i) for i in range(1, 11)]
    assert all(sorted(o) == names for o in orders)
    assert len({tuple(o) for o in orders}) > 3  # each repeat draws its own
    assert orders == [variant_order(names, 7, i) for i in range(1, 11)]  # and again the same from run.json
    assert [variant_order(names, 8, i) for i in range(1, 11)] != orders
    assert variant_order(names, None, 3) == names  # --order fixed


def test_default_order_seed_comes_from_the_series() -> None:
    seed = default_order_seed("07-write-pipeline-ci-20261129T100000Z-x3")
    assert seed == default_order_seed("07-write-pipeline-ci-20261129T100000Z-x3")
    assert 0 <= seed < 2**32 and seed != default_order_seed("07-write-pipeline-ci-20261129T100001Z-x3")
