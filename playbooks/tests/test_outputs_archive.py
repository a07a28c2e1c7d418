"""run_collect's files/outputs_archive.py, run as the role runs it (a Python subprocess): what it packs,
what it leaves out, and that unpacking puts exactly those files in place and removes the archive. Every
variant run of the end-to-end tests also collects its client outputs with it."""

import subprocess
import sys
import tarfile
from pathlib import Path

from playbooks.tests.support import PLAYBOOKS

SCRIPT = PLAYBOOKS / "roles" / "run_collect" / "files" / "outputs_archive.py"
PATTERNS = ["*.json", "*.hlog", "gc-*.log"]


def run(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True, check=False
    )


def test_the_matching_files_travel_and_nothing_else(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    files = {"read-localhost.json": "{}", "read-localhost.hlog": "h", "gc-read-localhost.log": "g"}
    for name, text in files.items():
        (out / name).write_text(text)
    (out / "notes.txt").write_text("not a pattern")
    (out / ".hidden.json").write_text("hidden files never travel")
    (out / "sub.json").mkdir()  # a directory whose name matches is no file

    packed = run("pack", out, ".outputs.tar.gz", *PATTERNS)
    assert packed.returncode == 0 and packed.stdout.strip() == "3", packed.stderr
    with tarfile.open(out / ".outputs.tar.gz") as tar:
        assert sorted(tar.getnames()) == sorted(files)

    dest = tmp_path / "run" / "variant" / "client"  # created on the way
    unpacked = run("unpack", out / ".outputs.tar.gz", dest)
    assert unpacked.returncode == 0, unpacked.stderr
    assert {p.name: p.read_text() for p in dest.iterdir()} == files
    assert not (out / ".outputs.tar.gz").exists()


def test_no_archive_when_nothing_matches_or_the_directory_is_missing(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    for directory in (tmp_path, tmp_path / "never-made"):
        packed = run("pack", directory, ".outputs.tar.gz", *PATTERNS)
        assert packed.returncode == 0 and packed.stdout.strip() == "0", packed.stderr
        assert not (directory / ".outputs.tar.gz").exists()


def test_a_wrong_call_prints_the_usage() -> None:
    wrong = run("unpack", "only-one-argument")
    assert wrong.returncode == 1 and wrong.stderr.startswith("usage: outputs_archive.py pack"), wrong.stderr
