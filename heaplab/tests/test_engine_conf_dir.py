"""The built distribution's bin/engine and bin/engine-daemon with an ENGINE_CONF_DIR that was given but is
wrong (docs/contracts.md section 1): every command stops with one ERROR line naming the directory, exit 1,
before it serves or connects; only the default <home>/conf may be absent.

Real processes: the distribution archive (conftest ``engine_archive``) unpacked into a temporary directory.
No server ever binds a port here (each stops on its configuration first), so nothing on this shared machine
is touched."""

from __future__ import annotations

import os
import subprocess
import tarfile
from pathlib import Path

import pytest

COMMANDS = {
    "regionserver": [],
    "master": [],
    "pe": ["--nomapred", "--rows=10", "randomWrite", "1"],
    "admin": ["tables"],
    "ycsb": ["load", "-P", "workloada"],
}


@pytest.fixture(scope="module")
def home(engine_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The distribution, unpacked: <tmp>/heaplab-engine-<version>/."""
    where = tmp_path_factory.mktemp("dist")
    with tarfile.open(engine_archive) as tar:
        tar.extractall(where, filter="tar")
    (unpacked,) = where.iterdir()
    return unpacked


def engine(
    home: Path, *args: str, conf: str | None, cwd: Path, tool: str = "engine"
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGINE_")}
    env |= {"ENGINE_LOG_DIR": str(cwd / "logs"), "ENGINE_OPTS": "-Xmx64m -XX:+UseSerialGC"}
    if conf is not None:
        env["ENGINE_CONF_DIR"] = conf
    return subprocess.run(
        [str(home / "bin" / tool), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_missing_conf_dir_stops_every_command_with_one_line(
    home: Path, tmp_path: Path, command: str
) -> None:
    missing = tmp_path / "nonexistent"
    p = engine(home, command, *COMMANDS[command], conf=str(missing), cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stderr.strip().splitlines() == [
        f"ERROR: the configuration directory {missing} does not exist (ENGINE_CONF_DIR={missing})"
    ]
    assert "serving on" not in p.stdout


@pytest.mark.parametrize("command", ["regionserver", "pe"])
def test_a_conf_dir_without_engine_site_stops_the_command(home: Path, tmp_path: Path, command: str) -> None:
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "hbase-site.xml").write_text("<configuration/>\n")  # somebody else's configuration
    p = engine(home, command, *COMMANDS[command], conf=str(conf), cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stderr.strip() == (
        f"ERROR: the configuration directory {conf} has no engine-site.xml (ENGINE_CONF_DIR={conf})"
    )


def test_a_relative_conf_dir_names_the_working_directory(home: Path, tmp_path: Path) -> None:
    p = engine(home, "regionserver", conf="conf", cwd=tmp_path)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stderr.strip() == (
        f"ERROR: the configuration directory {tmp_path / 'conf'} does not exist "
        f"(ENGINE_CONF_DIR=conf, relative to the working directory {tmp_path})"
    )


def test_the_daemon_reports_the_line_and_leaves_no_pid_file(home: Path, tmp_path: Path) -> None:
    missing = tmp_path / "nonexistent"
    p = engine(home, "start", "regionserver", conf=str(missing), cwd=tmp_path, tool="engine-daemon")
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stderr.startswith("ERROR: regionserver (pid ")
    assert f"ERROR: the configuration directory {missing} does not exist" in p.stderr
    assert not (tmp_path / "logs" / "regionserver.pid").exists()


def test_the_default_conf_dir_is_read_when_nothing_is_given(home: Path, tmp_path: Path) -> None:
    """Unset, ENGINE_CONF_DIR is <home>/conf: its engine-site.xml (here: port 1, where nothing listens) is
    what admin connects with."""
    site = home / "conf" / "engine-site.xml"
    original = site.read_text(encoding="utf-8")
    try:
        site.write_text(
            "<configuration><property><name>hbase.regionserver.port</name><value>1</value></property>"
            "</configuration>\n",
            encoding="utf-8",
        )
        p = engine(home, "admin", "tables", conf=None, cwd=tmp_path)
    finally:
        site.write_text(original, encoding="utf-8")
    assert p.returncode == 1, p.stdout + p.stderr
    assert "no region server at localhost:1" in p.stderr and "configuration directory" not in p.stderr
