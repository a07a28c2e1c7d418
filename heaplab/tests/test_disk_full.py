"""heaplab.run.disk_full: the one line for a variant that a full disk failed, from what heaplab saw and the
files it collected (the real runs that fill a disk are test_full_disk's)."""

from __future__ import annotations

import errno
import json
from pathlib import Path

from heaplab.run.disk_full import diagnose, local, size_text

WAL = "/mnt/data/WALs/wal.00000000000000000001"
CLIENT_ERR = (
    "ERROR: TestClient-0 failed: PUT on table TestTable failed after 2 attempts in 0.1 s; last server "
    f"localhost:57317: WAL wal.1 failed: WAL write to {WAL} failed: No space left on device "
    "(and 1 more clients)"
)


def _variant(tmp_path: Path, *, disk: bool = True) -> Path:
    vdir = tmp_path / "run" / "v"
    (vdir / "client").mkdir(parents=True)
    (vdir / "client" / "fill-localhost.err").write_text(CLIENT_ERR + "\n", encoding="utf-8")
    if disk:
        disks = [
            {
                "path": "/mnt/data",
                "mount": "/mnt/data",
                "type": "tmpfs",
                "size_bytes": 8388608,
                "free_bytes": 0,
            },
            {
                "path": "/home/x/current/logs",
                "mount": "/",
                "type": "ext4",
                "size_bytes": 10**11,
                "free_bytes": 10**10,
            },
        ]
        (vdir / "disk-n1.json").write_text(json.dumps({"host": "n1", "disks": disks}), encoding="utf-8")
    return vdir


def test_the_line_names_the_hosts_disk_its_free_space_and_the_write(tmp_path: Path) -> None:
    vdir = _variant(tmp_path)
    # ansible wraps long lines: the fragment without the path is passed over for the file's whole line
    seen = ["            failed: No space left on device (and 1 more clients)'", "Phase fill on n1 exited 1:"]
    full = diagnose(vdir, seen, vdir.parent)
    assert full is not None
    assert full.line() == (
        f"no space left on device on /mnt/data (tmpfs, host n1): 0 B free of 8.4 MB; the region server's WAL "
        f"in phase fill failed writing {WAL}"
    )


def test_nothing_full_is_no_diagnosis(tmp_path: Path) -> None:
    vdir = tmp_path / "v"
    (vdir / "client").mkdir(parents=True)
    (vdir / "client" / "x.err").write_text("ERROR: connection refused\n", encoding="utf-8")
    assert diagnose(vdir, ["fatal: [localhost]: FAILED!"], tmp_path) is None


def test_without_a_measurement_the_path_is_still_named(tmp_path: Path) -> None:
    full = diagnose(_variant(tmp_path, disk=False), [], tmp_path)
    assert full is not None and full.line().startswith(
        f"no space left on device on {WAL}: free space unknown"
    )


def test_heaplabs_own_write_names_the_disk_here(tmp_path: Path) -> None:
    line = local(OSError(errno.ENOSPC, "No space left on device"), tmp_path / "run.json")
    assert (
        line.startswith("no space left on device on /")
        and f"heaplab failed writing {tmp_path}/run.json" in line
    )
    other = local(OSError(errno.EACCES, "Permission denied"), tmp_path / "run.json")
    assert other == f"cannot write {tmp_path}/run.json: Permission denied"


def test_sizes_read_as_people_write_them() -> None:
    assert [size_text(n) for n in (0, 999, 98_304, 8_388_608, 270_553_174_016)] == [
        "0 B",
        "999 B",
        "98.3 kB",
        "8.4 MB",
        "270.6 GB",
    ]
