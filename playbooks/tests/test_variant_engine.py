"""variant.yml end to end on the local inventory against the real engine distribution.

Skips (saying why) when engine/dist/target/heaplab-engine-*-bin.tar.gz has not been built.
"""

import json

import pytest

from playbooks.tests.checks import assert_conf, assert_host_record, assert_pe_phase, assert_server_files
from playbooks.tests.support import REPO


def engine_archive():
    archives = sorted((REPO / "engine" / "dist" / "target").glob("heaplab-engine-*-bin.tar.gz"))
    if not archives:
        pytest.skip(
            "no engine distribution at engine/dist/target/heaplab-engine-*-bin.tar.gz: "
            "build it with `mvn -f engine/pom.xml -q package -DskipTests` to run this test"
        )
    return archives[-1]


def test_variant_on_the_real_engine(variant_run):
    run = variant_run(engine_archive())
    result = run.run(timeout=900)
    assert result.returncode == 0, run.output()

    record = assert_host_record(run.run_dir, run.host)
    assert record["jdk"].split()[0] in {"openjdk", "java"}
    assert_conf(run.variant_dir, run.port, run.vars["heaplab_server_jvm_flags"])
    server = assert_server_files(run.variant_dir, run.host, require_events=False)
    for event in (json.loads(line) for line in (server / "gc-events.jsonl").read_text().splitlines() if line):
        assert event["duration_ms"] >= 0
    summary = assert_pe_phase(run.variant_dir, "single_put", run.host, rows=400)
    assert summary["command"] == "randomWrite"
    assert summary["threads"] == 2
    assert run.leftover_processes() == [], "a server process outlived the play"
