"""Labs 04, 06 and 09 end to end at --scale ci: the real spec, CLI, ansible-playbook, playbooks and engine.

As test_end_to_end_labs.py does for labs 07 and 08: ``python -m heaplab run <lab> --scale ci --report`` at a
throw-away root whose spec is the real one plus ``hbase.regionserver.port: "<free port>"``. Only the
variants the spec marks available run (the others wait for their engine feature and are recorded as
unavailable); the tests judge whatever ran:
- every available variant completed with its own engine-site overrides;
- every measured read got the rows its command asks for (threads x rows, or with HBase PE's --sampleRate=F
  every (int)(1/F)-th row of each thread's share), and its `admin metrics` pair parses; when the engine
  reports the read counters, the server counted exactly the gets the client made between the two reports;
- lab 04: the background writer ran during the mixed read and was stopped at its end;
- claims are judged on the run's values exactly when all their variants ran (else not measurable here),
  and the lab's notebook executes on the run.
"""

from __future__ import annotations

import json

import pytest

from heaplab.analysis.memory import load_admin_metrics
from heaplab.judge.verdict import INCONCLUSIVE, NOT_MEASURABLE
from heaplab.tests.conftest import REPO, FinishedRun
from heaplab.tests.judged import judged_ok
from heaplab.tests.shared_runs import (
    assert_run_completed,
    available_variants,
    execute_notebook,
    link_apache_hbase,
    only_variants,
    run_lab_at_ci,
    variant_names,
)
from heaplab.tests.test_end_to_end import spec_with_port

LABS = ("04-offheap-read", "06-row-index", "09-random-reads")
# The variants CI runs per lab (each lab's every mechanism at least once), so that `make test` stays under
# 30 minutes on 2 cores; the others are marked unavailable in the test's copy of the spec only, and their
# claims must then read `not measurable here`. `heaplab run <lab> --scale ci` runs them all (lab 06: 12
# variants, about 10 minutes). Lab 04: the on-heap LRU with heap-copy reads and the BucketCache with
# zero-copy reads (bucket-heap-copy is the BucketCache with heap-copy reads: both switches are already on
# and off once). Lab 09: many store files (files-10) and one compacted file with the query cache
# (query-cache); files-1 is the same compaction without the cache.
CI_VARIANTS = {
    "04-offheap-read": ("hbase1-onheap", "hbase2-offheap"),
    # and Apache HBase's two (unavailable where HBase's jars are not fetched: make apache-hbase)
    "06-row-index": ("diff-16", "row-index-16", "hbase-diff-16", "hbase-row-index-16"),
    "09-random-reads": ("files-10", "query-cache"),
}


@pytest.fixture(scope="module", params=LABS)
def e2e(request, lab_root, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    lab_name = request.param
    real = (REPO / "labs" / lab_name / "experiment.yml").read_text(encoding="utf-8")
    assert set(CI_VARIANTS[lab_name]) <= set(variant_names(real)), lab_name
    lab = lab_root(only_variants(spec_with_port(real), CI_VARIANTS[lab_name]), lab=lab_name)
    link_apache_hbase(lab.root)  # lab 06's hbase-* variants run where HBase is fetched
    return run_lab_at_ci(lab, lab_name, tmp_path_factory.mktemp("runs"), timeout=2400)


def test_run_completes(e2e: FinishedRun) -> None:
    assert_run_completed(e2e)


def expected_gets(args: str) -> int:
    """The gets a PE read command makes: each of its threads walks its share of --rows (thread i from row
    i x rows) and, sampling, gets the rows whose number is a multiple of (int)(1 / --sampleRate)."""
    words = args.split()
    flags = dict(w[2:].split("=", 1) for w in words if w.startswith("--") and "=" in w)
    rows, threads = int(flags["rows"]), int(words[-1])
    every = int(1.0 / float(flags.get("sampleRate", "1")))
    return sum(1 for t in range(threads) for row in range(t * rows, (t + 1) * rows) if row % every == 0)


def test_expected_gets_follow_the_sampling_rule() -> None:
    assert expected_gets("randomRead --rows=10 2") == 20
    assert expected_gets("randomRead --rows=10 --sampleRate=0.5 2") == 10
    assert expected_gets("randomRead --rows=10 --sampleRate=0.3 1") == 4  # rows 0, 3, 6, 9


def test_measured_reads_and_their_counters(e2e: FinishedRun) -> None:
    for name in available_variants(e2e):
        client = e2e.run / name / "client"
        phases = {p["name"]: p for p in e2e.spec.phases_for(e2e.params, e2e.spec.variants[name])}
        hbase = e2e.spec.variants[name].server == "apache-hbase"
        site_file = "hbase-site.xml" if hbase else "engine-site.xml"
        xml = (e2e.run / name / "conf" / site_file).read_text(encoding="utf-8")
        for key, value in e2e.spec.site_for(e2e.params, e2e.spec.variants[name]).items():
            if hbase and key.endswith(".port"):
                continue  # Apache HBase's ports are the free ones its role picks (docs/apache-hbase.md)
            assert f"<name>{key}</name>" in xml and f"<value>{value}</value>" in xml, (name, key)
        for exp in e2e.spec.experiments:
            read, counters = e2e.spec.measured_phase(exp), e2e.spec.memory_phase(exp)
            rows = expected_gets(phases[read.name]["args"])
            summary = json.loads((client / f"{read.name}-localhost.json").read_text(encoding="utf-8"))
            assert summary["test"] == "RandomReadTest" and summary["rows"] == rows, (name, exp)
            after = load_admin_metrics(client / f"{counters.name}-localhost.json")
            before = load_admin_metrics(client / f"{counters.baseline}-localhost.json")
            if "reads" in after.raw and "reads" in before.raw:
                gets = after.raw["reads"]["gets"] - before.raw["reads"]["gets"]
                if hbase:  # HBase's counter also takes its clients' own gets (a handful: meta lookups)
                    assert rows <= gets <= rows * 1.01, (name, exp, gets)
                else:
                    assert gets == rows, (name, exp)


def test_background_writer_was_stopped_by_the_mixed_read(e2e: FinishedRun) -> None:
    if e2e.spec.lab != "04-offheap-read" or not available_variants(e2e):
        pytest.skip("only lab 04 has a background phase, and it needs an available variant")
    for name in available_variants(e2e):
        client = e2e.run / name / "client"
        assert (client / "writer-localhost.out").exists()
        assert not (client / "writer-localhost.json").exists(), "the writer ended before the mixed read did"
        log = (e2e.run / name / "ansible.log").read_text(encoding="utf-8")
        assert "Stop background phase writer" in log


def test_claims_are_judged_exactly_when_their_variants_ran(e2e: FinishedRun) -> None:
    claims = json.loads((e2e.run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert set(claims) == {c.id for c in e2e.spec.claims}
    available = set(available_variants(e2e))
    for claim in e2e.spec.claims:
        judged = claims[claim.id]
        if not claim.measurable:
            assert judged["verdict"] == NOT_MEASURABLE and judged["why"] == claim.why, claim.id
        elif set(judged["measured"]) <= available:
            # a read metric is missing when the engine lacks its counters, or a short CI window saw no
            # young GC on the denominator's side: then the claim is inconclusive and says which
            explained = " has no " in judged["why"] or " 0, so no ratio" in judged["why"]
            assert judged["n"] == 1 or (judged["verdict"] == INCONCLUSIVE and explained), (
                claim.id,
                judged["why"],
            )
            assert judged["n"] == 0 or judged_ok(judged), claim.id
        else:
            assert judged["verdict"] == NOT_MEASURABLE, claim.id
            assert " is unavailable here: " in judged["why"]


def test_notebook_reads_the_real_run(e2e: FinishedRun) -> None:
    """The lab's notebook executes headless against the run just made and shows its tables and claims."""
    _, text = execute_notebook(REPO / "notebooks" / f"{e2e.spec.lab}.ipynb", e2e.run)
    for exp in e2e.spec.experiments:
        assert f"### {exp}" in text, exp
    assert "| data-block hit ratio | disk reads/get | CPU us/get |" in text
    for claim in e2e.spec.claims:
        assert f"| {claim.id} |" in text, claim.id
