"""Leaving a measured phase's warm-up out (heaplab.analysis.steady), and the spec key that asks for it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml
from hdrh.histogram import HdrHistogram

from heaplab.analysis.steady import MIN_STEADY_S, TooShort, steady_state
from heaplab.lab.schema import SpecError
from heaplab.lab.spec import load_spec, parse_spec
from heaplab.paths import LABS_DIR
from heaplab.runfiles.client_summary import load_phase_summaries
from heaplab.tests.fabricate import write_interval_log

START_MS = 1_795_291_200_000


def _write_phase(client: Path, rates: list[int], latency_us: list[int], rows_per_op: int = 1) -> None:
    """A pe summary and its 1 s interval log: ``rates[i]`` operations at ``latency_us[i]`` in second i."""
    client.mkdir(parents=True, exist_ok=True)
    hists = []
    for i, (n, us) in enumerate(zip(rates, latency_us, strict=True)):
        h = HdrHistogram(1, 3_600_000_000, 3)
        h.record_value(us, n)
        h.set_start_time_stamp(START_MS + i * 1000 + 3)  # a few ms late, as real intervals are
        h.set_end_time_stamp(START_MS + (i + 1) * 1000 + 3)
        hists.append(h)
    write_interval_log(client / "p-localhost.hlog", START_MS, hists)
    ops = sum(rates)
    summary = {
        "format": 1,
        "tool": "pe",
        "threads": 4,
        "operations": ops,
        "rows": ops * rows_per_op,
        "duration_ms": len(rates) * 1000.0,
        "throughput": ops * rows_per_op / len(rates),
        "latency_us": {"mean": 1.0},
        "start_epoch_ms": START_MS,
        "end_epoch_ms": START_MS + len(rates) * 1000,
        "hlog": "p-localhost.hlog",
    }
    (client / "p-localhost.json").write_text(json.dumps(summary), encoding="utf-8")


def _steady(client: Path, after_s: float):
    return steady_state(load_phase_summaries(client, "p"), after_s)


def test_warm_up_seconds_are_left_out(tmp_path: Path) -> None:
    # 5 slow seconds (1,000 ops at 9 ms) then 10 steady ones (10,000 ops at 1 ms)
    _write_phase(tmp_path, [1000] * 5 + [10000] * 10, [9000] * 5 + [1000] * 10, rows_per_op=100)
    s = _steady(tmp_path, 5)
    assert s.start_epoch_ms == START_MS + 5003
    assert s.seconds == pytest.approx(10.0)
    assert s.throughput == pytest.approx(10000 * 100)  # rows per second, not calls
    assert s.total.get_total_count() == 100_000
    assert s.total.get_max_value() < 1100  # none of the warm-up's 9 ms latencies


def test_a_race_won_on_warm_up_fails_in_steady_state(tmp_path: Path) -> None:
    """A client that warms up slowly halves its phase mean; the steady-state ratio must not inherit that."""
    engine, hbase = tmp_path / "engine", tmp_path / "hbase"
    _write_phase(engine, [8000] * 3 + [11000] * 22, [700] * 25)
    _write_phase(
        hbase, [400, 1200, 2300, 2400, 3000, 3300, 4000, 5000, 5500, 6000] * 2 + [7000] * 10, [900] * 30
    )
    mean = lambda c: sum(s.throughput for s in load_phase_summaries(c, "p"))  # noqa: E731
    assert mean(engine) / mean(hbase) >= 2.0  # the whole phases: "twice as fast"
    assert _steady(engine, 20).throughput / _steady(hbase, 20).throughput < 2.0  # steady: not so


def test_too_short_a_phase_is_refused(tmp_path: Path) -> None:
    _write_phase(tmp_path, [1000] * 8, [1000] * 8)
    with pytest.raises(TooShort, match=r"leaving its first 6 s out \(floor 6 s\) keeps 2\.0 s"):
        _steady(tmp_path, 6)
    assert _steady(tmp_path, 8 - MIN_STEADY_S).seconds == pytest.approx(MIN_STEADY_S)


def test_the_cut_is_where_the_rate_levels_off_never_before_the_floor(tmp_path: Path) -> None:
    """A client that climbs for 12 s is cut where its 3-second rate comes within 10% of the rest's median,
    not at the 3 s floor; one at full rate from the start is cut at the floor."""
    climbing = [1000 + 700 * i for i in range(12)] + [9000] * 20
    _write_phase(tmp_path / "slow", climbing, [1000] * 32)
    slow = _steady(tmp_path / "slow", 3)
    assert slow.levelled and slow.floor_s == 3
    # the first second k >= 3 whose 3-second mean is at least 0.9 x 9000
    first = next(k for k in range(3, 30) if sum(climbing[k : k + 3]) / 3 >= 0.9 * 9000)
    assert slow.cut_s == pytest.approx(first, abs=0.01) and first > 3
    assert slow.throughput == pytest.approx(sum(climbing[first:]) / (32 - first), rel=1e-6)
    _write_phase(tmp_path / "fast", [9000] * 32, [1000] * 32)
    fast = _steady(tmp_path / "fast", 3)
    assert fast.cut_s == pytest.approx(3, abs=0.01) and fast.seconds == pytest.approx(29)


def test_a_phase_that_keeps_too_little_says_so_and_how_many_rows_would_do(tmp_path: Path) -> None:
    """measure_s 15 s, but the phase leaves only 10 s after its warm-up: judged, named short, and the
    --rows given keep 15 s (with a fifth to spare) at the measured rate."""
    _write_phase(tmp_path, [2000] * 3 + [10000] * 10, [1000] * 13)
    summaries = load_phase_summaries(tmp_path, "p")
    s = steady_state(summaries, 3, want_s=15)
    assert s.seconds == pytest.approx(10) and s.short and s.levelled
    threads = summaries[0].threads
    assert s.rows_enough() == math.ceil((3 * 2000 + 10000 * 15 * 1.2) / threads)
    assert not steady_state(summaries, 3, want_s=8).short
    # a client still warming up at its end (HBase PE's first 10 s) never levelled off: short, cut at the floor
    warming = [400, 1200, 2300, 2400, 3000, 3300, 4000, 5000, 5500, 6000]
    _write_phase(tmp_path / "up", warming, [1000] * 10)
    up = _steady(tmp_path / "up", 3)
    assert not up.levelled and up.short and up.cut_s == pytest.approx(3, abs=0.01)
    assert "still climbing" in up.describe()


def test_too_short_names_the_rows_that_would_have_been_enough(tmp_path: Path) -> None:
    _write_phase(tmp_path, [1000] * 5, [1000] * 5)
    with pytest.raises(TooShort, match=r"--rows=\d+ per thread would have been enough"):
        _steady(tmp_path, 3)


def test_lab11_leaves_the_warm_up_out_at_local_and_paper_only() -> None:
    spec = load_spec(LABS_DIR / "11-vs-apache-hbase" / "experiment.yml")
    measured = [p for p in spec.phases if p.measure]
    assert len(measured) == 4
    for scale in ("local", "paper"):
        assert all(p.steady_after(spec.params(scale)) > 0 for p in measured), scale
    assert all(p.steady_after(spec.params("ci")) == 0 for p in measured)


def _spec_with(phase_extra: dict, scales: dict | None = None) -> dict:
    raw = yaml.safe_load((LABS_DIR / "11-vs-apache-hbase" / "experiment.yml").read_text(encoding="utf-8"))
    for p in raw["phases"]:
        if p["name"] == "warmup":
            p.update(phase_extra)
    if scales is not None:
        raw["scales"] = scales
    return raw


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"steady_after_s": 5}, "applies only to a phase that measures"),
        ({"measure": "pe_single_put", "steady_after_s": "{nope}"}, "scale .ci. sets to one"),
        ({"measure": "pe_single_put", "steady_after_s": "-3"}, "it must be >= 0"),
        ({"measure": "pe_single_put", "steady_after_s": "soon"}, "must be seconds"),
    ],
)
def test_bad_steady_after_is_a_spec_error(extra: dict, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec(_spec_with(extra))
