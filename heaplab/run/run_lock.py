"""One run at a time on one inventory's hosts.

Two runs on the same hosts share the hosts' working directory (~/heaplab/current) and the servers' ports:
the second run's deploy replaces the first one's files under its running servers, each run's servers fail
to start on the other's ports, and the stop of either finds the other's pid files. Neither run's numbers
mean anything, and servers are left running. So a run holds an exclusive lock, keyed by its inventory,
from its first variant to the end of its series (flock: the kernel releases it when the process dies, even
on kill -9, so a crashed run never blocks the next one). A second run on the same inventory stops at once
with the holder's pid and command; a run on another inventory (the tests' own, a cluster's) is not held up.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from heaplab.run.options import RunSetupError

_held: dict[Path, int] = {}  # lock file -> depth, so that a series' runs re-enter the series' own lock


def lock_path(inventory: Path) -> Path:
    """The lock file of an inventory: in the temporary directory, named by the inventory's real path."""
    key = hashlib.sha256(str(inventory.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"heaplab-run-{os.getuid()}-{key}.lock"


@contextmanager
def held(inventory: Path, command: str) -> Iterator[None]:
    """Hold the inventory's run lock for the block, or raise RunSetupError naming the run that holds it."""
    path = lock_path(inventory)
    if path in _held:
        _held[path] += 1
        try:
            yield
        finally:
            _held[path] -= 1
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip() or "a run that has not said"
            raise RunSetupError(
                f"another heaplab run is using the hosts of {inventory}: {holder}. Two runs on the same "
                "hosts would share their working directory and ports; wait for it to end (or stop it with "
                "Ctrl-C in its terminal), then run again"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, `{command}`\n".encode(), 0)
        _held[path] = 1
        try:
            yield
        finally:
            del _held[path]
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # closing the descriptor releases the flock
