"""heaplab.run.switch_check on real start-up lines: the committed runs of results/reference (read, never
written; variant directories are copied to tmp_path before a test changes anything), and the lines the
current engine writes (``CURRENT``, from a real region server: the block cache line is new)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from heaplab.run import switch_check
from heaplab.tests.conftest import REPO, reference_series

REFERENCE = REPO / "results" / "reference"
LAB03 = reference_series("03-offheap-write")[0]
LAB05 = reference_series("05-netty-rpc")[0]
LAB07 = reference_series("07-write-pipeline")[0]
LAB08 = reference_series("08-memstore-memory")[-1]

# The start-up of a region server of today's engine (bin/engine regionserver of the distribution, the
# hbase2-offheap profile with a 32 MB bucket cache and 4 handlers, stopped with SIGTERM; temporary paths
# shortened): the block cache line is new, the read path has two lines.
CURRENT = (Path(__file__).parent / "data" / "startup-lines" / "server.log").read_text(encoding="utf-8")


def site(variant: Path) -> dict[str, str]:
    return switch_check.read_site(variant / "conf" / "engine-site.xml")


def log(variant: Path) -> str:
    (path,) = variant.glob("server/*/server.log")
    return path.read_text(encoding="utf-8")


def copy_variant(src: Path, dst: Path) -> Path:
    """The conf/ and server/ of a reference variant, in a directory a test may change."""
    shutil.copytree(src / "conf", dst / "conf")
    shutil.copytree(src / "server", dst / "server", ignore=shutil.ignore_patterns("gc-*"))
    return dst


# --- runs that ran what they asked ------------------------------------------------------------------------


# the engine's variants (HBase 1.4.14's have an hbase-site.xml, and no switches of ours to check)
@pytest.mark.parametrize(
    "variant", sorted(p.name for p in LAB07.iterdir() if (p / "conf" / "engine-site.xml").is_file())
)
def test_lab07s_mvcc_and_write_path_variants_ran_what_they_asked(variant: str) -> None:
    assert not variant.startswith("hbase14-")
    v = LAB07 / variant
    assert switch_check.mismatches(site(v), log(v)) == []
    assert switch_check.check_variant(v) is None
    asked = {e.line: e.cls for e in switch_check.expectations(site(v))}
    assert asked["write path"] == ("StagedWritePath" if variant == "sync-staged" else "LegacyWritePath")
    assert asked["mvcc"] == ("LegacyMvcc" if "legacy-mvcc" in variant else "PreassignedMvcc")
    assert asked["rpc server"] == "SimpleRpcServer"


@pytest.mark.parametrize(
    "variant", ["plain", "mslab-skiplist", "mslab-chunkmap", "offheap-skiplist", "offheap-chunkmap"]
)
def test_lab08s_memstore_variants_ran_what_they_asked(variant: str) -> None:
    v = LAB08 / variant
    assert switch_check.check_variant(v) is None
    asked = {e.line: e.cls for e in switch_check.expectations(site(v))}
    ran = switch_check.startup_classes(log(v))
    assert asked["memstore index"] == ("CompactingIndex" if "chunkmap" in variant else "SkipListIndex")
    assert asked["memstore cells"] == ("PlainCellStorage" if variant == "plain" else "MslabCellStorage")
    pools = {"plain": None, "mslab": "HeapChunkPool", "offheap": "OffheapChunkPool"}
    chunks = pools[variant.split("-", maxsplit=1)[0]]
    assert asked.get("memstore chunks") == chunks  # plain cells have no chunk pool to check
    assert ran.get("memstore chunks", [None]) == [chunks]


def test_the_startup_classes_of_a_real_log() -> None:
    assert switch_check.startup_classes(log(LAB03 / "hbase2-offheap-min0")) == {
        "rpc server": ["SimpleRpcServer"],
        "request buffers": ["DirectBufferPool"],
        "cell decoding": ["ZeroCopyCellDecoder"],
        "responses": ["PooledDirectResponseEncoder"],
        "read path": ["ZeroCopyReadPath", "ZeroCopyReadPath"],  # both of its lines
        "block cache": ["CombinedBlockCache"],
        "memstore index": ["SkipListIndex"],
        "memstore cells": ["MslabCellStorage"],
        "memstore chunks": ["HeapChunkPool"],
        "mvcc": ["PreassignedMvcc"],
        "write path": ["LegacyWritePath"],
    }


def test_the_current_engines_lines_show_every_switch_of_the_profile() -> None:
    profile = switch_check.read_site(REPO / "engine/dist/src/conf/profiles/hbase2-offheap.xml")
    assert set(switch_check.SWITCH_KEYS) <= set(profile)  # the profile sets every switch
    assert switch_check.mismatches(profile, CURRENT) == []
    ran = switch_check.startup_classes(CURRENT)
    assert ran["block cache"] == ["CombinedBlockCache"]
    assert ran["read path"] == ["ZeroCopyReadPath", "ZeroCopyReadPath"]  # both of its lines agree


# --- runs that did not ------------------------------------------------------------------------------------


def test_a_server_that_ran_the_other_mvcc_fails_with_one_line() -> None:
    """The configuration of lab 07's legacy-MVCC variant against the log of its preassign twin."""
    asked = site(LAB07 / "sync-legacy-mvcc")
    assert switch_check.mismatches(asked, log(LAB07 / "sync-preassign")) == [
        "the server ran PreassignedMvcc for hbase.hregion.mvcc.preassign=false, the profile asks LegacyMvcc"
    ]


def test_a_server_that_ran_netty_for_a_simple_rpc_variant() -> None:
    """Lab 05's SimpleRpcServer variant against the log of its NettyRpcServer twin: the RPC server, and the
    request buffers the pool key chooses under the server the profile asks."""
    found = switch_check.mismatches(site(LAB05 / "simple-rpc"), log(LAB05 / "netty-rpc"))
    assert found[:2] == [
        "the server ran NettyRpcServer for hbase.rpc.server.impl=SimpleRpcServer, "
        "the profile asks SimpleRpcServer",
        "the server ran NettyRequestBuffers for hbase.server.allocator.pool.enabled=true, "
        "the profile asks DirectBufferPool",
    ]


def test_an_engine_that_never_named_its_block_cache_fails_on_that_switch_only() -> None:
    """Engines before 2026-11-29 logged no block cache line: their bucket-cache variants cannot show it.
    Planted: a lab 05 variant's real start-up lines without that one line."""
    v = LAB05 / "simple-rpc"
    text = log(v)
    older = "\n".join(line for line in text.splitlines() if " [main] block cache: " not in line)
    assert older != text and switch_check.mismatches(site(v), text) == []
    assert switch_check.mismatches(site(v), older) == [
        "the start-up lines of the server name no block cache for hbase.bucketcache.ioengine=offheap, "
        "the profile asks CombinedBlockCache"
    ]


def test_check_variant_gives_the_first_mismatch_and_counts_the_rest(tmp_path: Path) -> None:
    v = copy_variant(LAB07 / "sync-staged", tmp_path / "sync-staged")
    (log_path,) = v.glob("server/*/server.log")
    # a server that ran the legacy paths
    log_path.write_text(log(LAB07 / "sync-legacy-mvcc"), encoding="utf-8")
    assert switch_check.check_variant(v) == (
        "the server ran LegacyMvcc for hbase.hregion.mvcc.preassign=true, the profile asks PreassignedMvcc "
        "(and 1 more: see server/<host>/server.log)"
    )


def test_check_variant_names_the_host_among_several(tmp_path: Path) -> None:
    v = copy_variant(LAB07 / "sync-preassign", tmp_path / "v")
    shutil.copytree(v / "server/localhost", v / "server/n2")
    (v / "server/n2/server.log").write_text(log(LAB07 / "sync-legacy-mvcc"), encoding="utf-8")
    assert switch_check.check_variant(v) == (
        "the server on n2 ran LegacyMvcc for hbase.hregion.mvcc.preassign=true, "
        "the profile asks PreassignedMvcc"
    )


def test_a_variant_without_its_logs_cannot_be_checked(tmp_path: Path) -> None:
    v = copy_variant(LAB07 / "sync-preassign", tmp_path / "v")
    shutil.rmtree(v / "server")
    assert switch_check.check_variant(v) == (
        "no server/<host>/server.log was collected: which path the server ran cannot be checked"
    )


def test_only_the_last_startup_of_a_log_counts() -> None:
    """A log holding two starts (a restarted server) is judged by the second."""
    two = log(LAB07 / "sync-preassign") + log(LAB07 / "sync-legacy-mvcc")
    assert switch_check.startup_classes(two)["mvcc"] == ["LegacyMvcc"]


# --- values as the engine reads them ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "line", "cls"),
    [
        ("hbase.rpc.server.impl", " BlockingRpcServer ", "rpc server", "SimpleRpcServer"),  # the old name
        (
            "hbase.rpc.server.impl",
            "org.apache.hadoop.hbase.ipc.NettyRpcServer",
            "rpc server",
            "NettyRpcServer",
        ),
        ("hbase.hregion.compacting.memstore.type", "basic", "memstore index", "CompactingIndex"),
        ("hbase.hregion.mvcc.preassign", "TRUE", "mvcc", "PreassignedMvcc"),
        ("hbase.regionserver.offheap.global.memstore.size", "64", "memstore chunks", "OffheapChunkPool"),
        ("hbase.bucketcache.ioengine", "", "block cache", "LruBlockCache"),
    ],
)
def test_values_are_read_as_the_engine_reads_them(key: str, value: str, line: str, cls: str) -> None:
    (e,) = [e for e in switch_check.expectations({key: value}) if e.line == line]
    assert (e.key, e.cls) == (key, cls)


def test_a_value_the_engine_refuses_is_left_to_the_engine() -> None:
    """The engine stops at start-up on an unknown value with its own one line; nothing to compare."""
    assert switch_check.expectations({"heaplab.regionserver.read.path": "no-copy"}) == []
    assert switch_check.expectations({"hbase.hregion.mvcc.preassign": "yes"}) == []
