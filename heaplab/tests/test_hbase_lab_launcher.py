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


def hbase14_lab(tmp_path: Path) -> Path:
    """The launcher in a tree fetch.sh would pack for HBase 1.4.14 (its version file); no jars are needed
    for what these tests run: the checks before any JVM."""
    home = tmp_path / "apache-hbase-1.4.14"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "hbase-lab").write_bytes(HBASE_LAB.read_bytes())
    (home / "hbase.version").write_text("1.4.14\n", encoding="utf-8")
    return home / "bin" / "hbase-lab"


def run14(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": "/usr/bin:/bin",
        "ENGINE_CONF_DIR": str(tmp_path),
        "ENGINE_LOG_DIR": str(tmp_path / "logs"),
    }
    return subprocess.run(
        ["bash", str(hbase14_lab(tmp_path)), *args], capture_output=True, text=True, env=env, check=False
    )


@pytest.mark.parametrize(
    ("value", "buffer"),
    [("--valueSize=200", 100 * (26 + 358 + 200) - 1), ("--nomapred", 100 * (26 + 358 + 1000) - 1)],
)
def test_hbase_14_pe_says_it_runs_multiput_as_the_buffered_substitute(
    tmp_path: Path, value: str, buffer: int
) -> None:
    """PE 1.4 has no --multiPut: the launcher names the substitute on its first line (heaplab's summary keeps
    it), then needs the server's network namespace, which no server holds here: one line, exit 1."""
    proc = run14(tmp_path, "pe", value, "--autoFlush=true", "--multiPut=100", "randomWrite", "4")
    assert proc.stdout.splitlines()[0] == (
        "hbase-lab: buffered substitute for --multiPut=100 (HBase 1.4.14 PE has no --multiPut): "
        f"--autoFlush=false --bufferSize={buffer}, a flush every 100 puts of {(buffer + 1) // 100} heap bytes"
    )
    assert proc.returncode == 1
    assert proc.stderr.startswith("ERROR: HBase 1.4.14 serves only inside its server's network namespace")
    assert len(proc.stderr.strip().splitlines()) == 1


def test_hbase_14_single_puts_are_left_as_they_are(tmp_path: Path) -> None:
    proc = run14(tmp_path, "pe", "--valueSize=200", "--autoFlush=true", "randomWrite", "4")
    assert "buffered substitute" not in proc.stdout and proc.returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("daemon", "start", "master"), "ERROR: HBase 1.4.14 runs standalone only"),
        (("hdfs", "format"), "ERROR: HBase 1.4.14 runs standalone only"),
        (("ycsb", "run", "-P", "workloadc"), "ERROR: ycsb is not supported for HBase 1.4.14"),
    ],
)
def test_hbase_14_refuses_what_it_does_not_support(
    tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    proc = run14(tmp_path, *args)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(message) and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
