"""Keep a run's JVM GC logs gzip-compressed, and read them either way (docs/contracts.md section 6).

The unified GC logs (``gc-*.log``: every server's and every pe/ycsb client's) are most of a run
directory's bytes: a lab 04 run collects about 40 MB of them and 12 MB of everything else.  They are plain
text and compress about 15x, so heaplab compresses each one right after its variant's files are collected,
before the run is complete, and every reader opens ``gc-x.log`` or ``gc-x.log.gz``, whichever is there.
Older runs keep their plain logs; nothing here rewrites a finished run.

A compression writes ``.gc-x.log.gz.tmp``, fsyncs it, renames it to ``gc-x.log.gz`` and only then removes
the plain log, so a crash at any point leaves at least one whole copy.
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path
from typing import IO

GZ = ".gz"
GC_LOG_GLOB = "gc-*.log"


def locate(path: Path) -> Path | None:
    """The file for the logical ``path``: itself, else ``path.gz``, else None."""
    if path.is_file():
        return path
    packed = path.with_name(path.name + GZ)
    return packed if packed.is_file() else None


def open_text(path: Path) -> IO[str]:
    """Open a log for reading as text, gunzipping a ``.gz`` file; undecodable bytes become U+FFFD."""
    if path.name.endswith(GZ):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return path.open(encoding="utf-8", errors="replace")


def compress(path: Path) -> Path:
    """Replace ``path`` by ``path.gz`` (crash-safe, see the module doc); returns the new file."""
    target = path.with_name(path.name + GZ)
    tmp = path.with_name(f".{target.name}.tmp")
    try:
        with path.open("rb") as src, tmp.open("wb") as raw:
            # mtime=0: the same log always compresses to the same bytes
            with gzip.GzipFile(filename=path.name, mode="wb", fileobj=raw, mtime=0) as out:
                shutil.copyfileobj(src, out, 1 << 20)
            raw.flush()
            os.fsync(raw.fileno())
    except BaseException:  # a full disk, an interrupt: no half-written copy stays beside the whole log
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(target)
    path.unlink()
    return target


def compress_gc_logs(variant_dir: Path) -> list[Path]:
    """Compress every plain ``gc-*.log`` below one variant's directory; returns the files written."""
    return [compress(p) for p in sorted(variant_dir.rglob(GC_LOG_GLOB)) if p.is_file()]
