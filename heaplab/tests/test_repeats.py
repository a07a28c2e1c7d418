"""heaplab.judge.repeats and `heaplab compare` on fabricated runs (heaplab/tests/fabricate.py)."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from heaplab.analysis.metrics import measure
from heaplab.cli import main
from heaplab.judge.repeats import CompareError, compare, mean_ci
from heaplab.run.options import RunOptions
from heaplab.runfiles.hlog import read_total
from heaplab.runfiles.rundir import load_run
from heaplab.stats import t975
from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec


def _runs(tmp_path: Path, n: int) -> list[Path]:
    return [
        fabricate_run(
            tmp_path / f"r{i}", lab03_spec(), {"hbase1-onheap": Shape(base_us=600 + 100 * i)}, seed=i
        )
        for i in range(n)
    ]


def test_t_quantiles() -> None:
    assert t975(1) == 12.706
    assert t975(4) == 2.776
    assert t975(30) == 2.042
    assert t975(60) == pytest.approx(2.000, abs=0.001)
    assert t975(1000) == pytest.approx(1.962, abs=0.001)


def test_mean_ci_by_hand() -> None:
    iv = mean_ci([10.0, 12.0, 14.0])  # mean 12, s = 2, n = 3: half width 4.303 x 2 / sqrt(3)
    assert iv.mean == 12
    assert iv.high - iv.mean == pytest.approx(4.303 * 2 / 3**0.5)
    assert iv.mean - iv.low == pytest.approx(iv.high - iv.mean)
    one = mean_ci([5.0])
    assert (one.n, one.mean, one.low, one.high) == (1, 5.0, None, None)


def test_compare_three_runs(tmp_path: Path) -> None:
    paths = _runs(tmp_path, 3)
    cells = {(c.experiment, c.variant, c.metric): c for c in compare(paths, ["latency_p999", "throughput"])}
    p999 = cells[("single_put", "hbase1-onheap", "latency_p999")]
    per_run = [measure(load_run(p), "hbase1-onheap", "single_put").values["latency_p999"] for p in paths]
    assert p999.values == per_run
    iv = p999.interval
    assert iv is not None and iv.n == 3
    assert iv.mean == pytest.approx(statistics.fmean(per_run))
    assert iv.high - iv.mean == pytest.approx(4.303 * statistics.stdev(per_run) / 3**0.5)
    hlogs = [p / "hbase1-onheap/client/single_put-localhost.hlog" for p in paths]
    assert p999.pooled == pytest.approx(read_total(hlogs).get_value_at_percentile(99.9) / 1000)
    assert cells[("single_put", "hbase1-onheap", "throughput")].pooled is None  # not a percentile
    unavailable = cells[("single_put", "hbase2-offheap", "latency_p999")]
    assert unavailable.values == [] and unavailable.interval is None


def test_different_labs_or_scales_are_refused(tmp_path: Path) -> None:
    a, b = _runs(tmp_path, 2)
    manifest = json.loads((b / "run.json").read_text())
    (b / "run.json").write_text(json.dumps({**manifest, "scale": "local"}))
    with pytest.raises(CompareError, match="different scales"):
        compare([a, b])
    (b / "run.json").write_text(json.dumps({**manifest, "lab": "05-netty-rpc"}))
    with pytest.raises(CompareError, match="different labs"):
        compare([a, b])


def test_cli_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(p) for p in _runs(tmp_path, 2)]
    assert main(["compare", *paths, "--metric", "latency_p99"]) == 0
    out = capsys.readouterr().out
    assert "| single_put | hbase1-onheap | latency_p99 | ms | 2 |" in out
    assert main(["compare", *paths, "--metric", "latency_p42"]) == 1
    assert "unknown metric latency_p42" in capsys.readouterr().err


def test_cli_repeat_must_be_positive(capsys: pytest.CaptureFixture[str], fake_root: Path) -> None:
    assert main(["--root", str(fake_root), "run", "03-offheap-write", "--scale", "ci", "--repeat", "0"]) == 2
    assert "--repeat must be a positive number" in capsys.readouterr().err


def test_cli_run_repeat_runs_n_times_then_compares(
    tmp_path: Path, fake_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`heaplab run LAB --repeat 3`: three runs in a row (the runner replaced by fabricated runs), then
    the compare table over the three."""
    made: list[Path] = []

    def fake_run_lab(lab: str, opts: object) -> tuple[int, Path]:
        assert lab == "03-offheap-write"
        i = len(made)
        made.append(fabricate_run(tmp_path / f"run{i}", lab03_spec(), {"hbase1-onheap": Shape()}, seed=i))
        return 0, made[-1]

    monkeypatch.setattr("heaplab.cli_runs.run_lab", fake_run_lab)
    argv = ["--root", str(fake_root), "run", "03-offheap-write", "--scale", "ci", "--repeat", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert len(made) == 3
    assert out.count("run directory: ") == 3
    assert "3 run(s); 95% CI" in out
    assert "| single_put | hbase1-onheap | latency_p999 | ms | 3 |" in out


def test_cli_local_scale_repeats_three_times_as_one_series(
    tmp_path: Path, fake_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """At `local` scale a run is three runs by default, one series: the same id, index 1..3 of 3."""
    series: list[dict] = []

    def fake_run_lab(lab: str, opts: RunOptions) -> tuple[int, Path]:
        assert opts.size_local is False  # --fixed-scale
        series.append(dict(opts.series or {}))
        i = len(series)
        return 0, fabricate_run(tmp_path / f"run{i}", lab03_spec(), {"hbase1-onheap": Shape()}, seed=i)

    monkeypatch.setattr("heaplab.cli_runs.run_lab", fake_run_lab)
    assert (
        main(["--root", str(fake_root), "run", "03-offheap-write", "--scale", "local", "--fixed-scale"]) == 0
    )
    assert [s["index"] for s in series] == [1, 2, 3] and {s["of"] for s in series} == {3}
    assert len({s["id"] for s in series}) == 1 and series[0]["id"].startswith("03-offheap-write-local-")
    assert "run 3 of 3" in capsys.readouterr().out
