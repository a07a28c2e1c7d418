"""The stage classifier of heaplab/analysis/alloc_stages.py on collapsed alloc profiles cut from real runs.

The fixtures under fixtures/alloc/ are lines of real region servers' profiles (lab 03 at ci scale, phase
single_put): the engine's hbase1-onheap and Apache HBase 2.6's NettyRpcServer variant (cms-offheap-2.x),
a few stacks per stage. Each table below is what the rules must give them, byte for byte: a frame pattern
moved to another stage moves bytes and fails the test. The precedence tests use small stacks written
here, each with the frames of the real servers.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from heaplab.analysis.alloc_stage_rules import APACHE_HBASE, ENGINE, RULES, STAGES
from heaplab.analysis.alloc_stages import (
    Classifier,
    ProfileError,
    classify,
    comparison_markdown,
    detect_family,
    frame_name,
    parse_collapsed,
    read_collapsed,
    variant_markdown,
)

FIXTURES = Path(__file__).parent / "fixtures/alloc"
ENGINE_PROFILE = FIXTURES / "engine-hbase1-onheap-single_put.collapsed"
HBASE_PROFILE = FIXTURES / "hbase-2.6-netty-single_put.collapsed"
MB = 1_048_574  # async-profiler's bytes of one 1 MB sample in these profiles

ENGINE_TABLE = {
    "RPC read": 1_572_861,
    "request decode": 5_767_157,
    "memstore insert": 524_287,
    "WAL": 1_572_861,
    "response": 2_097_148,
    "other": 1_048_574,
}
HBASE_TABLE = {
    "RPC read": 2_621_435,
    "request decode": 5_242_870,
    "memstore insert": 7_340_078,
    "WAL": 5_242_870,
    "response": 2_097_148,
}


def _expected(found: dict[str, int]) -> dict[str, int]:
    return {stage: found.get(stage, 0) for stage in STAGES}


def test_the_engine_profile_by_stage() -> None:
    table = classify(read_collapsed(ENGINE_PROFILE), operations=8000)
    assert table.family == ENGINE
    assert table.by_stage == _expected(ENGINE_TABLE)
    assert table.total == sum(ENGINE_TABLE.values())
    assert table.per_op("request decode") == pytest.approx(5_767_157 / 8000)


def test_the_hbase_profile_by_stage() -> None:
    table = classify(read_collapsed(HBASE_PROFILE), operations=8000)
    assert table.family == APACHE_HBASE
    assert table.by_stage == _expected(HBASE_TABLE)
    assert table.share("other") == 0.0


def test_a_pattern_moved_to_another_stage_moves_its_bytes() -> None:
    """The check above can fail: the engine's WAL package named as the memstore's moves the WAL's bytes."""
    rules = dict(RULES[ENGINE])
    rules["WAL"] = tuple(p for p in rules["WAL"] if p != "org.heaplab.core.wal.")
    rules["memstore insert"] = (*rules["memstore insert"], "org.heaplab.core.wal.")
    moved = Classifier(ENGINE, rules)
    by_stage = dict.fromkeys(STAGES, 0)
    for s in read_collapsed(ENGINE_PROFILE):
        by_stage[moved.stage_of(s.frames)] += s.bytes
    assert by_stage != _expected(ENGINE_TABLE)
    assert by_stage["memstore insert"] == ENGINE_TABLE["memstore insert"] + ENGINE_TABLE["WAL"]


def test_the_top_sites_name_the_allocating_code_and_the_class() -> None:
    table = classify(read_collapsed(ENGINE_PROFILE), operations=8000)
    site, _ = table.sites["response"].most_common(1)[0]
    assert site.startswith("ResponseFrame.onHeap → "), site
    text = variant_markdown(table)
    assert "| response | 262 | 16.7% | `ResponseFrame.onHeap → " in text
    assert "8,000 operations" in text


def test_the_comparison_table_has_a_column_per_profile_and_the_share_of_other() -> None:
    engine = classify(read_collapsed(ENGINE_PROFILE), operations=8000)
    hbase = classify(read_collapsed(HBASE_PROFILE), operations=8000)
    text = comparison_markdown([("engine 1.x", engine), ("HBase 2.6", hbase)])
    lines = text.splitlines()
    assert lines[0] == "| stage | engine 1.x | HBase 2.6 |"
    assert "| WAL | 197 | 655 |" in lines
    assert "| other, share | 8.3% | 0.0% |" in lines
    assert lines[-2] == "| **total (B/op)** | **1,573** | **2,818** |"


# --- precedence -------------------------------------------------------------------------------------

HANDLER = "java.lang.Thread.run;org.heaplab.rpc.server.RpcCall.run"


def _stage(stack: str, family: str = ENGINE) -> str:
    (s,) = parse_collapsed([f"{stack} 100"])
    return Classifier(family).stage_of(s.frames)


def test_the_matching_frame_nearest_the_allocation_decides() -> None:
    region = "org.heaplab.core.region.RegionPut.writeOnCallingThread"
    put = f"{HANDLER};org.heaplab.server.LegacyWritePath.put;{region}"
    assert _stage(f"{put};org.heaplab.core.wal.GroupCommitWal.append;java.lang.Object[]") == "WAL"
    memstore = (
        "org.heaplab.core.memstore.SkipListSegment.put;java.util.concurrent.ConcurrentSkipListMap$Index"
    )
    assert _stage(f"{put};{memstore}") == "memstore insert"
    assert _stage(f"{put};java.util.ArrayList") == "request decode"  # only the write path's frame matches


def test_the_allocated_class_is_no_frame_of_code() -> None:
    assert _stage(f"{HANDLER};java.util.HashMap.resize;org.heaplab.core.wal.WalAppend") == "request decode"


def test_a_flush_or_compaction_owns_its_whole_stack() -> None:
    flush = "java.lang.Thread.run;org.apache.hadoop.hbase.regionserver.MemStoreFlusher$FlushHandler.run"
    deeper = "org.apache.hadoop.hbase.io.hfile.HFileBlock.allocateBuffer;byte[]"
    assert _stage(
        f"{flush};org.apache.hadoop.hbase.KeyValueUtil.copyToNewKeyValue;{deeper}", APACHE_HBASE
    ) == ("flush/compaction")
    # a put's own check of the memstores' size is no flush
    reclaim = "org.apache.hadoop.hbase.regionserver.MemStoreFlusher.reclaimMemStoreMemory;java.lang.Object"
    assert _stage(f"java.lang.Thread.run;{reclaim}", APACHE_HBASE) == "memstore insert"


def test_library_frames_decide_only_without_a_frame_of_the_server() -> None:
    loop = "java.lang.Thread.run;org.apache.hbase.thirdparty.io.netty.channel.nio.NioEventLoop.run"
    read = "org.apache.hbase.thirdparty.io.netty.buffer.PooledByteBufAllocator.newDirectBuffer;byte[]"
    assert _stage(f"{loop};{read}", APACHE_HBASE) == "RPC read"
    write = "org.apache.hadoop.hbase.ipc.NettyRpcServerResponseEncoder.write"
    assert _stage(f"{loop};{write};{read}", APACHE_HBASE) == "response"


def test_the_longer_pattern_wins_within_a_frame() -> None:
    # org.heaplab.core.memstore. (memstore insert) and ...memstore.MemstoreCursor (block read)
    cursor = "org.heaplab.core.memstore.MemstoreCursor.next;java.lang.Object[]"
    assert _stage(f"java.lang.Thread.run;{cursor}") == "block read"


def test_no_matching_frame_is_other() -> None:
    assert _stage("java.lang.Thread.run;java.util.TimerThread.run;java.lang.Object[]") == "other"


# --- reading ----------------------------------------------------------------------------------------


def test_frame_names_lose_the_kind_suffix_and_the_slashes() -> None:
    assert frame_name("org/heaplab/core/cell/KeyValue.<init>_[j]") == "org.heaplab.core.cell.KeyValue.<init>"
    assert frame_name("byte[]_[k]") == "byte[]"
    assert frame_name("java.nio.HeapByteBuffer_[i]") == "java.nio.HeapByteBuffer"


def test_a_line_that_is_no_collapsed_stack_is_one_error_naming_it() -> None:
    with pytest.raises(ProfileError, match=r"profile:2: not a collapsed stack line"):
        parse_collapsed(["a;b 10", "a;b ten"])


def test_a_gzipped_profile_reads_the_same(tmp_path: Path) -> None:
    packed = tmp_path / "p.collapsed.gz"
    packed.write_bytes(gzip.compress(ENGINE_PROFILE.read_bytes()))
    assert read_collapsed(packed) == read_collapsed(ENGINE_PROFILE)


def test_the_family_is_the_one_whose_code_holds_the_bytes() -> None:
    assert detect_family(read_collapsed(ENGINE_PROFILE)) == ENGINE
    assert detect_family(read_collapsed(HBASE_PROFILE)) == APACHE_HBASE


def test_every_rule_names_a_known_stage_and_each_pattern_once() -> None:
    for family, rules in RULES.items():
        assert set(rules) <= set(STAGES), family
        patterns = [p for ps in rules.values() for p in ps]
        assert len(patterns) == len(set(patterns)), [p for p in patterns if patterns.count(p) > 1]


def test_the_1x_decoders_copy_of_a_cell_is_a_cell_copy() -> None:
    """The top of the engine's biggest 1.x stack at local scale: a reader thread's CopyingCellDecoder."""
    reader = (
        "org/heaplab/rpc/simple/SimpleRpcServer.process_[j];org/heaplab/rpc/server/RequestIntake.take_[j]"
    )
    decode = "org/heaplab/rpc/protocol/FrameReader.readCells_[j];"
    decode += "org/heaplab/rpc/buffers/CopyingCellDecoder.decode_[j]"
    copy = "org/heaplab/core/cell/ByteBufferKeyValue.ownedCopyOf_[j];byte[]_[i]"
    assert _stage(f"java/lang/Thread.run_[j];{reader};{decode};{copy}") == "cell copy"
    view = (
        "org/heaplab/rpc/buffers/ZeroCopyCellDecoder.decode_[j];org.heaplab.core.cell.ByteBufferKeyValue_[i]"
    )
    assert _stage(f"java/lang/Thread.run_[j];{reader};{view}") == "request decode"


def test_the_decoded_put_is_request_decode_and_its_waledit_and_buffer_are_wal() -> None:
    """The per-put objects modelled on HBase's: the Put and its family map (ProtobufUtil.toPut's work)
    are request decode wherever they are made; the region's WALEdit and WALKey and the WAL's heap encode
    buffer are the WAL's."""
    mutate = f"{HANDLER};org.heaplab.server.RegionRpcService.mutate"
    to_puts = "org.heaplab.core.region.PutDecoder.toPuts"
    assert _stage(f"{mutate};{to_puts};org.heaplab.core.region.Put.<init>;byte[]") == "request decode"
    put_add = "org.heaplab.core.region.Put.add;java.util.TreeMap.put;java.util.TreeMap$Entry"
    assert _stage(f"{mutate};{to_puts};{put_add}") == "request decode"
    family = "org.heaplab.core.region.Put.add;org.heaplab.core.cell.ByteBufferKeyValue.family;byte[]"
    assert _stage(f"{mutate};{to_puts};{family}") == "request decode"  # the family cloned for the map's key
    append = "org.heaplab.core.region.RegionPut.preAppend;org.heaplab.core.region.Region.preAppend"
    assert _stage(f"{HANDLER};{append};org.heaplab.core.wal.WALEdit.<init>;java.lang.Object[]") == "WAL"
    assert _stage(f"{HANDLER};{append};org.heaplab.core.wal.WALKey") == "WAL"
    consumer = "java.lang.Thread.run;org.heaplab.core.wal.GroupCommitWal.consume"
    grow = "org.heaplab.core.wal.ChannelWalSink.append;org.heaplab.core.wal.WalByteArrayOutput.grow;byte[]"
    assert _stage(f"{consumer};{grow}") == "WAL"
