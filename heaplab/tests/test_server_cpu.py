"""heaplab.analysis.server_cpu: server CPU per operation from the ``admin metrics`` reports around the
measured phase, for a variant whose client summaries carry no server counters (Apache HBase), on the committed
lab 04 run (whose reads are bracketed by `admin metrics` phases) and lab 03 run (whose are not)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from heaplab.analysis.memory import MetricsFileError, load_admin_metrics
from heaplab.analysis.metrics import measure
from heaplab.analysis.server_cpu import METRIC, bracketing_phases, cpu_us_per_op
from heaplab.lab.spec import load_spec, parse_spec
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import REPO

LAB04 = sorted((REPO / "results" / "reference").glob("04-offheap-read-local-*"))[-1]
LAB03 = sorted((REPO / "results" / "reference").glob("03-offheap-write-local-*"))[-1]


def _cpu_ms(path: Path) -> float:
    return float(json.loads(path.read_text())["process"]["cpu_ms"])


def test_apache_hbase_gets_the_cpu_between_the_two_reports_per_operation() -> None:
    run = load_run(LAB04)
    for variant in ("cms-onheap-1.x", "cms-offheap-2.x"):
        m = measure(run, variant, "get_partly_cached")
        assert m.problem is None
        client = LAB04 / variant / "client"
        gets = json.loads((client / "get_big-localhost.json").read_text())["operations"]  # one row a get
        grew = _cpu_ms(client / "after_big-localhost.json") - _cpu_ms(client / "before_big-localhost.json")
        # the reports' own figure (the metric takes the /proc samples' instead where a run has them)
        from_reports = cpu_us_per_op(m.memory_baseline, m.memory, gets)
        assert from_reports == pytest.approx(grew * 1000.0 / gets)
        assert m.values[METRIC] == pytest.approx(from_reports, rel=0.02)


def test_the_reports_agree_with_the_engines_own_window_where_both_exist() -> None:
    """The engine's pe reads the servers' counters right at its first and last operation; the reports
    around the phase also hold the client's start and stop: within 2% on the committed run, and within 10%
    where a background writer starts between the baseline and the reads (mixed_read_write)."""
    run = load_run(LAB04)
    for experiment in run.spec.experiments:
        for variant in run.spec.variants_of(experiment):
            if run.spec.variants[variant].server == "apache-hbase":
                continue
            m = measure(run, variant, experiment)
            assert m.memory is not None and m.memory_baseline is not None
            bracket = cpu_us_per_op(m.memory_baseline, m.memory, sum(s.rows for s in m.summaries))
            assert isinstance(bracket, float)
            limit = 1.10 if experiment == "mixed_read_write" else 1.02
            assert 1.0 <= bracket / m.values[METRIC] <= limit, (
                experiment,
                variant,
                bracket,
                m.values[METRIC],
            )


def test_without_reports_around_the_phase_the_metric_is_left_out_saying_why(tmp_path: Path) -> None:
    """The committed lab 03 series has /proc samples around each phase (heaplab/analysis/proc_cpu.py), which
    give the metric; without them and without `admin metrics` phases nothing does."""
    assert METRIC in measure(load_run(LAB03), "cms-onheap-1.x", "single_put").values
    bare = tmp_path / LAB03.name
    skip = shutil.ignore_patterns("proc-cpu.jsonl", "*.html", "*.jfr.gz", "*.collapsed", "*.hlog")
    shutil.copytree(LAB03, bare, ignore=skip)
    m = measure(load_run(bare), "cms-onheap-1.x", "single_put")
    assert m.problem is None and METRIC not in m.values
    assert (
        m.absent[METRIC] == "no `admin metrics` phases with a baseline bracket the phase measuring single_put"
    )


SPEC = {
    "lab": "x",
    "reproduces": [{"doc": "000", "experiment": "read"}],
    "variants": {"a": {"profile": "hbase1-onheap"}},
    "scales": {"ci": {"threads": 2, "rows": 10}},
    "phases": [
        {"name": "before", "tool": "admin", "args": "metrics"},
        {"name": "read", "tool": "pe", "measure": "read", "args": "--rows={rows} randomRead 2"},
        {"name": "after", "tool": "admin", "args": "metrics", "measure": "read", "baseline": "before"},
    ],
    "claims": [],
}


def _spec(**phase_changes):
    raw = copy.deepcopy(SPEC)
    for i, change in phase_changes.items():
        raw["phases"][int(i[1:])].update(change)
    return parse_spec(raw)


def test_bracketing_phases_must_surround_the_measured_phase() -> None:
    before, after = bracketing_phases(_spec(), "read")  # type: ignore[misc]
    assert (before.name, after.name) == ("before", "after")
    raw = copy.deepcopy(SPEC)
    raw["phases"] = [raw["phases"][0], raw["phases"][2], raw["phases"][1]]  # both reports before the read
    assert bracketing_phases(parse_spec(raw), "read") == (
        "`admin metrics` phases before and after do not bracket read"
    )
    assert bracketing_phases(_spec(p2={"args": "metrics --gc"}), "read") == (
        "`admin metrics` phase after forces a collection (--gc) before its report"
    )
    assert bracketing_phases(_spec(p2={"baseline": None}), "read").startswith("no `admin metrics` phases")
    lab03 = load_spec(REPO / "labs" / "03-offheap-write" / "experiment.yml")
    assert isinstance(bracketing_phases(lab03, "single_put"), str)


def test_a_report_without_the_process_group_or_a_counter_that_fell(tmp_path: Path) -> None:
    client = LAB04 / "cms-onheap-1.x" / "client"
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    shutil.copy(client / "before_big-localhost.json", before)
    raw = json.loads((client / "after_big-localhost.json").read_text())
    after.write_text(json.dumps({k: v for k, v in raw.items() if k != "process"}))
    got = cpu_us_per_op(load_admin_metrics(before), load_admin_metrics(after), 1000)
    assert got == "no process.cpu_ms in after.json"
    after.write_text(json.dumps({**raw, "process": {"cpu_ms": 1.0}}))
    got = cpu_us_per_op(load_admin_metrics(before), load_admin_metrics(after), 1000)
    assert got == "process.cpu_ms fell between before.json and after.json (did a server restart?)"
    after.write_text(json.dumps({**raw, "process": {"cpu_ms": "lots"}}))
    with pytest.raises(MetricsFileError, match=r"process\.cpu_ms is not a number"):
        cpu_us_per_op(load_admin_metrics(before), load_admin_metrics(after), 1000)
