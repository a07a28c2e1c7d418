"""Errors the servers logged (heaplab.runfiles.server_errors): counted per variant, shown in the report, named
in the verdicts that use the variant. The log lines are copied from real server logs of the reference runs."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.judge.claims import _error_note
from heaplab.lab.expectation import parse_expectation
from heaplab.runfiles.rundir import load_run
from heaplab.runfiles.server_errors import ServerErrors, report_lines, scan, scan_log, summary
from heaplab.tests.fabricate import Shape

REPO = Path(__file__).resolve().parents[2]
CONTRACT = "java.lang.IllegalArgumentException: Comparison method violates its general contract!"
ENGINE_LOG = f"""\
Nov 25, 2026 10:18:30 PM org.heaplab.server.RegionServer start
INFO: region server listening on 16020
Nov 25, 2026 10:18:33 PM org.heaplab.core.cache.bucket.BucketCache write
SEVERE: bucket cache write of BlockCacheKey[fileId=51, offset=1955221] failed
{CONTRACT}
\tat java.base/java.util.TimSort.mergeLo(TimSort.java:781)
Nov 25, 2026 10:18:35 PM org.heaplab.core.cache.bucket.BucketCache write
SEVERE: bucket cache write of BlockCacheKey[fileId=54, offset=558696] failed
{CONTRACT}
Nov 25, 2026 10:18:36 PM org.heaplab.core.wal.Wal roll
WARNING: slow sync 1200 ms
Exception in thread "lru-block-cache-eviction" {CONTRACT}
\tat org.heaplab.core.cache.LruEvictor$Group.free(LruEvictor.java:76)
"""
HBASE_LOG = """\
2026-11-25 12:34:47,321 INFO  [main] util.VersionInfo: HBase 2.6.4
2026-11-25 12:40:01,001 ERROR [RpcServer.default.FPBQ.Fifo.handler=3] ipc.RpcServer: Unexpected throwable
2026-11-25 12:40:02,002 WARN  [main] util.Something: not an error
2026-11-25 12:44:12,461 INFO  [shutdown-hook-0] regionserver.ShutdownHook: Shutdown hook starting
2026-11-25 12:44:30,699 ERROR [RS:0;localhost:45179] zookeeper.RecoverableZooKeeper: ZooKeeper delete failed
"""


def _scan_text(tmp_path: Path, text: str) -> ServerErrors:
    log = tmp_path / "server.log"
    log.write_text(text, encoding="utf-8")
    found = ServerErrors()
    scan_log(log, "localhost", found)
    return found


def test_engine_errors_are_counted_with_their_exception_and_repeats_collapse(tmp_path: Path) -> None:
    found = _scan_text(tmp_path, ENGINE_LOG)
    assert found.count == 3  # two SEVERE and one uncaught exception; INFO and WARNING are not errors
    assert found.messages == [
        "localhost: SEVERE: bucket cache write of BlockCacheKey[fileId=51, offset=1955221] failed "
        f"({CONTRACT})",
        f'localhost: Exception in thread "lru-block-cache-eviction" {CONTRACT}',
    ]


def test_hbase_errors_count_until_the_region_server_stops(tmp_path: Path) -> None:
    found = _scan_text(tmp_path, HBASE_LOG)
    assert found.count == 1
    assert found.messages == ["localhost: ipc.RpcServer: Unexpected throwable"]


def test_hbase_14s_zookeeper_start_line_is_not_an_error(tmp_path: Path) -> None:
    """HBase 1.4.14's standalone server logs this ERROR at every start (copied from lab 03's hbase14-cms)."""
    zk = (
        "2026-12-01 23:47:04,001 ERROR [main] server.ZooKeeperServer: ZKShutdownHandler is not registered, "
        "so ZooKeeper server won't take any action on ERROR or SHUTDOWN server state changes\n"
    )
    assert _scan_text(tmp_path, zk).count == 0
    other = zk.replace("ZKShutdownHandler is not registered", "Unexpected exception")
    assert _scan_text(tmp_path, other).count == 1


def test_zookeepers_cancelled_key_at_a_clients_close_is_not_an_error(tmp_path: Path) -> None:
    """HBase 1.4.14's ZooKeeper 3.4 answers a session close after the pe client closed its socket (copied
    from lab 07's hbase14-async-preassign, at the end of a phase); the same line with another cause counts."""
    zk = (
        "2026-12-03 16:25:59,656 ERROR [SyncThread:0] server.NIOServerCnxn: Unexpected Exception: \n"
        "java.nio.channels.CancelledKeyException\n"
        "\tat java.base/sun.nio.ch.SelectionKeyImpl.ensureValid(Unknown Source)\n"
    )
    assert _scan_text(tmp_path, zk).count == 0
    other = zk.replace("java.nio.channels.CancelledKeyException", "java.lang.IllegalStateException: boom")
    found = _scan_text(tmp_path, other)
    assert found.count == 1 and found.messages == ["localhost: server.NIOServerCnxn: Unexpected Exception:"]


def test_the_engine_server_logs_error_lines_count(tmp_path: Path) -> None:
    full = (
        "no space left on device: WAL write to /data/WALs/wal.1 failed: No space left on device; "
        "/data (tmpfs) has 0 bytes free of 8388608 (hbase.rootdir /data)"
    )
    found = _scan_text(
        tmp_path,
        "2026-11-29T05:35:08.253Z INFO  [main] region server serving on localhost:1\n"
        f"2026-11-29T05:35:08.253Z ERROR [RpcServer.handler=3,queue=0,all] {full}\n"
        "2026-11-29T05:35:08.300Z WARN  [main] not an error\n",
    )
    assert found.count == 1 and found.messages == [f"localhost: {full}"]


def test_a_clean_log_has_no_errors(tmp_path: Path) -> None:
    found = _scan_text(tmp_path, "INFO: started\nWARNING: slow\n2026-11-25 12:34:47,321 INFO  [main] x: y\n")
    assert found.count == 0 and summary({}) == "none" and report_lines({}) == []


# Every reference series was made after the fix of the evictors' sort error (results/reference/README.md,
# "Server errors"): no committed reference run may hold a server error of any kind.
@pytest.mark.parametrize(
    "run",
    sorted(p for p in (REPO / "results/reference").iterdir() if (p / "run.json").is_file()),
    ids=lambda p: p.name,
)
def test_no_reference_run_holds_a_server_error(run: Path) -> None:
    found = scan(load_run(run))
    assert [m for e in found.values() for m in e.messages] == []


def test_a_report_names_the_errors_and_the_verdicts_that_use_the_variant(
    make_pair: Callable[..., Path],
) -> None:
    run = make_pair(Shape(), Shape(young_gcs=1))
    log = run / "hbase2-offheap/server/localhost/server.log"
    log.write_text(log.read_text(encoding="utf-8") + ENGINE_LOG, encoding="utf-8")
    assert main(["report", str(run)]) == 0
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "- server errors: **3 error lines, in hbase2-offheap (3)** (section Server errors)" in report
    assert "## Server errors" in report
    judged = [c for c in json.loads((run / "claims.json").read_text())["claims"].values() if c["n"]]
    assert judged and all("hbase2-offheap" in c["measured"] for c in judged)  # lab 03 compares the two
    for c in judged:
        assert "CAUTION: the servers of hbase2-offheap (in pair) logged errors" in c["why"], c["why"]


def test_only_a_verdict_that_uses_an_erroring_variant_is_cautioned() -> None:
    exp = parse_expectation("row-index-16 >= 1.1 * none-16")
    assert _error_note(exp, {"diff-16": ["run-1"]}) == ""
    note = _error_note(exp, {"none-16": ["run-1", "run-3"], "diff-16": ["run-2"]})
    assert note == "; CAUTION: the servers of none-16 (in run-1, run-3) logged errors (report: Server errors)"


def test_a_clean_run_says_none(make_pair: Callable[..., Path]) -> None:
    run = make_pair(Shape(), Shape(young_gcs=1))
    assert main(["report", str(run)]) == 0
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "- server errors: none" in report and "## Server errors" not in report
    claims = json.loads((run / "claims.json").read_text())["claims"].values()
    assert not any("CAUTION" in c["why"] for c in claims)
