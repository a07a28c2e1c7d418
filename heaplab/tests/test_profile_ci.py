"""`heaplab run --profile cpu,alloc` end to end: one small real run (a module fixture shared by every test).

A throw-away lab (two variants, of which ``--variant`` selects one: one region server on a free port, a
create and one short pe phase) runs through the real CLI, playbooks, launcher and async-profiler. Then:
every flame graph the contract names exists for the server and the pe client, is an async-profiler HTML
flame graph with engine frames in it, run.json's variant has its profiler entry (events, the mode the
launcher chose and why), report.md links every flame graph with a path that exists, and the variant not
selected is recorded unavailable, saying so, and never started.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from heaplab.analysis.alloc_stages import read_collapsed
from heaplab.run.profiles import frame_names, is_flame_graph
from heaplab.tests.conftest import FinishedRun
from heaplab.tests.shared_runs import run_lab_at_ci

LAB = "03-offheap-write"
EVENTS = ["cpu", "alloc"]
SPEC = """\
lab: 03-offheap-write
title: profiler smoke test
reproduces:
  - {doc: "000", experiment: single_put}
variants:
  hbase1-onheap:
    profile: hbase1-onheap
    published: onheap-1.x
    server_jvm: ["-XX:+UseG1GC"]
    client_jvm: ["-XX:+UseG1GC"]
  hbase2-offheap:
    profile: hbase2-offheap
    published: offheap-2.x
    server_jvm: ["-XX:+UseG1GC"]
    client_jvm: ["-XX:+UseG1GC"]
scales:
  ci: {heap: 256m, client_heap: 128m, threads: 2, rows: 3000, regions: 2}
site:
  hbase.regionserver.port: "{port}"
phases:
  - {name: create, tool: admin, args: "create TestTable --presplit={regions} --rows={total_rows}"}
  - {name: single_put, tool: pe, measure: single_put,
     args: "--nomapred --oneCon=true --valueSize=100 --rows={rows} --autoFlush=true randomWrite {threads}"}
claims: []
"""


@pytest.fixture(scope="module")
def e2e(lab_root, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    lab = lab_root(SPEC, lab=LAB)
    runs = tmp_path_factory.mktemp("runs")
    extra = ["--profile", ",".join(EVENTS), "--variant", "hbase1-onheap"]
    return run_lab_at_ci(lab, LAB, runs, timeout=300, extra=extra)


def _graphs(e2e: FinishedRun) -> list[Path]:
    v = e2e.run / "hbase1-onheap"
    server = [v / "server/localhost" / f"profile-regionserver-{e}.html" for e in EVENTS]
    client = [v / "client" / f"profile-single_put-localhost-{e}.html" for e in EVENTS]
    return server + client


def test_run_completes_and_leaves_nothing_running(e2e: FinishedRun) -> None:
    assert e2e.proc.returncode == 0, e2e.output()
    assert e2e.manifest["variants"]["hbase1-onheap"]["status"] == "complete"
    assert e2e.lab.leftover_processes() == []


def test_the_variant_not_selected_is_recorded_and_never_started(e2e: FinishedRun) -> None:
    entry = e2e.manifest["variants"]["hbase2-offheap"]
    assert entry["status"] == "unavailable" and entry["why"] == "not selected (--variant hbase1-onheap)"
    assert not (e2e.run / "hbase2-offheap/server").exists()
    assert "[hbase2-offheap] skipped, not selected (--variant hbase1-onheap)" in e2e.proc.stdout


def test_every_flame_graph_is_async_profiler_html_of_the_engine(e2e: FinishedRun) -> None:
    for html in _graphs(e2e):
        assert html.is_file(), f"{html} missing; {e2e.output()}"
        assert is_flame_graph(html), html
        names = frame_names(html)
        assert any(n.startswith("org/heaplab/") for n in names), (html, names[:30])
    v = e2e.run / "hbase1-onheap"
    # no profile for admin phases (only pe and ycsb clients are profiled)
    assert not list((v / "client").glob("profile-create-*"))


def test_run_json_says_the_mode_and_why(e2e: FinishedRun) -> None:
    p = e2e.manifest["variants"]["hbase1-onheap"]["profiler"]
    assert p["events"] == EVENTS
    assert p["mode"] in ("perf_events", "ctimer"), p
    assert p["note"], p
    mode_file = e2e.run / "hbase1-onheap/server/localhost/profile-regionserver.mode"
    assert mode_file.read_text(encoding="utf-8").startswith(p["mode"] + ": ")
    assert (e2e.run / "hbase1-onheap/client/profile-single_put-localhost.mode").is_file()
    assert sorted(p["files"]) == sorted(str(g.relative_to(e2e.run / "hbase1-onheap")) for g in _graphs(e2e))


def test_report_links_every_flame_graph(e2e: FinishedRun) -> None:
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert "## Profiles" in report
    assert f"CPU sampling mode: `{e2e.manifest['variants']['hbase1-onheap']['profiler']['mode']}`" in report
    for html in _graphs(e2e):
        rel = str(html.relative_to(e2e.run))
        assert f"]({rel})" in report, rel


def test_the_measured_phase_gets_its_collapsed_alloc_profile_and_the_report_its_stages(
    e2e: FinishedRun,
) -> None:
    """The region server's recording cut over single_put (heaplab/run/alloc_profiles.py), its bytes by
    stage in report.md (heaplab/report/alloc_report.py); the recording itself kept gzipped."""
    server = e2e.run / "hbase1-onheap/server/localhost"
    collapsed = server / "profile-regionserver-alloc-single_put.collapsed"
    assert collapsed.is_file(), e2e.output()
    stacks = read_collapsed(collapsed)
    assert any(f.startswith("org.heaplab.") for s in stacks for f in s.frames)
    assert (server / "profile-regionserver.jfr.gz").is_file() and not (
        server / "profile-regionserver.jfr"
    ).exists()
    p = e2e.manifest["variants"]["hbase1-onheap"]["profiler"]
    assert p["alloc_profiles"] == ["server/localhost/profile-regionserver-alloc-single_put.collapsed"]
    assert p["alloc_notes"] == []
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert "## Where the garbage comes from" in report
    assert "| stage | hbase1-onheap (engine) |" in report
