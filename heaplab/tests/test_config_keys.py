"""heaplab.run.config_keys and heaplab.run.startup_check on real server logs: a committed run of
results/reference (copied to tmp_path before a line is added) and the WARN line the engine writes
(ConfigurationStartupTest starts a real server that writes it; its text is ServerMain.UNKNOWN_KEYS)."""

from __future__ import annotations

import shutil
from pathlib import Path

from heaplab.run import config_keys, startup_check
from heaplab.tests.conftest import reference_series

VARIANT = reference_series("07-write-pipeline")[0] / "sync-preassign"
WARN = (
    "2026-11-29T05:18:31.340Z WARN  [main] unknown configuration keys (not read by the engine): "
    "hbase.rpc.server.iml, heaplab.regionserver.write.pth"
)


def copy_variant(tmp_path: Path) -> Path:
    v = tmp_path / "sync-preassign"
    shutil.copytree(VARIANT / "conf", v / "conf")
    shutil.copytree(VARIANT / "server", v / "server", ignore=shutil.ignore_patterns("gc-*"))
    return v


def add_line(log: Path, line: str, after: str = "starting region server:") -> None:
    lines = log.read_text(encoding="utf-8").splitlines()
    at = next(i for i, x in enumerate(lines) if after in x) + 1
    log.write_text("\n".join([*lines[:at], line, *lines[at:]]) + "\n", encoding="utf-8")


def test_a_log_without_the_line_has_no_unknown_keys() -> None:
    assert config_keys.from_log((VARIANT / "server/localhost/server.log").read_text(encoding="utf-8")) == []
    assert config_keys.unknown_keys(VARIANT) == []


def test_the_warn_line_gives_its_keys() -> None:
    assert config_keys.from_log(f"x\n{WARN}\ny\n") == [
        "hbase.rpc.server.iml",
        "heaplab.regionserver.write.pth",
    ]


def test_the_keys_of_every_server_and_the_master_are_merged(tmp_path: Path) -> None:
    v = copy_variant(tmp_path)
    add_line(v / "server/localhost/server.log", WARN)
    shutil.copytree(v / "server/localhost", v / "server/n2")
    add_line(
        v / "server/n2/server.log", WARN.replace("hbase.rpc.server.iml, ", "hbase.master.handler.cont, ")
    )
    (v / "master/n1").mkdir(parents=True)
    (v / "master/n1/master.log").write_text(WARN.replace("heaplab.regionserver.write.pth", "hbase.x") + "\n")
    assert config_keys.unknown_keys(v) == [
        "hbase.master.handler.cont",
        "hbase.rpc.server.iml",
        "hbase.x",
        "heaplab.regionserver.write.pth",
    ]


def test_startup_check_records_the_keys_and_warns(tmp_path: Path) -> None:
    v = copy_variant(tmp_path)
    add_line(v / "server/localhost/server.log", WARN)
    entry: dict[str, object] = {}
    out: list[str] = []
    assert startup_check.check_variant(v, entry, out.append) is None  # a typo alone fails nothing
    assert entry == {"unknown_config_keys": ["hbase.rpc.server.iml", "heaplab.regionserver.write.pth"]}
    assert out == [
        "[sync-preassign] WARNING: the servers do not know these configuration keys "
        "(a typo runs the default): hbase.rpc.server.iml, heaplab.regionserver.write.pth"
    ]


def test_startup_check_returns_the_switch_mismatch(tmp_path: Path) -> None:
    v = copy_variant(tmp_path)
    legacy = VARIANT.parent / "sync-legacy-mvcc/server/localhost/server.log"
    (v / "server/localhost/server.log").write_text(legacy.read_text(encoding="utf-8"), encoding="utf-8")
    entry: dict[str, object] = {}
    out: list[str] = []
    assert startup_check.check_variant(v, entry, out.append) == (
        "the server ran LegacyMvcc for hbase.hregion.mvcc.preassign=true, the profile asks PreassignedMvcc"
    )
    assert entry == {"unknown_config_keys": []} and out == []
