"""A variant that failed because a disk filled up, said in one line: which disk, its free space, what was
being written.

The evidence, in order: the lines of the variant's output that say "No space left on device" (ansible's
failures and any other line heaplab saw, so also when the run directory's own disk is the full one and
ansible.log could not be written), then the files collected from the hosts (the clients' .err, the servers'
server.log, where the engine logs `no space left on device: ...; <mount> (<type>) has N bytes free of M`).
The free space comes from the hosts' own measurement (variant.yml writes ``disk-<host>.json`` for a failed
variant: heaplab.run.disk_full reads it), else, for a path on this machine (the run directory), from statvfs
here.
"""

from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENOSPC_TEXT = "no space left on device"
_PATH = re.compile(r"(/[^\s:;,'\"()\]]+)")
_PHASE = re.compile(r"\b[Pp]hase ([A-Za-z0-9][A-Za-z0-9_.-]*) on ")  # the engine_workload role's failure
# what was being written, by a word of the line that says the disk is full
_WRITING = (
    ("WAL", "the region server's WAL"),
    ("flush", "a memstore flush"),
    ("compact", "a compaction"),
    ("files-", "the variant's files, unpacked into the run directory"),
    ("ansible.log", "the variant's ansible.log in the run directory"),
    ("run.json", "run.json"),
)


@dataclass(frozen=True)
class FullDisk:
    path: str  # the file or directory whose write failed
    mount: str | None
    fstype: str | None
    host: str | None  # None: this machine (the run directory)
    free_bytes: int | None
    size_bytes: int | None
    writing: str  # what was being written there
    needed: int | None = None  # bytes the write needed, when known

    def line(self) -> str:
        where = self.mount or self.path
        about = ", ".join(x for x in (self.fstype, f"host {self.host}" if self.host else "") if x)
        free = "free space unknown" if self.free_bytes is None else f"{size_text(self.free_bytes)} free"
        if self.size_bytes:
            free += f" of {size_text(self.size_bytes)}"
        need = f", it needed about {size_text(self.needed)} more" if self.needed else ""
        return (
            f"no space left on device on {where}{f' ({about})' if about else ''}: {free}{need}; "
            f"{self.writing} failed writing {self.path}"
        )


def size_text(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def is_full(e: BaseException) -> bool:
    return isinstance(e, OSError) and (e.errno == errno.ENOSPC or ENOSPC_TEXT in str(e).lower())


def _full_lines(lines: list[str], vdir: Path) -> list[str]:
    """Every line that says a disk is full: heaplab's own (ansible's failures, output lines), then the
    collected files'."""
    found = [line for line in lines if ENOSPC_TEXT in line.lower()]
    for pattern in ("client/*.err", "client/*.out", "server/*/server.log", "master/*/master.log"):
        for path in sorted(vdir.glob(pattern)):
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            found += [line for line in text.splitlines() if ENOSPC_TEXT in line.lower()]
    return found


def _path_near(line: str) -> str | None:
    """The file the line says could not be written: the last path before its last "No space left on
    device" ("WAL write to /data/WALs/wal.1 failed: No space left on device")."""
    before = line[: line.lower().rfind(ENOSPC_TEXT)]
    paths = [p.rstrip(".") for p in _PATH.findall(before)]
    return paths[-1] if paths else None


def _host_disks(vdir: Path) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(vdir.glob("disk-*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        found += [(str(record.get("host", "")), d) for d in record.get("disks", []) if isinstance(d, dict)]
    return found


def _here(path: str) -> tuple[str | None, int | None, int | None, str | None]:
    """(mount, free, size, type) of ``path`` on this machine, measured at its nearest existing parent."""
    where = Path(path)
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        st = os.statvfs(where)
    except OSError:
        return None, None, None, None
    point = where.resolve()
    while not point.is_mount() and point != point.parent:
        point = point.parent
    mount = str(point)
    fstype = None
    try:
        for line in Path("/proc/self/mounts").read_text(encoding="utf-8").splitlines():
            fields = line.split()
            if len(fields) >= 3 and fields[1] == mount:
                fstype = fields[2]
    except OSError:
        pass
    return mount, st.f_bavail * st.f_frsize, st.f_blocks * st.f_frsize, fstype


def diagnose(vdir: Path, lines: list[str], run_dir: Path | None = None) -> FullDisk | None:
    """The full disk that failed the variant in ``vdir``, or None when nothing says a disk was full."""
    candidates = _full_lines(lines, vdir)
    if not candidates:
        return None
    line = next((c for c in candidates if _path_near(c)), candidates[0])
    path = _path_near(line)
    phase = next((m.group(1) for text in lines if (m := _PHASE.search(text))), None)
    writing = _writing(line) + (f" in phase {phase}" if phase else "")
    if path is None:
        return FullDisk("a file it does not name", None, None, None, None, None, writing)
    if run_dir is not None and path.startswith(f"{run_dir}/"):  # the run directory: measured here
        mount, free, size, fstype = _here(path)
        return FullDisk(path, mount, fstype, None, free, size, writing)
    # on a disk a host measured: the longest mount point that holds the path
    holding = [
        (h, d) for h, d in _host_disks(vdir) if path.startswith(str(d.get("mount", "/")).rstrip("/") + "/")
    ]
    if not holding:
        return FullDisk(path, None, None, None, None, None, writing)
    host, d = max(holding, key=lambda hd: len(str(hd[1].get("mount", ""))))
    return FullDisk(
        path, d.get("mount"), d.get("type"), host, d.get("free_bytes"), d.get("size_bytes"), writing
    )


def _writing(line: str) -> str:
    return next((what for word, what in _WRITING if word in line), "a write")


def local(e: OSError, path: Path | str) -> str:
    """One line for heaplab's own write of ``path`` that failed, naming the disk when it is full."""
    where = str(e.filename or path)
    if not is_full(e):
        return f"cannot write {where}: {e.strerror or e}"
    mount, free, size, fstype = _here(where)
    return FullDisk(where, mount, fstype, None, free, size, "heaplab").line()
