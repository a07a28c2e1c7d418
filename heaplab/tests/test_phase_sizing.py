"""Phases sized by time (heaplab.lab.phase_time, playbooks/filter_plugins/heaplab_sizing.py): the spec keys,
the sizing from an earlier phase's interval log, and lab 11 on a simulated machine four times faster.

The machine is simulated (a test double, as no faster machine is at hand): a PE client whose rate is scaled.
Its model is the one lab 11's clients showed on the reference VM: the rate climbs from a fifth of its steady
value to all of it over a warm-up counted in operations (the JIT: the same operations on any machine, fewer
seconds on a faster one) after a JVM start counted in seconds; then it holds. The sizing and the cut are the
real code, reading real HdrHistogram interval logs.
"""

from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path

import pytest
import yaml
from hdrh.histogram import HdrHistogram

from heaplab.analysis.steady import steady_state
from heaplab.lab.schema import LEVEL_OFF_S, SpecError
from heaplab.lab.spec import load_spec, parse_spec
from heaplab.paths import LABS_DIR
from heaplab.report.report import _enough_advice
from heaplab.runfiles.client_summary import load_phase_summaries
from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import write_interval_log

START_MS = 1_795_291_200_000
LAB11 = LABS_DIR / "11-vs-apache-hbase" / "experiment.yml"


def _plugin():
    path = REPO / "playbooks/filter_plugins/heaplab_sizing.py"
    spec = importlib.util.spec_from_file_location("heaplab_sizing", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


SIZING = _plugin()


def simulate(rows: int, rate: float, warm_rows: float, start_s: float = 1.0) -> list[tuple[float, float]]:
    """[(rows, seconds)] of each interval of a client that runs ``rows`` rows: nothing for ``start_s`` (the
    JVM), then a rate climbing linearly from rate / 5 to ``rate`` over its first ``warm_rows`` rows, then
    ``rate``; 1 s intervals, the last one as long as the rows left took (integrated in 10 ms steps)."""
    out: list[tuple[float, float]] = [(0.0, 1.0)] * int(start_s)
    done, second, t = 0.0, 0.0, 0.0
    while done < rows:
        r = rate if done >= warm_rows else rate * (0.2 + 0.8 * done / warm_rows)
        step = min(r * 0.01, rows - done)
        done += step
        second += step
        t += 0.01
        if t >= 0.999 or done >= rows:
            out.append((second, t))
            second, t = 0.0, 0.0
    return out


def _hlog(path: Path, intervals: list[tuple[float, float]], rows_per_op: int) -> None:
    """One histogram per interval with its operations, as hbase-lab pe and the engine's pe write them."""
    hists = []
    for i, (n, seconds) in enumerate(intervals):
        ops = round(n / rows_per_op)
        if not ops:
            continue
        h = HdrHistogram(1, 3_600_000_000, 3)
        h.record_value(1000, ops)
        h.set_start_time_stamp(START_MS + i * 1000 + 3)
        h.set_end_time_stamp(START_MS + i * 1000 + 3 + round(seconds * 1000))
        hists.append(h)
    write_interval_log(path, START_MS, hists)


def _phase_dir(
    client: Path, name: str, intervals: list[tuple[float, float]], threads: int, rows_per_op: int
) -> None:
    client.mkdir(parents=True, exist_ok=True)
    _hlog(client / f"{name}-localhost.hlog", intervals, rows_per_op)
    rows = round(sum(n for n, _ in intervals))
    seconds = sum(t for _, t in intervals)
    summary = {
        "format": 1,
        "tool": "pe",
        "threads": threads,
        "operations": rows // rows_per_op,
        "rows": rows,
        "duration_ms": seconds * 1000.0,
        "throughput": rows / seconds,
        "latency_us": {"mean": 1000.0},
        "start_epoch_ms": START_MS,
        "end_epoch_ms": START_MS + (len(intervals) - 1) * 1000 + 3 + round(intervals[-1][1] * 1000),
        "hlog": f"{name}-localhost.hlog",
    }
    (client / f"{name}-localhost.json").write_text(json.dumps(summary), encoding="utf-8")


def _steady(client: Path, name: str, rows: int, rate: float, warm_rows: float, phase: dict, threads: int):
    _phase_dir(
        client,
        name,
        simulate(rows, rate, warm_rows),
        threads,
        100 if "--multiPut=100" in phase["args"] else 1,
    )
    return steady_state(
        load_phase_summaries(client, name), phase["sized"]["floor_s"], phase["sized"]["measure_s"]
    )


# Rows per second on the 2-core reference VM (lab 11's local runs, 2026-11-28 and 2026-12-03) and the rows a
# client took to level off: the engine's pe about 3 s of its rate, HBase's PE about 20 s of its own.
CLIENTS = {
    "engine": {"single_put": 14_000, "batch_put": 70_000, "random_read": 27_000},
    "hbase": {"single_put": 7_000, "batch_put": 40_000, "random_read": 20_000},
}
WARM_SECONDS = {"engine": 3, "hbase": 20}


def _warm_up(client_dir: Path, source: dict, rate: float, warm_rows: float, rows_per_op: int):
    """Run the simulated warm-up as the playbook does (engine_workload's foreground.yml and again.yml): once,
    and once more, sized from its own log, when it has ``again`` and its rate never levelled off. Returns its
    interval log's text, the args it last ran with (None: as stated) and its second run's sizing, if any."""
    n = SIZING.threads(source["args"])
    rows = SIZING.flag_value(source["args"], "--rows") * n
    _phase_dir(client_dir, source["name"], simulate(rows, rate, warm_rows), n, rows_per_op)
    text = (client_dir / f"{source['name']}-localhost.hlog").read_text(encoding="utf-8")
    again = SIZING.phase_again(text, source) if "again" in source else {"again": False}
    if not again["again"]:
        return text, None, None
    _phase_dir(client_dir, source["name"], simulate(again["value"] * n, rate, warm_rows), n, rows_per_op)
    return (client_dir / f"{source['name']}-localhost.hlog").read_text(encoding="utf-8"), again["args"], again


@pytest.mark.parametrize("speed", [1, 4])
@pytest.mark.parametrize("client", ["engine", "hbase"])
@pytest.mark.parametrize("phase_name", ["single_put", "batch_put", "random_read"])
def test_lab11_phases_on_a_machine_four_times_faster(
    tmp_path: Path, speed: int, client: str, phase_name: str
) -> None:
    """On this machine and on one four times faster, every sized phase of lab 11 keeps measure_s of steady
    state: a warm-up still speeding up at its end runs again, longer, before the phase is sized from it."""
    spec = load_spec(LAB11)
    params = spec.params("local")
    phases = {p["name"]: p for p in spec.phases_for(params, spec.variants["engine-hbase2-offheap"])}
    phase = phases[phase_name]
    source = phases[phase["sized"]["from"]]
    rows_per_op = 100 if "--multiPut=100" in phase["args"] else 1
    rate = CLIENTS[client][phase_name] * speed
    warm_rows = CLIENTS[client][phase_name] * WARM_SECONDS[client] * 0.6  # the same rows on any machine
    threads = SIZING.threads(source["args"])

    hlog_text, ran_args, again = _warm_up(tmp_path, source, rate, warm_rows, rows_per_op)
    if again:
        assert again["why"].startswith("never levelled off, so it ran again: ")
        assert again["value"] > SIZING.flag_value(source["args"], "--rows")
    sized = SIZING.phase_size(hlog_text, phase, ran_args)
    assert sized["levelled"], sized["why"]
    assert sized["value"] >= SIZING.flag_value(phase["args"], "--rows")  # never below the stated rows
    assert f"--rows={sized['value']}" in sized["args"] and "capped" not in sized["why"]

    steady = _steady(tmp_path, phase_name, sized["value"] * threads, rate, warm_rows, phase, threads)
    assert steady.levelled and steady.seconds >= phase["sized"]["measure_s"] and not steady.short, (
        sized["why"],
        steady.describe(),
    )


def test_a_phase_sized_from_a_climbing_rate_is_named_short_with_the_rows_that_keep_measure_s(
    tmp_path: Path,
) -> None:
    """Without the second warm-up run, four times faster, HBase's batches are sized from a rate still
    climbing (a lower bound): the phase keeps less than measure_s, is named short, and the rows it names
    keep measure_s when run."""
    spec = load_spec(LAB11)
    phases = {
        p["name"]: p for p in spec.phases_for(spec.params("local"), spec.variants["engine-hbase2-offheap"])
    }
    phase, rate = phases["batch_put"], CLIENTS["hbase"]["batch_put"] * 4
    source = {k: v for k, v in phases["batch_warm"].items() if k != "again"}
    warm_rows = CLIENTS["hbase"]["batch_put"] * WARM_SECONDS["hbase"] * 0.6
    threads = SIZING.threads(phase["args"])
    hlog_text, ran_args, _ = _warm_up(tmp_path, source, rate, warm_rows, 100)
    sized = SIZING.phase_size(hlog_text, phase, ran_args)
    assert not sized["levelled"] and "still climbing" in sized["why"]
    steady = _steady(tmp_path, "batch_put", sized["value"] * threads, rate, warm_rows, phase, threads)
    assert steady.short and steady.seconds < phase["sized"]["measure_s"]
    enough = steady.rows_enough()
    assert enough > sized["value"]
    again = _steady(tmp_path / "again", "batch_put", enough * threads, rate, warm_rows, phase, threads)
    assert again.seconds >= phase["sized"]["measure_s"] and not again.short, again.describe()


def test_which_lab11_warm_up_phases_run_again() -> None:
    """Which warm-ups of the cases above run a second time: at this machine's speed only the engine's
    batches (its 8 x 50,000-row batch warm-up lasts about 6 s, too short for the rule to call it level);
    four times faster, every one, since each ends before its client has run the six steady seconds the rule
    needs; after its second run, every one has levelled off."""
    spec = load_spec(LAB11)
    phases = {p["name"]: p for p in spec.phases_for(spec.params("local"))}
    ran_again, levelled = set(), set()
    for client, rates in CLIENTS.items():
        for name, base in rates.items():
            for speed in (1, 4):
                source = phases[phases[name]["sized"]["from"]]
                per_op = 100 if "--multiPut=100" in source["args"] else 1
                with tempfile.TemporaryDirectory() as d:
                    text, _, again = _warm_up(
                        Path(d), source, base * speed, base * WARM_SECONDS[client] * 0.6, per_op
                    )
                if again:
                    ran_again.add((client, name, speed))
                if SIZING.steady_rate(text)[3]:
                    levelled.add((client, name, speed))
    every = {(c, n, s) for c, rates in CLIENTS.items() for n in rates for s in (1, 4)}
    assert ran_again == {("engine", "batch_put", 1)} | {(c, n, 4) for c, n, _ in every}
    assert levelled == every


def test_the_sizing_never_lowers_the_stated_rows_and_stops_at_its_max(tmp_path: Path) -> None:
    phase = {
        "name": "p",
        "args": "--nomapred --rows=1000 randomRead 4",
        "sized": {"from": "w", "from_args": "--rows=250 randomRead 4", "floor_s": 3, "measure_s": 10},
    }
    _phase_dir(tmp_path, "w", [(100.0, 1.0)] * 10, 4, 1)  # 100 rows/s: 15.6 s want 1,560 rows, under 4 x 1000
    text = (tmp_path / "w-localhost.hlog").read_text(encoding="utf-8")
    slow = SIZING.phase_size(text, phase)
    assert slow["value"] == 1000 and "already enough" in slow["why"]
    _phase_dir(tmp_path, "w", [(100_000.0, 1.0)] * 10, 4, 1)
    text = (tmp_path / "w-localhost.hlog").read_text(encoding="utf-8")
    phase["sized"]["from_args"] = "--rows=250000 randomRead 4"  # the rows that log ran
    fast = SIZING.phase_size(text, phase)
    assert fast["value"] == 20 * 1000 and "capped at 20000" in fast["why"]  # CAP x the stated
    capped = SIZING.phase_size(text, {**phase, "sized": {**phase["sized"], "max": 5000}})
    assert capped["value"] == 5000 and capped["args"] == "--nomapred --rows=5000 randomRead 4"
    assert "may keep less than measure_s" in capped["why"]
    assert fast["rate_rows_per_s"] == pytest.approx(100_000, rel=0.01)


def test_a_source_still_warming_up_counts_its_whole_length_as_warm_up(tmp_path: Path) -> None:
    climbing = [400, 1200, 2300, 2400, 3000, 3300, 4000, 5000, 5500, 6000]
    _phase_dir(tmp_path, "w", [(n, 1.0) for n in climbing[:-1]] + [(6000, 0.4)], 1, 1)
    warm_s, rate, ops, levelled = SIZING.steady_rate(
        (tmp_path / "w-localhost.hlog").read_text(encoding="utf-8")
    )
    assert not levelled and warm_s == pytest.approx(9.0)  # nine whole intervals, still climbing
    assert ops == 33100 and rate == pytest.approx(5500)  # its fastest whole second: a lower bound


def _lab11_raw() -> dict:
    return yaml.safe_load(LAB11.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p["single_put"].pop("steady_after_s"), "measure_s needs steady_after_s"),
        (lambda p: p["single_put"].pop("measure_s"), "sized_by needs measure_s"),
        (lambda p: p["single_put"].update(sized_by={"phase": "nope"}), "not an earlier foreground pe phase"),
        (lambda p: p["single_put"].update(sized_by={"phase": "read_warm"}), "not an earlier"),
        (lambda p: p["random_read"].update(sized_by={"phase": "warmup"}), "a rate sizes only the same PE"),
        (lambda p: p["batch_put"].update(sized_by={"phase": "warmup"}), "batches its puts differently"),
        (lambda p: p["single_put"].update(sized_by="warmup"), "sized_by must be"),
        (
            lambda p: p["single_put"].update(sized_by={"phase": "warmup", "flag": "--cycles"}),
            "sized_by must be",
        ),
        (lambda p: p["single_put"].update(measure_s="{nope}"), "measure_s '{nope}' must be seconds"),
        # a sized write widens its keys past the split keys of a table made before it: it needs its own
        (
            lambda p: p["single_put"].update(args=p["single_put"]["args"].replace("--table=PutTable ", "")),
            "split keys of TestTable, which warmup made before it",
        ),
        (
            lambda p: p["batch_put"].update(args=p["batch_put"]["args"].replace("BatchTable", "PutTable")),
            "split keys of PutTable, which single_put made before it",
        ),
        (
            lambda p: p["batch_warm"].update(
                args=p["batch_warm"]["args"].replace("--multiPut", "--table=BatchTable --multiPut")
            ),
            "split keys of BatchTable, which batch_warm made before it",
        ),
        (lambda p: p["warmup"].update(level_off="yes"), "level_off must be true or false"),
        (lambda p: p["single_put"].update(level_off=True), "level_off applies to a warm-up"),
        (lambda p: p["flush"].update(level_off=True), "level_off applies to a warm-up"),
        (
            lambda p: p["single_put"].update(args=p["single_put"]["args"].replace("--rows={rows} ", "")),
            "which args must state",
        ),
    ],
)
def test_bad_time_keys_are_spec_errors(change, message: str) -> None:
    raw = _lab11_raw()
    change({p["name"]: p for p in raw["phases"]})
    with pytest.raises(SpecError, match=message):
        parse_spec(raw)


def test_the_playbook_gets_the_sizing_only_where_measure_s_is_set() -> None:
    spec = load_spec(LAB11)
    local = {p["name"]: p for p in spec.phases_for(spec.params("local"))}
    assert local["single_put"]["sized"] == {
        "from": "warmup",
        "from_args": local["warmup"]["args"],
        "floor_s": 3.0,
        "measure_s": 15.0,
    }
    assert local["random_read"]["sized"]["max"] == 250000 and "sized" not in local["scan"]
    assert local["warmup"]["again"] == {
        "from": "warmup",
        "from_args": local["warmup"]["args"],
        "floor_s": 0.0,
        "measure_s": LEVEL_OFF_S,
    }
    assert [p for p in local if "again" in local[p]] == ["warmup", "batch_warm", "read_warm"]
    ci = {p["name"]: p for p in spec.phases_for(spec.params("ci"))}
    # measure_s 0: the stated rows, as before, and no warm-up runs again, since nothing is sized from it
    assert not any("sized" in p or "again" in p for p in ci.values())


def test_a_short_scan_is_told_to_grow_its_table_not_only_its_rows() -> None:
    """A scan reads what its table holds: the report's advice for a short one names the load as well."""
    phases = {p.name: p for p in load_spec(LAB11).phases}
    assert _enough_advice(phases["random_read"], 5000) == "--rows=5000 per thread would have been enough"
    scan = _enough_advice(phases["scan"], 5000)
    assert "a table of 5000 rows per thread" in scan and "the phase that loads it" in scan
