"""Lab 03 end to end at --scale ci: the real spec, the real CLI, ansible-playbook, playbooks and engine.

``python -m heaplab run 03-offheap-write --scale ci --report --runs-dir <tmp> --inventory <tmp inventory>``
with HEAPLAB_ROOT at a throw-away root (conftest ``lab_root``).  The spec there is
labs/03-offheap-write/experiment.yml byte for byte except ONE added line under its ``site:``,
``hbase.regionserver.port: "<free port>"``: neither the inventory nor the CLI can change a site key (the
playbook's extra vars beat host vars), and the default port 16020 may be a user's server.  Everything else
is the real spec: its ci scale, variants, phases and claims.  The inventory is the local one with
heaplab_base_dir under the temporary directory.
"""

from __future__ import annotations

import csv
import json
from typing import Any

import pytest

from heaplab.analysis.metrics import measure
from heaplab.analysis.server_cpu import METRIC as SERVER_CPU
from heaplab.analysis.server_cpu import PROC_METRIC as SERVER_CPU_PROC
from heaplab.judge.comparison import fmt
from heaplab.judge.verdict import INCONCLUSIVE, NOT_MEASURABLE
from heaplab.run.hbase_pe import unavailable_why
from heaplab.runfiles.hlog import read_intervals, read_total
from heaplab.runfiles.rundir import load_run
from heaplab.tests.conftest import PUBLISHED, REPO, FinishedRun
from heaplab.tests.judged import judged_ok
from heaplab.tests.shared_runs import run_lab_at_ci

LAB = "03-offheap-write"
REAL_SPEC = REPO / "labs" / LAB / "experiment.yml"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# report.md's single_put table: column header -> metric (published_results.csv's metric names)
COLUMNS = {
    "TPS": "throughput",
    "AVG": "latency_avg",
    "95%": "latency_p95",
    "99%": "latency_p99",
    "99.9%": "latency_p999",
    "MAX (ms)": "latency_max",
    "young GC avg pause (ms)": "young_gc_avg_pause",
    "young GC rate (1/s)": "young_gc_rate",
}


def spec_with_port(text: str) -> str:
    """The real spec with ``hbase.regionserver.port: "{port}"`` added as the first key of its site."""
    lines = text.splitlines(keepends=True)
    assert lines.count("site:\n") == 1 and "hbase.regionserver.port" not in text
    at = lines.index("site:\n") + 1
    return "".join([*lines[:at], '  hbase.regionserver.port: "{port}"\n', *lines[at:]])


@pytest.fixture(scope="module")
def e2e(lab_root, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    real = REAL_SPEC.read_text(encoding="utf-8")
    lab = lab_root(spec_with_port(real))
    # The only difference from the real spec is the port line.
    copy = lab.spec.read_text(encoding="utf-8").splitlines()
    assert [x for x in copy if x not in real.splitlines()] == [f'  hbase.regionserver.port: "{lab.port}"']
    assert len(copy) == len(real.splitlines()) + 1
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=600)


def test_run_completes(e2e: FinishedRun) -> None:
    assert e2e.proc.returncode == 0, e2e.output()
    assert "Traceback" not in e2e.proc.stderr
    m = e2e.manifest
    assert m["status"] == "complete" and m["scale"] == "ci"
    for name, variant in e2e.spec.variants.items():
        # the CMS variants run Apache HBase: unavailable where its jars are not fetched (a fresh clone)
        why = unavailable_why(variant.server, e2e.lab.root, variant.hbase_version)
        runs_here = variant.available and why is None
        assert m["variants"][name]["status"] == ("complete" if runs_here else "unavailable"), name
    assert f"report: {e2e.run / 'report.md'}" in e2e.proc.stdout
    assert e2e.lab.leftover_processes() == [], "a server outlived the run"


def test_client_summary_counts_the_ci_rows(e2e: FinishedRun) -> None:
    ci = e2e.spec.scales["ci"]
    s = e2e.summary()
    assert s["format"] == 1 and s["command"] == "randomWrite"
    assert s["threads"] == ci["threads"] and s["rows"] == ci["threads"] * ci["rows"]
    assert s["throughput"] > 0 and s["duration_ms"] > 0


def test_hlog_decodes_to_the_summary_operations(e2e: FinishedRun) -> None:
    s = e2e.summary()
    hlog = e2e.client / "single_put-localhost.hlog"
    assert read_total([hlog]).get_total_count() == s["operations"] > 0
    intervals = read_intervals(hlog)
    assert intervals and sum(i.count for i in intervals) == s["operations"]


def test_gc_events_are_json_lines(e2e: FinishedRun) -> None:
    path = e2e.run / "hbase1-onheap/server/localhost/gc-events.jsonl"
    assert path.is_file()
    for line in path.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        assert isinstance(event, dict) and event["duration_ms"] >= 0


def test_gc_logs_are_kept_gzipped(e2e: FinishedRun) -> None:
    """Every GC log of a complete variant, server and client, is stored as .gz (heaplab.runfiles.rawlogs), and
    the report's GC numbers still come from the server's log, not from gc-events.jsonl."""
    for name, entry in e2e.manifest["variants"].items():
        if entry["status"] != "complete":
            continue
        vdir = e2e.run / name
        assert list(vdir.rglob("gc-*.log")) == [], name
        packed = sorted(vdir.rglob("gc-*.log.gz"))
        assert entry["gc_logs_gzipped"] == len(packed) > 0, name
        assert (vdir / "server/localhost/gc-regionserver.log.gz").is_file(), name
    assert "from each server's unified GC log" in (e2e.run / "report.md").read_text(encoding="utf-8")


def _table_rows(report: str, experiment: str) -> tuple[list[str], dict[tuple[str, str], list[str]]]:
    """The header and the rows (by variant and source) of the experiment's table in report.md."""
    section = report.split(f"\n## {experiment} ", 1)[1].split("\n## ", 1)[0]
    table = [x for x in section.splitlines() if x.startswith("|")]

    def cells(x: str) -> list[str]:
        return [c.strip() for c in x.strip().strip("|").split("|")]

    header = cells(table[0])
    rows = {(c[0], c[1]): c for c in map(cells, table[2:])}
    return header, rows


def _published(doc: str, experiment: str, variant: str) -> dict[str, float]:
    with PUBLISHED.open(encoding="utf-8", newline="") as f:
        return {
            r["metric"]: float(r["value"])
            for r in csv.DictReader(f)
            if (r["doc"], r["experiment"], r["variant"]) == (doc, experiment, variant)
        }


def test_report_tables(e2e: FinishedRun) -> None:
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    header, rows = _table_rows(report, "single_put")
    assert header[:2] == ["variant", "source"] and header[2:] == list(COLUMNS)
    for name, published in (("hbase1-onheap", "onheap-1.x"), ("hbase2-offheap", "offheap-2.x")):
        values = _published("000", "single_put", published)
        assert values["throughput"] > 0  # the article's row has data
        row = rows[(name, f"article ({published})")]
        for column, cell in zip(header[2:], row[2:], strict=True):
            metric = COLUMNS[column]
            assert cell == fmt(metric, values.get(metric)), (name, column)
    for name in e2e.spec.variants:
        measured = rows[(name, "this run (ci)")]
        if not _ran(e2e, name):
            assert measured[2] == f"not yet available: {e2e.manifest['variants'][name]['why']}"
            continue
        throughput = _summary(e2e, name, "single_put")["throughput"]
        assert measured[2] == fmt("throughput", throughput) and abs(float(measured[2]) - throughput) <= 0.5


def _ran(e2e: FinishedRun, variant: str) -> bool:
    """Whether the variant ran here (the run records one it could not run as unavailable, with why)."""
    return e2e.manifest["variants"][variant]["status"] != "unavailable"


def _summary(e2e: FinishedRun, variant: str, phase: str) -> dict[str, Any]:
    path = e2e.run / variant / "client" / f"{phase}-localhost.json"
    return json.loads(path.read_text(encoding="utf-8"))


def test_claims_are_judged_only_on_available_variants(e2e: FinishedRun) -> None:
    claims = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert {c.id for c in e2e.spec.claims} == set(claims)
    for claim in e2e.spec.claims:
        judged = claims[claim.id]
        needed = list(judged["measured"])
        if not claim.measurable:
            assert judged["verdict"] == NOT_MEASURABLE and judged["why"] == claim.why, claim.id
        elif all(_ran(e2e, v) for v in needed):  # judged on the one run's values
            if judged["n"] == 0:  # ci's short window may hold no young GC: no pause, or a ratio over 0
                assert claim.metric.startswith("young_gc") and judged["verdict"] == INCONCLUSIVE, claim.id
                why = judged["why"]
                assert "(no young GC in the measured window)" in why or "0, so no ratio" in why, why
                continue
            assert judged["n"] == 1, (claim.id, judged["why"])
            assert judged_ok(judged), claim.id
        else:
            assert judged["verdict"] == NOT_MEASURABLE and " is unavailable here: " in judged["why"], claim.id
        if claim.metric == "throughput":  # measured values come from the client summaries
            for v in needed:
                if _ran(e2e, v):
                    expected = _summary(e2e, v, claim.experiment)["throughput"]
                    assert judged["measured"][v] == pytest.approx(expected, rel=1e-3), (claim.id, v)


def test_server_cpu_is_sampled_around_every_measured_phase(e2e: FinishedRun) -> None:
    """Every variant that ran has /proc samples of its server before and after each measured phase
    (bin/engine-proc-cpu, docs/contracts.md), and on the engine the CPU per operation they give is within a
    sane factor of the engine pe's own counter: the same processes, over a slightly wider window (the
    client JVM's start and stop). Not a timing claim: both count the same CPU seconds."""
    measured = [p.name for p in e2e.spec.phases if p.measure]
    assert measured
    for name, variant in e2e.spec.variants.items():
        if not _ran(e2e, name):
            continue
        lines = (e2e.run / name / "server/localhost/proc-cpu.jsonl").read_text(encoding="utf-8").splitlines()
        samples = [json.loads(line) for line in lines]
        assert [(x["phase"], x["at"]) for x in samples] == [
            (p, at) for p in measured for at in ("before", "after")
        ]
        assert all(x["server_cpu_s"] is not None and "error" not in x for x in samples), name
        assert all("client_cpu_s" in x for x in samples if x["at"] == "after"), "the local target's client"
        run = load_run(e2e.run)
        for experiment in (x for x in e2e.spec.experiments if name in e2e.spec.variants_of(x)):
            m = measure(run, name, experiment)
            assert m.problem is None, (name, experiment, m.problem)
            proc = m.values[SERVER_CPU_PROC]
            assert proc > 0 and m.host_cpu is not None, (name, experiment)
            if variant.server == "engine":
                assert m.server_cpu_source == "server_metrics"
                # The /proc window holds the counter's (it adds the client JVM's start and stop, which on a
                # ci phase of a second can be most of it), so it reads at least the counter's CPU, less the
                # samplers' tick granularity; no upper bound: how much wider is timing, not plumbing.
                ratio = proc / m.values[SERVER_CPU]
                assert ratio >= 0.5, (name, experiment, proc, m.values[SERVER_CPU])
            else:  # Apache HBase: its PE reads no server counters, the samples give the metric
                assert m.server_cpu_source == "proc" and m.values[SERVER_CPU] == proc


def test_figures_are_pngs(e2e: FinishedRun) -> None:
    figures = sorted((e2e.run / "figures").glob("*.png"))
    assert figures
    for png in figures:
        assert png.read_bytes()[:8] == PNG_MAGIC, png
    assert (e2e.run / "figures/single_put-latency.png") in figures
    assert "](figures/single_put-latency.png)" in (e2e.run / "report.md").read_text(encoding="utf-8")
