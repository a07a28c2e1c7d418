"""Moves one host's files of a variant to the controller as one archive (the run_collect role).

    variant_files.py pack <parts-json>      on the host: <parts-json> is a list of {"dest": <subdir>,
        "dirs": [<dir>...], "patterns": [<pattern>...]}; the files of those directories whose names match
        a pattern (fnmatch, like ansible's find: not recursive, hidden files never) go into a new archive
        (tar.gz, in the host's temporary directory) under <subdir>/. Its last line on stdout is
        `HEAPLAB-RESULT: {"count": N, "archive": path}` (the role reads that line alone: a host's python3
        may print lines of its own first); no archive is written (path "") when no file matches.
    variant_files.py unpack <archive> <dest-dir>
        on the controller: extracts the archive into <dest-dir> (created when missing), then removes it.

One archive per host instead of a find and a fetch per file and per place: a lab leaves a hundred files
or more, and each ansible task costs about half a second.
"""

import fnmatch
import json
import os
import sys
import tarfile
import tempfile
from pathlib import Path

USAGE = "usage: variant_files.py pack <parts-json> | unpack <archive> <dest-dir>"
RESULT = "HEAPLAB-RESULT: "  # marks the line that is this script's own (filter_plugins/heaplab_result.py)


def matching_files(directory: Path, patterns: list[str]) -> list[Path]:
    if not directory.is_dir():
        return []

    def wanted(p: Path) -> bool:
        named = any(fnmatch.fnmatch(p.name, x) for x in patterns)
        return named and not p.name.startswith(".") and p.is_file()

    return sorted(p for p in directory.iterdir() if wanted(p))


def pack(parts: list[dict]) -> dict:
    members = [
        (path, f"{part['dest']}/{path.name}")
        for part in parts
        for directory in part["dirs"]
        if directory
        for path in matching_files(Path(directory), part["patterns"])
    ]
    if not members:
        return {"count": 0, "archive": ""}
    fd, archive = tempfile.mkstemp(prefix="heaplab-variant-files-", suffix=".tar.gz")
    with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
        for path, name in members:
            tar.add(path, arcname=name)
    return {"count": len(members), "archive": archive}


def unpack(archive: Path, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "r:gz") as tar:
        # plain files packed by pack() on our own hosts; the "data" filter (Python 3.12, backported to
        # 3.8.17+) refuses links, devices and paths outside dest all the same
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dest, filter="data")
        else:
            tar.extractall(dest)  # noqa: S202 -- an older Python: the names are pack()'s plain file names
    archive.unlink()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "pack":
        print(RESULT + json.dumps(pack(json.loads(sys.argv[2]))), flush=True)
    elif len(sys.argv) == 4 and sys.argv[1] == "unpack":
        unpack(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(USAGE)
