"""heaplab.run.heap_exhausted: a region server that ran out of heap, named in one line.

The JVM's own words come from a real JVM: a one-file Java program that allocates forever under the
Epsilon arm's flags (-XX:+UseEpsilonGC, a small heap, -XX:+ExitOnOutOfMemoryError), its stdout and
stderr kept as the server.log engine-daemon would keep (it appends both); only the variant directory
around it is laid out by hand.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from heaplab.run.heap_exhausted import diagnose

EPSILON_FLAGS = ["-XX:+UnlockExperimentalVMOptions", "-XX:+UseEpsilonGC", "-Xms32m", "-Xmx32m"]
GREEDY = (
    "public class Greedy { public static void main(String[] a) { var l = new java.util.ArrayList<byte[]>();"
)
GREEDY += " while (true) l.add(new byte[1 << 20]); } }\n"


def _variant(tmp_path: Path, flags: list[str], log_text: str) -> Path:
    vdir = tmp_path / "run" / "hbase1-onheap-epsilon"
    (vdir / "conf").mkdir(parents=True)
    (vdir / "conf" / "jvm.options").write_text("\n".join(flags) + "\n", encoding="utf-8")
    server = vdir / "server" / "localhost"
    server.mkdir(parents=True)
    (server / "server.log").write_text(log_text, encoding="utf-8")
    return vdir


@pytest.mark.skipif(shutil.which("java") is None, reason="needs a JDK on PATH")
def test_a_real_epsilon_jvm_out_of_heap_is_named(tmp_path: Path) -> None:
    source = tmp_path / "Greedy.java"
    source.write_text(GREEDY, encoding="utf-8")
    proc = subprocess.run(
        ["java", *EPSILON_FLAGS, "-XX:+ExitOnOutOfMemoryError", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0, "the JVM exits instead of living on without memory"
    vdir = _variant(
        tmp_path, EPSILON_FLAGS, "INFO region server serving on localhost:16020\n" + proc.stdout + proc.stderr
    )
    line = diagnose(vdir)
    assert line is not None
    assert line.startswith("the region server on localhost ran out of heap under Epsilon")
    assert "-Xmx32m" in line and "java.lang.OutOfMemoryError" in line
    assert "server/localhost/server.log" in line and "\n" not in line


def test_a_healthy_server_log_says_nothing(tmp_path: Path) -> None:
    assert (
        diagnose(_variant(tmp_path, EPSILON_FLAGS, "INFO region server serving on localhost:16020\n")) is None
    )


def test_another_collector_is_named_without_epsilon(tmp_path: Path) -> None:
    vdir = _variant(
        tmp_path, ["-Xmx64m", "-XX:+UseG1GC"], "Exception: java.lang.OutOfMemoryError: Java heap space\n"
    )
    line = diagnose(vdir)
    assert line is not None and "Epsilon" not in line and "(-Xmx64m)" in line
