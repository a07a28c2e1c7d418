"""Lab 02 end to end at --scale ci: the real spec, CLI, ansible-playbook, playbooks, engine and YCSB.

One run, shared by every test of the module: ``python -m heaplab run 02-g1-tuning --scale ci --report`` at a
throw-away root whose spec is the real one plus a free ``hbase.regionserver.port`` and without the
``parallel`` and ``g1-no-refproc`` variants and their claims (each differs from g1-default in its flags
only; five variants would take the run past the ci budget), with ``--java-home`` a JDK 21+ of this machine
when there is one (then zgc runs, on generational ZGC), else the JDK on PATH (then zgc must be recorded
unavailable, saying why). Then:
- every variant that ran started its region server with its own collector (the GC log's first line) and
  exactly its flags, and the measured YCSB run read every operation of the scale; Apache HBase's two
  variants run where HBase is fetched and HEAPLAB_HBASE_TESTS=all (else they are recorded unavailable and
  their claims not measurable);
- every claim is judged on the run's values (not measurable here when declared so, or when it needs zgc and
  zgc did not run; inconclusive without a value only for a pause metric of a variant that had no pause in
  the measured window), the notebook executes on the run and shows each variant's pauses.
"""

from __future__ import annotations

import gzip
import json

import pytest
import yaml

from heaplab.analysis.gc_stats import ServerPause, in_window, load_server_gc
from heaplab.judge.verdict import INCONCLUSIVE, NOT_MEASURABLE
from heaplab.run import jdk
from heaplab.tests.conftest import REPO, FinishedRun
from heaplab.tests.judged import judged_ok
from heaplab.tests.shared_runs import execute_notebook, link_apache_hbase, run_lab_at_ci

LAB = "02-g1-tuning"
SPEC = REPO / "labs" / LAB / "experiment.yml"
COLLECTOR_LINE = {  # the unified GC log's first `[gc]` line names the collector
    "g1-default": "Using G1",
    "g1-tuned": "Using G1",
    "zgc": "Using The Z Garbage Collector",
    "hbase-g1-default": "Using G1",
    "hbase-g1-tuned": "Using G1",
}


def ci_spec_text() -> str:
    """The real spec without two variants, with a free RPC port (lab_root fills ``{port}``)."""
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    left_out = ("parallel", "g1-no-refproc")
    for name in left_out:
        del spec["variants"][name]
    for r in spec["reproduces"]:
        r["variants"] = [v for v in r["variants"] if v not in left_out]
    spec["claims"] = [c for c in spec["claims"] if not any(v in c.get("expect", "") for v in left_out)]
    spec["site"] = {"hbase.regionserver.port": "{port}", **spec["site"]}
    return yaml.safe_dump(spec, sort_keys=False)


def newer_jdk() -> str | None:
    """A JDK 21+ home of this machine for the zgc variant, or None (zgc is then unavailable)."""
    homes = jdk.local_jdks(21)
    return str(homes[-1]) if homes else None


@pytest.fixture(scope="module")
def e2e(request, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    lab = request.getfixturevalue("lab_root")(ci_spec_text(), lab=LAB)
    link_apache_hbase(lab.root)  # the hbase-* variants run where HBase is fetched and HEAPLAB_HBASE_TESTS=all
    runs = tmp_path_factory.mktemp("runs")
    java_home = newer_jdk()
    return run_lab_at_ci(lab, LAB, runs, timeout=900, extra=["--java-home", java_home] if java_home else [])


def ran(e2e: FinishedRun) -> list[str]:
    return [n for n, v in e2e.manifest["variants"].items() if v["status"] == "complete"]


def subject_ran(e2e: FinishedRun, subject: str) -> bool:
    """Every variant of a subject (Apache HBase's) ran."""
    return set(e2e.spec.subjects[subject].values()) <= set(ran(e2e))


def test_run_completes_and_zgc_runs_only_on_a_jdk_21(e2e: FinishedRun) -> None:
    assert e2e.proc.returncode == 0, e2e.output()
    assert "Traceback" not in e2e.proc.stderr
    assert e2e.manifest["status"] == "complete"
    assert set(ran(e2e)) >= {"g1-default", "g1-tuned"}, e2e.output()
    zgc = e2e.manifest["variants"]["zgc"]
    if newer_jdk():
        assert zgc["status"] == "complete", e2e.output()
        assert "-XX:+UseZGC" in zgc["server_jvm_flags"]
        assert e2e.manifest["jdk"].startswith("openjdk version") and '"17' not in e2e.manifest["jdk"]
    else:
        assert zgc["status"] == "unavailable" and zgc["why"].startswith("needs JDK 21+ on the servers")
    assert e2e.lab.leftover_processes() == [], "a server outlived the run"


def test_each_server_ran_its_own_collector_and_flags(e2e: FinishedRun) -> None:
    for name in ran(e2e):
        flags = e2e.manifest["variants"][name]["server_jvm_flags"]
        options = (e2e.run / name / "conf/jvm.options").read_text(encoding="utf-8").split()
        assert all(f in options for f in flags), (name, flags, options)
        packed = e2e.run / name / "server/localhost/gc-regionserver.log.gz"
        log = gzip.decompress(packed.read_bytes()).decode()
        assert COLLECTOR_LINE[name] in log, name
    params = e2e.params
    threads = f"-XX:ParallelGCThreads={params['gc_threads']}"
    for name in [v for v in ("g1-tuned", "hbase-g1-tuned") if v in ran(e2e)]:
        tuned = e2e.manifest["variants"][name]["server_jvm_flags"]
        for flag in ("-XX:+ParallelRefProcEnabled", "-XX:-ResizePLAB", threads):
            assert flag in tuned, name
        assert f"-XX:G1NewSizePercent={params['new_size_percent']}" in tuned, name


def test_the_measured_ycsb_run_read_every_operation(e2e: FinishedRun) -> None:
    for name in ran(e2e):
        path = e2e.run / name / "client/read-localhost.json"
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert summary["tool"] == "ycsb" and summary["command"] == "run", name
        assert summary["operations"] == e2e.params["operations"], name
        assert summary["ops"]["READ"]["operations"] == e2e.params["operations"], name
        assert not summary.get("failed"), (name, summary.get("failed"))


# The pause kinds each pause-derived metric is computed from: with none of them in the measured run's
# window, the metric has no value (a variant that did not collect in ci's short window).
NEEDED_KINDS = {"eden_evacuation_rate": ("young", "mixed"), "gc_remark_avg": ("remark",)}


def pauses_in_window(e2e: FinishedRun, name: str, metric: str) -> list[ServerPause]:
    """The server's pauses, of the kinds `metric` is computed from, that started during the measured run."""
    summary = json.loads((e2e.run / name / "client/read-localhost.json").read_text(encoding="utf-8"))
    gc = load_server_gc(e2e.run / name / "server/localhost", "localhost")
    assert gc is not None, name
    kinds = NEEDED_KINDS.get(metric)
    return [
        p
        for p in in_window(gc.pauses, summary["start_epoch_ms"], summary["end_epoch_ms"])
        if kinds is None or p.kind in kinds
    ]


def test_claims_are_judged_and_the_notebook_reads_the_run(e2e: FinishedRun) -> None:
    claims = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert set(claims) == {c.id for c in e2e.spec.claims}
    for claim in e2e.spec.claims:
        judged = claims[claim.id]
        if not claim.measurable:  # declared so, with its reason
            assert judged["verdict"] == NOT_MEASURABLE and judged["why"] == claim.why, claim.id
        elif claim.subject != "engine" and not subject_ran(e2e, claim.subject):
            assert judged["verdict"] == NOT_MEASURABLE, claim.id  # Apache HBase's twin, HBase not run here
        elif "zgc" in judged["measured"] and "zgc" not in ran(e2e):
            assert judged["verdict"] == NOT_MEASURABLE, claim.id
            assert judged["why"].startswith("zgc is unavailable here: needs JDK 21+"), judged["why"]
        elif judged["n"] == 0:  # only a pause metric of a variant with no such pause in ci's short window
            pause_metric = claim.metric.startswith("gc_pause_") or claim.metric in NEEDED_KINDS
            assert judged["verdict"] == INCONCLUSIVE and pause_metric, claim.id
            lacking = [v for v in judged["measured"] if f"{v} has no {claim.metric}" in judged["why"]]
            # or a ratio over 0: pauses all of one length (one pause) have a standard deviation of 0
            zero = [
                v
                for v in judged["measured"]
                if f"{v} has {claim.metric} 0, so no ratio" in judged["why"]
                or f"both variants have {claim.metric} 0, so no ratio" in judged["why"]
            ]
            assert lacking or (zero and claim.metric == "gc_pause_stddev"), (claim.id, judged["why"])
            assert all(not pauses_in_window(e2e, v, claim.metric) for v in lacking), (claim.id, judged["why"])
        else:  # judged on this one run's values, at whatever level they give
            assert judged["n"] == 1, (claim.id, judged["why"])
            assert judged_ok(judged), claim.id
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    assert "g1_read_100" in report
    _, text = execute_notebook(REPO / "notebooks" / f"{LAB}.ipynb", e2e.run)
    for name in ran(e2e):
        assert f"| {name} | " in text, name
    for claim in e2e.spec.claims:
        assert f"| {claim.id} |" in text, claim.id
