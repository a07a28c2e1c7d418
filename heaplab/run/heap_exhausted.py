"""A variant whose region server ran out of heap, said in one line: which server, its heap, and why.

The no-GC arm of lab 01 runs the server under Epsilon (``-XX:+UseEpsilonGC``), which allocates and never
frees: once the phases have allocated the whole heap the JVM throws OutOfMemoryError.  The arm's flags
add ``-XX:+ExitOnOutOfMemoryError``, so the server exits at once, logging
``Terminating due to java.lang.OutOfMemoryError: Java heap space`` on stderr (server.log under
engine-daemon), instead of living on with dead threads and hanging the clients.  The client phase then
fails with a connection error that names no cause; this module finds the server's line and words it.
"""

from __future__ import annotations

import re
from pathlib import Path

from heaplab.runfiles import rawlogs

OOM_MARK = "java.lang.OutOfMemoryError"
_XMX = re.compile(r"-Xmx(\S+)")
_EPSILON = "-XX:+UseEpsilonGC"


def _server_flags(vdir: Path) -> list[str]:
    options = vdir / "conf" / "jvm.options"
    if not options.is_file():
        return []
    words = []
    for line in options.read_text(encoding="utf-8", errors="replace").splitlines():
        words += line.split("#", 1)[0].split()
    return words


def _epsilon_in_log(server_dir: Path) -> bool:
    log = rawlogs.locate(server_dir / "gc-regionserver.log")
    if log is None:
        return False
    with rawlogs.open_text(log) as f:
        return "Using Epsilon" in f.read(20000)


def diagnose(vdir: Path) -> str | None:
    """One line for the first region server of the variant whose server.log has an OutOfMemoryError,
    else None."""
    flags = _server_flags(vdir)
    xmx = next((m.group(1) for f in flags if (m := _XMX.fullmatch(f))), None)
    for log in sorted((vdir / "server").glob("*/server.log")):
        text = log.read_text(encoding="utf-8", errors="replace")
        line = next((ln.strip() for ln in text.splitlines() if OOM_MARK in ln), None)
        if line is None:
            continue
        host = log.parent.name
        heap = f"-Xmx{xmx}" if xmx else "its heap"
        where = f"see {log.relative_to(vdir.parent)}"
        if _EPSILON in flags or _epsilon_in_log(log.parent):
            return (
                f"the region server on {host} ran out of heap under Epsilon, which never frees memory: the "
                f"phases allocated more than {heap} ({line}); give the variant a bigger heap or shorter "
                f"phases; {where}"
            )
        return f"the region server on {host} ran out of heap ({heap}): {line}; {where}"
    return None
