"""`heaplab run` at ci scale through the REAL playbooks and engine: a variant whose region server ran another
path than its configuration asks fails with one line, and a typo'd key is recorded in run.json.

One real run of lab 03's small ci spec (test_runner.small_spec) with two engine variants:

  hbase1-onheap  its site has a typo'd key (hbase.rpc.server.iml): the server warns about it and runs the
                 profile's SimpleRpcServer, so the variant completes, with the key in run.json;
  elsewhere      the same profile, but a JVM flag -Dengine.conf.dir points its server at another, existing
                 configuration directory (a JVM system property wins over ENGINE_CONF_DIR): the server
                 runs that file's defaults (NettyRpcServer, PreassignedMvcc), not the SimpleRpcServer and
                 LegacyMvcc its engine-site.xml asks. Every phase works; only the start-up lines tell,
                 and the variant fails on them.

Nothing is faked: both servers really ran, and run.json is heaplab's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from heaplab.tests.conftest import FinishedRun, LabRoot
from heaplab.tests.test_runner import real_run, small_spec

RUN_TIMEOUT_S = 900  # two variants on a shared machine
TYPO = "hbase.rpc.server.iml"
MISMATCH = (
    "the server ran NettyRpcServer for hbase.rpc.server.impl=SimpleRpcServer, "
    "the profile asks SimpleRpcServer"
)


def switch_spec(elsewhere: Path) -> str:
    raw = yaml.safe_load(small_spec())
    onheap = raw["variants"]["hbase1-onheap"]
    raw["variants"] = {
        "hbase1-onheap": {**onheap, "site": {TYPO: "NettyRpcServer"}},
        "elsewhere": {
            **{k: v for k, v in onheap.items() if k != "published"},
            "server_jvm": [*onheap["server_jvm"], f"-Dengine.conf.dir={elsewhere}"],
        },
        "hbase2-offheap": raw["variants"]["hbase2-offheap"],  # unavailable, as in test_runner
    }
    return yaml.safe_dump(raw, sort_keys=False)


def write_elsewhere(conf: Path, lab: LabRoot) -> None:
    """Another configuration directory: the run's address and a data directory of its own, every switch
    at the engine's default."""
    conf.mkdir(parents=True, exist_ok=True)
    props = {
        "hbase.rootdir": str(conf.parent / "data"),
        "hbase.regionserver.hostname": "localhost",
        "hbase.regionserver.port": str(lab.port),
    }
    body = "".join(f"  <property><name>{k}</name><value>{v}</value></property>\n" for k, v in props.items())
    (conf / "engine-site.xml").write_text(f"<configuration>\n{body}</configuration>\n", encoding="utf-8")


@pytest.fixture(scope="module")
def elsewhere(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The other configuration directory the "elsewhere" variant's server is pointed at."""
    return tmp_path_factory.mktemp("elsewhere") / "conf"


@pytest.fixture(scope="module")
def switch_run(lab_root, elsewhere: Path) -> FinishedRun:
    lab = lab_root(switch_spec(elsewhere))
    write_elsewhere(elsewhere, lab)
    return real_run(lab, RUN_TIMEOUT_S)


def test_the_variant_whose_server_ran_another_path_fails_with_one_line(
    switch_run: FinishedRun, elsewhere: Path
) -> None:
    r, m = switch_run, switch_run.manifest
    assert r.proc.returncode == 1, r.output()
    assert "Traceback" not in r.proc.stderr
    assert m["status"] == "failed"
    entry = m["variants"]["elsewhere"]
    assert entry["status"] == "failed"
    # SimpleRpcServer's request buffers and the MVCC were not what the profile asks either
    assert entry["error"] == f"{MISMATCH} (and 2 more: see server/<host>/server.log)", entry["error"]
    assert f"[elsewhere] FAILED: {entry['error']}" in r.proc.stdout
    # the phases themselves ran: only the start-up lines tell
    summary = json.loads((r.run / "elsewhere/client/single_put-localhost.json").read_text(encoding="utf-8"))
    assert summary["rows"] == 600
    log = (r.run / "elsewhere/server/localhost/server.log").read_text(encoding="utf-8")
    assert f"starting region server: conf {elsewhere}/engine-site.xml (engine.conf.dir={elsewhere})" in log
    assert "INFO  [main] rpc server: NettyRpcServer" in log
    assert entry["unknown_config_keys"] == []
    assert r.lab.leftover_processes() == []


def test_a_typoed_key_is_recorded_and_warned_but_the_profile_ran(switch_run: FinishedRun) -> None:
    r, m = switch_run, switch_run.manifest
    entry = m["variants"]["hbase1-onheap"]
    assert entry["status"] == "complete" and entry["error"] is None, entry
    assert entry["unknown_config_keys"] == [TYPO]
    warning = "WARNING: the servers do not know these configuration keys (a typo runs the default)"
    assert f"[hbase1-onheap] {warning}: {TYPO}" in r.proc.stdout
    log = (r.run / "hbase1-onheap/server/localhost/server.log").read_text(encoding="utf-8")
    assert f"WARN  [main] unknown configuration keys (not read by the engine): {TYPO}" in log
    assert "INFO  [main] rpc server: SimpleRpcServer" in log  # the profile's value: the typo changed nothing
    assert "unknown_config_keys" not in m["variants"]["hbase2-offheap"]  # it did not run
