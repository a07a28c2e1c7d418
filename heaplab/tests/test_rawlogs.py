"""heaplab.runfiles.rawlogs: GC logs compressed at the end of a variant, and read the same way plain or
gzipped."""

import gzip
import shutil
from pathlib import Path

from heaplab.analysis import gc_stats
from heaplab.runfiles import rawlogs
from heaplab.runfiles.gc_log import parse

DATA = Path(__file__).parent / "data" / "gc"


def test_compress_keeps_every_byte_and_removes_the_plain_log(tmp_path):
    plain = tmp_path / "gc-regionserver.log"
    shutil.copy(DATA / "g1-jdk17.log", plain)
    original = plain.read_bytes()
    packed = rawlogs.compress(plain)
    assert packed.name == "gc-regionserver.log.gz"
    assert not plain.exists()
    assert gzip.decompress(packed.read_bytes()) == original
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind


def test_same_log_compresses_to_the_same_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        shutil.copy(DATA / "g1-jdk17.log", d / "gc-x.log")
    assert rawlogs.compress(a / "gc-x.log").read_bytes() == rawlogs.compress(b / "gc-x.log").read_bytes()


def test_parse_reads_a_gzipped_log_as_the_plain_one(tmp_path):
    for name in ("g1-jdk17.log", "cms-jdk11.log"):
        plain = parse(DATA / name)
        copy = tmp_path / name
        shutil.copy(DATA / name, copy)
        packed = parse(rawlogs.compress(copy))
        assert packed.pauses == plain.pauses and packed.pauses
        assert packed.safepoints == plain.safepoints
        assert packed.collector == plain.collector
        # the logical name finds the .gz too, as the readers of a run directory ask for it
        assert parse(copy).pauses == plain.pauses


def test_compress_gc_logs_takes_only_gc_logs_of_servers_and_clients(tmp_path):
    server = tmp_path / "server" / "localhost"
    client = tmp_path / "client"
    server.mkdir(parents=True)
    client.mkdir()
    for path in (server / "gc-regionserver.log", client / "gc-get-localhost.log"):
        shutil.copy(DATA / "g1-jdk17.log", path)
    (server / "server.log").write_text("INFO started\n")
    (client / "get-localhost.hlog").write_text("#[histogram log]\n")
    written = rawlogs.compress_gc_logs(tmp_path)
    assert sorted(p.name for p in written) == ["gc-get-localhost.log.gz", "gc-regionserver.log.gz"]
    assert (server / "server.log").is_file() and (client / "get-localhost.hlog").is_file()
    assert rawlogs.compress_gc_logs(tmp_path) == []  # a second pass finds nothing plain


def test_server_gc_loads_from_a_gzipped_log(tmp_path):
    server = tmp_path / "localhost"
    server.mkdir()
    shutil.copy(DATA / "g1-jdk17.log", server / "gc-regionserver.log")
    before = gc_stats.load_server_gc(server, "localhost")
    rawlogs.compress(server / "gc-regionserver.log")
    after = gc_stats.load_server_gc(server, "localhost")
    assert before is not None and after is not None
    assert after.pauses == before.pauses and len(after.pauses) > 0


def test_locate_prefers_the_plain_file_and_says_none_when_neither_exists(tmp_path):
    path = tmp_path / "gc-x.log"
    assert rawlogs.locate(path) is None
    path.with_name("gc-x.log.gz").write_bytes(gzip.compress(b"x\n"))
    assert rawlogs.locate(path) == path.with_name("gc-x.log.gz")
    path.write_text("x\n")  # a crash between rename and unlink leaves both: the plain one is whole
    assert rawlogs.locate(path) == path
