"""run_collect's files/variant_files.py, run as the role runs it (a Python subprocess): what it packs and
where, what it leaves out, and that unpacking puts exactly those files in place and removes the archive.
Every variant run of the end-to-end tests also collects its files with it."""

import json
import subprocess
import sys
import tarfile
from pathlib import Path

from playbooks.tests.support import PLAYBOOKS

SCRIPT = PLAYBOOKS / "roles" / "run_collect" / "files" / "variant_files.py"


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=False
    )


def pack(parts: list[dict]) -> dict:
    packed = run("pack", json.dumps(parts))
    assert packed.returncode == 0, packed.stderr
    # one line, marked as the script's own: the role reads that line alone (filter_plugins/heaplab_result.py)
    (line,) = packed.stdout.splitlines()
    assert line.startswith("HEAPLAB-RESULT: "), line
    return json.loads(line.removeprefix("HEAPLAB-RESULT: "))


def test_each_part_travels_under_its_own_directory_and_nothing_else(tmp_path: Path) -> None:
    logs, conf, out = (tmp_path / d for d in ("logs", "conf", "out"))
    for d in (logs, conf, out):
        d.mkdir()
    (logs / "server.log").write_text("s")
    (logs / "gc-regionserver.log").write_text("g")
    (logs / "debug.txt").write_text("not a pattern")
    (conf / "engine-site.xml").write_text("<c/>")
    (out / "read-localhost.json").write_text("{}")
    (out / "read-localhost.hlog").write_text("h")
    (out / ".hidden.json").write_text("hidden files never travel")
    (out / "sub.json").mkdir()  # a directory whose name matches is no file

    packed = pack(
        [
            {"dest": "server/localhost", "dirs": [str(logs)], "patterns": ["server.log", "gc-*.log"]},
            {"dest": "conf", "dirs": [str(conf), "", str(tmp_path / "never-made")], "patterns": ["*.xml"]},
            {"dest": "client", "dirs": [str(out)], "patterns": ["*.json", "*.hlog"]},
        ]
    )
    archive = Path(packed["archive"])
    expected = {
        "server/localhost/server.log": "s",
        "server/localhost/gc-regionserver.log": "g",
        "conf/engine-site.xml": "<c/>",
        "client/read-localhost.json": "{}",
        "client/read-localhost.hlog": "h",
    }
    assert packed["count"] == len(expected) and archive.is_file()
    with tarfile.open(archive) as tar:
        assert sorted(tar.getnames()) == sorted(expected)

    dest = tmp_path / "run" / "variant"  # created on the way
    unpacked = run("unpack", archive, dest)
    assert unpacked.returncode == 0, unpacked.stderr
    got = {str(p.relative_to(dest)): p.read_text() for p in dest.rglob("*") if p.is_file()}
    assert got == expected
    assert not archive.exists()


def test_no_archive_when_nothing_matches_or_the_directory_is_missing(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    dirs = [str(tmp_path), str(tmp_path / "never-made")]
    parts = [{"dest": "client", "dirs": dirs, "patterns": ["*.json"]}]
    assert pack(parts) == {"count": 0, "archive": ""}
    assert pack([]) == {"count": 0, "archive": ""}


def test_a_wrong_call_prints_the_usage() -> None:
    wrong = run("unpack", "only-one-argument")
    assert wrong.returncode == 1 and wrong.stderr.startswith("usage: variant_files.py pack"), wrong.stderr
