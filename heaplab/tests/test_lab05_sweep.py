"""Lab 05 (SimpleRpcServer vs NettyRpcServer, a client-thread sweep): its real spec is valid and sized as
its comments say; the sweep table, the saturation points, the claims and report.md come out of fabricated
runs of that spec (one where Netty doubles the throughput, one where the servers are equal, one with a
variant that did not run); a malformed ``sweep`` is a one-line error; the notebook executes on them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.judge.run_analysis import Analysis, analyse
from heaplab.judge.verdict import NO_EFFECT, NOT_MEASURABLE, REPRODUCED
from heaplab.lab import sweeps
from heaplab.lab.spec import load_spec
from heaplab.report import sweep
from heaplab.report.report import write_report
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import Shape, admin_metrics, fabricate_run, mark_series, read_groups
from heaplab.tests.shared_runs import execute_notebook

LAB = "05-netty-rpc"
SPEC = REPO / "labs" / LAB / "experiment.yml"
NOTEBOOK = REPO / "notebooks" / f"{LAB}.ipynb"
STEPS = ["netty_rpc_sweep1", "netty_rpc_sweep2", "netty_rpc_sweep3", "netty_rpc"]
READS = ["read_1", "read_2", "read_3", "read_4"]


HBASE_VARIANTS = ("hbase-simple-rpc", "hbase-netty-rpc")


def lab05_spec(*, available: bool = True, with_hbase: bool = False) -> dict[str, Any]:
    """The real spec; without Apache HBase's two variants unless ``with_hbase`` (the sweep's mechanics are
    the same for any number of variants, the tables are shorter)."""
    raw = copy.deepcopy(yaml.safe_load(SPEC.read_text(encoding="utf-8")))
    if not with_hbase:
        for name in HBASE_VARIANTS:
            del raw["variants"][name]
        del raw["subjects"]
        for r in raw["reproduces"]:
            r["variants"] = [v for v in r["variants"] if v not in HBASE_VARIANTS]
    if available:
        for v in raw["variants"].values():
            v["available"] = True
            v.pop("why", None)
    return raw


def counters(cpu_us_per_get: float, queue_ms: float = 0.2) -> dict[str, dict[str, Any]]:
    """The `admin metrics` reports around the steps: 4000 gets before metrics_0 (the warm-up), then 4000 per
    step, every data block a cache hit, ``cpu_us_per_get`` of server CPU per get, half of it in handlers,
    and every GET waiting ``queue_ms`` in the call queue."""
    out = {}
    for i in range(5):
        gets = 4000 * (i + 1)
        cpu_ms = round(gets * cpu_us_per_get / 1000)
        reads = read_groups(gets, data_hits=gets, cpu_ms=cpu_ms, caches=("lru", "bucket"))
        report = admin_metrics(100 << 20, gc_requested=False, reads=reads)
        report["rpc"] = {
            "impl": "X",
            "handlers": 30,
            "queues": [],
            "handler_busy_ms": cpu_ms // 2,
            "methods": {"GET": {"count": gets, "errors": 0, "queue_mean_ms": queue_ms}},
        }
        out[f"metrics_{i}"] = report
    return out


def shape(base_us: float, durations: list[int], cpu_us_per_get: float = 40.0, queue_ms: float = 0.2) -> Shape:
    """Every read step gets the same number of gets at ci (4000), so its throughput is 4000 / duration."""
    return Shape(
        metrics=counters(cpu_us_per_get, queue_ms),
        base_us=base_us,
        young_gcs=0,
        other_gcs=0,
        outside_gcs=0,
        phases={
            r: Shape(base_us=base_us, duration_s=d, young_gcs=0, other_gcs=0)
            for r, d in zip(READS, durations, strict=True)
        },
    )


def series(tmp_path: Path, spec: dict[str, Any], shapes: dict[str, Shape]) -> list[Path]:
    """Three runs (seeds 3-5) of the same shapes, marked as one series: a verdict needs three."""
    runs = [fabricate_run(tmp_path / f"r{seed}", spec, shapes, seed=seed) for seed in (3, 4, 5)]
    mark_series(runs)
    return runs


def judged(runs: list[Path]) -> Analysis:
    return analyse(runs[0], with_runs=runs[1:])


def netty_wins(tmp_path: Path) -> list[Path]:
    """Simple saturates at 4 threads (2000 gets/s), Netty at 8 (4000 gets/s); 920 us against 250 us."""
    shapes = {"simple-rpc": shape(920, [4, 2, 2, 2], 60, 0.5), "netty-rpc": shape(250, [4, 2, 1, 1], 30, 0.1)}
    return series(tmp_path / "wins", lab05_spec(), shapes)


def test_spec_is_valid_and_every_step_reads_the_whole_table_once() -> None:
    spec = load_spec(SPEC)
    assert set(spec.scales) == {"ci", "local", "paper"}
    assert spec.experiments == STEPS
    assert (REPO / "labs" / LAB / "README.md").is_file() and NOTEBOOK.is_file()
    assert [spec.measured_phase(e).name for e in STEPS] == READS  # type: ignore[union-attr]
    for scale in spec.scales:
        p = spec.params(scale)
        assert p["total_rows"] == p["load_threads"] * p["load_rows"], scale
        threads = [p[f"threads_{i}"] for i in range(1, 5)]
        assert threads == sorted(threads) and len(set(threads)) == 4, scale
        for i in range(1, 5):
            assert p[f"threads_{i}"] * p[f"rows_{i}"] == p["total_rows"], (scale, i)
    # the two variants differ only in hbase.rpc.server.impl
    simple, netty = spec.variants["simple-rpc"], spec.variants["netty-rpc"]
    assert simple.profile == netty.profile == "hbase2-offheap"
    assert simple.site == {"hbase.rpc.server.impl": "SimpleRpcServer"}
    assert netty.site == {"hbase.rpc.server.impl": "NettyRpcServer"}
    assert simple.server_jvm == netty.server_jvm and simple.client_jvm == netty.client_jvm
    # ... and so do Apache HBase's two, under HBase's key, which takes the class name
    hsimple, hnetty = (spec.variants[v] for v in HBASE_VARIANTS)
    assert hsimple.server == hnetty.server == "apache-hbase"
    assert hsimple.site == {"hbase.rpc.server.impl": "org.apache.hadoop.hbase.ipc.SimpleRpcServer"}
    assert hnetty.site == {"hbase.rpc.server.impl": "org.apache.hadoop.hbase.ipc.NettyRpcServer"}
    assert hsimple.server_jvm == hnetty.server_jvm and hsimple.client_jvm == hnetty.client_jvm
    twins = {"simple-rpc": "hbase-simple-rpc", "netty-rpc": "hbase-netty-rpc"}
    assert spec.subjects == {"apache-hbase": twins}
    local = spec.params("local")
    assert [local[f"threads_{i}"] for i in range(1, 5)] == [8, 32, 64, 128]
    for claim in spec.claims:
        assert claim.says and claim.experiment == "netty_rpc", claim.id


def test_sweep_table_saturation_and_claims_when_netty_wins(tmp_path: Path) -> None:
    a = judged(netty_wins(tmp_path))
    rows = sweep.points(a)
    assert list(rows) == ["simple-rpc", "netty-rpc"]
    assert [p.threads for p in rows["netty-rpc"]] == [2, 4, 8, 16]  # ci: threads_1..4
    assert [round(p.throughput or 0) for p in rows["simple-rpc"]] == [1000, 2000, 2000, 2000]
    assert [round(p.throughput or 0) for p in rows["netty-rpc"]] == [1000, 2000, 4000, 4000]
    simple, netty = (sweep.saturation(v, rows[v]) for v in ("simple-rpc", "netty-rpc"))
    assert (simple.threads, netty.threads) == (4, 8)
    assert simple.text.startswith("simple-rpc: saturated at 4 threads (2000 gets/s, 90%+ of the peak")
    md = sweep.to_markdown(a)
    lines = md.splitlines()
    assert lines[0] == (
        "| step | threads | simple-rpc TPS | simple-rpc AVG (ms) | netty-rpc TPS | netty-rpc AVG (ms) | "
        "TPS netty-rpc / simple-rpc |"
    )
    assert lines[5].startswith("| netty_rpc | 16 | 2000 | 0.9") and lines[5].endswith(
        "| 4000 | 0.26 | 2.00x |"
    )
    assert lines[9] == (
        "| step | threads | simple-rpc CPU us/get | simple-rpc handler us/get | simple-rpc queue wait (ms) | "
        "netty-rpc CPU us/get | netty-rpc handler us/get | netty-rpc queue wait (ms) |"
    )
    assert lines[14] == "| netty_rpc | 16 | 60 | 30 | 0.5 | 30 | 15 | 0.1 |"
    assert [p.cpu_us_per_get for p in rows["simple-rpc"]] == [60.0] * 4
    verdicts = {r.claim.id: r for r in a.claims}
    assert verdicts["netty-latency-under-pressure"].verdict == REPRODUCED
    assert verdicts["netty-latency-under-pressure"].article == {"netty-rpc": 0.25, "simple-rpc": 0.92}
    throughput = verdicts["netty-throughput-doubled"]
    assert throughput.verdict == REPRODUCED and throughput.article_ratio == 2.0
    assert throughput.ratio == pytest.approx(2.0, rel=0.01)


def test_equal_servers_reproduce_nothing_and_saturate_together(tmp_path: Path) -> None:
    shapes = {"simple-rpc": shape(600, [4, 2, 2, 2]), "netty-rpc": shape(600, [4, 2, 2, 2])}
    a = judged(series(tmp_path / "flat", lab05_spec(), shapes))
    rows = sweep.points(a)
    assert {sweep.saturation(v, rows[v]).threads for v in rows} == {4}
    assert {r.verdict for r in a.claims} == {NO_EFFECT}


def test_a_variant_that_still_gains_is_not_saturated(tmp_path: Path) -> None:
    shapes = {"simple-rpc": shape(900, [8, 4, 2, 1]), "netty-rpc": shape(300, [8, 4, 2, 1])}
    a = analyse(fabricate_run(tmp_path / "rising", lab05_spec(), shapes))
    sat = sweep.saturation("netty-rpc", sweep.points(a)["netty-rpc"])
    assert sat.threads is None and sat.peak_threads == 16
    assert sat.text == (
        "netty-rpc: not saturated by 16 threads (+100% at the last step); peak 4000 gets/s at 16 threads"
    )


def test_an_unavailable_variant_leaves_gaps_and_claims_not_measurable_here(tmp_path: Path) -> None:
    raw = lab05_spec()
    raw["variants"]["netty-rpc"].update(available=False, why="needs NettyRpcServer")
    run = fabricate_run(tmp_path / "half", raw, {"simple-rpc": shape(920, [4, 2, 2, 2])})
    a = analyse(run)
    rows = sweep.points(a)
    assert all(
        p.throughput is None and "needs NettyRpcServer" in (p.problem or "") for p in rows["netty-rpc"]
    )
    assert sweep.saturation("netty-rpc", rows["netty-rpc"]).text == "netty-rpc: not measured"
    assert "| netty_rpc | 16 | 2000 | " in sweep.to_markdown(a) and "| - | - | - |" in sweep.to_markdown(a)
    assert {r.verdict for r in a.claims} == {NOT_MEASURABLE}
    assert all(r.why == "netty-rpc is unavailable here: needs NettyRpcServer" for r in a.claims)


def test_both_subjects_get_their_own_ratio_and_verdicts(tmp_path: Path) -> None:
    """With Apache HBase's two variants measured too, the table has one TPS ratio per subject (Netty over
    Simple on the engine, and on HBase), never HBase's Netty over the engine's Simple."""
    shapes = {
        "simple-rpc": shape(920, [4, 2, 2, 2]),
        "netty-rpc": shape(250, [4, 2, 1, 1]),
        "hbase-simple-rpc": shape(800, [4, 2, 2, 2]),
        "hbase-netty-rpc": shape(800, [4, 2, 2, 2]),
    }
    a = judged(series(tmp_path / "both", lab05_spec(with_hbase=True), shapes))
    assert list(sweep.points(a)) == list(shapes)
    lines = sweep.to_markdown(a).splitlines()
    assert lines[0].endswith("| TPS netty-rpc / simple-rpc | TPS hbase-netty-rpc / hbase-simple-rpc |")
    assert lines[5].startswith("| netty_rpc | 16 | 2000 | ") and lines[5].endswith("| 2.00x | 1.00x |")
    verdicts = {r.claim.id: r.verdict for r in a.claims}
    assert verdicts["netty-throughput-doubled"] == REPRODUCED
    assert verdicts["netty-throughput-doubled@apache-hbase"] == NO_EFFECT
    assert verdicts["netty-latency-under-pressure@apache-hbase"] == NO_EFFECT


def test_report_has_the_sweep_section_and_figure(tmp_path: Path) -> None:
    run = netty_wins(tmp_path)[0]
    text = write_report(run).read_text(encoding="utf-8")
    assert "## Thread sweep" in text
    assert "![throughput and latency against client threads](figures/sweep.png)" in text
    assert text.index("## Thread sweep") < text.index("## Claims")
    assert (run / "figures/sweep.png").stat().st_size > 1000


def test_labs_without_a_sweep_get_no_section(fixture_run: Path) -> None:
    a = analyse(fixture_run)
    assert sweep.sweep_experiments(a.run) == [] and sweep.report_lines(a) == []


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("netty_rpc", "sweep must be a list of at least two experiment names"),
        (["netty_rpc"], "sweep must be a list of at least two experiment names"),
        (["netty_rpc_sweep1", "nope"], "sweep names 'nope', which the lab does not reproduce"),
        (["netty_rpc", "netty_rpc"], "sweep names an experiment twice"),
    ],
)
def test_a_malformed_sweep_is_one_line(tmp_path: Path, value: Any, message: str) -> None:
    run = load_run(netty_wins(tmp_path)[0])
    with pytest.raises(sweeps.SweepError) as e:
        sweeps.check_sweep(value, run.spec, "experiment.yml")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_notebook_shows_the_sweep_and_the_verdicts(tmp_path: Path) -> None:
    nb, text = execute_notebook(NOTEBOOK, netty_wins(tmp_path)[0])
    for exp in STEPS:
        assert f"### {exp}" in text, exp
    assert "simple-rpc: saturated at 4 threads" in text and "netty-rpc: saturated at 8 threads" in text
    assert "| netty-throughput-doubled |" in text and "**reproduced**" in text
    assert sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])) >= 1
