"""Moves a client's phase outputs to the controller as one archive (run_collect's client.yml).

    outputs_archive.py pack <dir> <archive-name> <pattern>...   on the client: the files of <dir> whose names
        match a pattern (fnmatch, like ansible's find; hidden files never) go into <dir>/<archive-name>
        (tar.gz); prints how many. No archive is written when none matches.
    outputs_archive.py unpack <archive> <dest-dir>               on the controller: extracts the archive into
        <dest-dir> (created when missing), then removes it.

One task each instead of find, pack, mkdir, unarchive and rm: a lab leaves a hundred files or more.
"""

import fnmatch
import sys
import tarfile
from pathlib import Path

USAGE = "usage: outputs_archive.py pack <dir> <archive-name> <pattern>... | unpack <archive> <dest-dir>"


def pack(directory: Path, archive: str, patterns: list[str]) -> int:
    def wanted(p: Path) -> bool:
        named = any(fnmatch.fnmatch(p.name, x) for x in patterns)
        return named and not p.name.startswith(".") and p.is_file()

    files = sorted(p for p in directory.iterdir() if wanted(p)) if directory.is_dir() else []
    if files:
        with tarfile.open(directory / archive, "w:gz") as tar:
            for p in files:
                tar.add(p, arcname=p.name)
    return len(files)


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
    if len(sys.argv) >= 4 and sys.argv[1] == "pack":
        print(pack(Path(sys.argv[2]), sys.argv[3], sys.argv[4:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "unpack":
        unpack(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(USAGE)
