"""infra/apache-hbase/bin/hbase-lab's own checks, which run before any JVM (so no HBase jars are needed): a
mistake on its command line is one line and exit code 2, and stopping a daemon that never ran is a no-op,
as the playbook's stop-what-an-earlier-run-left step relies on."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from heaplab.tests.conftest import REPO

HBASE_LAB = REPO / "infra" / "apache-hbase" / "bin" / "hbase-lab"


def hbase_lab(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    base = {
        "PATH": "/usr/bin:/bin",
        "ENGINE_CONF_DIR": str(tmp_path),
        "ENGINE_LOG_DIR": str(tmp_path / "logs"),
    }
    return subprocess.run(
        ["bash", str(HBASE_LAB), *args],
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        check=False,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "usage: hbase-lab start|stop|status|daemon|hdfs|pe|admin|ycsb|free-ports"),
        (
            ("bogus",),
            "ERROR: unknown command 'bogus'; valid: start, stop, status, daemon, hdfs, pe, admin, ycsb",
        ),
        (
            ("daemon", "start", "hmaster"),
            "ERROR: daemon start needs one of zookeeper, namenode, datanode, master",
        ),
        (("daemon", "restart", "master"), "ERROR: daemon needs start, stop or status, not 'restart'"),
        (("hdfs",), "ERROR: hdfs needs format or wait"),
    ],
)
def test_a_mistake_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    proc = hbase_lab(tmp_path, *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(message) and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_ycsb_names_the_engine_it_needs(tmp_path: Path) -> None:
    proc = hbase_lab(tmp_path, "ycsb", "run", "-P", "workloadc")
    assert proc.returncode != 0
    assert "ENGINE_HOME must name the engine deployed beside HBase" in proc.stderr


def test_stopping_a_daemon_that_never_ran_is_a_no_op(tmp_path: Path) -> None:
    for name in ("regionserver", "master", "zookeeper", "datanode", "namenode"):
        stop = hbase_lab(tmp_path, "daemon", "stop", name)
        assert (stop.returncode, stop.stderr) == (0, ""), name
        status = hbase_lab(tmp_path, "daemon", "status", name)
        assert (status.returncode, status.stdout.strip()) == (1, f"{name} stopped"), name


def test_a_stale_pid_file_is_not_a_running_daemon(tmp_path: Path) -> None:
    (tmp_path / "logs").mkdir()
    dead = subprocess.run(
        ["bash", "-c", "echo $$"], capture_output=True, text=True, check=True
    ).stdout.strip()
    (tmp_path / "logs" / "datanode.pid").write_text(dead + "\n", encoding="utf-8")  # that shell has exited
    stop = hbase_lab(tmp_path, "daemon", "stop", "datanode")
    assert stop.returncode == 0 and not (tmp_path / "logs" / "datanode.pid").exists()
