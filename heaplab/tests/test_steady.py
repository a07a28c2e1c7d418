"""Leaving a measured phase's warm-up out (heaplab.analysis.steady), and the spec key that asks for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter

from heaplab.analysis.steady import MIN_STEADY_S, TooShort, steady_state
from heaplab.lab.schema import SpecError
from heaplab.lab.spec import load_spec, parse_spec
from heaplab.paths import LABS_DIR
from heaplab.runfiles.client_summary import load_phase_summaries

START_MS = 1_795_291_200_000


def _write_phase(client: Path, rates: list[int], latency_us: list[int], rows_per_op: int = 1) -> None:
    """A pe summary and its 1 s interval log: ``rates[i]`` operations at ``latency_us[i]`` in second i."""
    client.mkdir(parents=True, exist_ok=True)
    with (client / "p-localhost.hlog").open("w", encoding="utf-8") as f:
        w = HistogramLogWriter(f)
        w.output_log_format_version()
        f.write(f"#[StartTime: {START_MS / 1000:.3f} (seconds since epoch), x]\n")
        w.output_base_time(START_MS)
        w.base_time = START_MS
        w.output_legend()
        for i, (n, us) in enumerate(zip(rates, latency_us, strict=True)):
            h = HdrHistogram(1, 3_600_000_000, 3)
            h.record_value(us, n)
            h.set_start_time_stamp(START_MS + i * 1000 + 3)  # a few ms late, as real intervals are
            h.set_end_time_stamp(START_MS + (i + 1) * 1000 + 3)
            w.output_interval_histogram(h, max_value_unit_ratio=1000.0)
    ops = sum(rates)
    summary = {
        "format": 1,
        "tool": "pe",
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
    with pytest.raises(TooShort, match=r"leaving its first 6 s out keeps 2\.0 s"):
        _steady(tmp_path, 6)
    assert _steady(tmp_path, 8 - MIN_STEADY_S).seconds == pytest.approx(MIN_STEADY_S)


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
