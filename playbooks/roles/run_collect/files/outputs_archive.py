"""Moves a client's phase outputs to the controller as one archive (run_collect's client.yml).

    outputs_archive.py pack <dir> <archive-name> <pattern>...   on the client: the files of <dir> whose names
        match a pattern (fnmatch, like ansible's find; hidden files never) go into <dir>/<archive-name>
        (tar.gz); prints how many. No archive is written when none matches.
    outputs_archive.py unpack <archive> <dest-dir>               on the controller: extracts the archive into
        <dest-dir> (created when missing), then removes it.

One task each instead of find, pack, mkdir, unarchive and rm: a lab leaves a hundred files or more.
"""

import fnmatch
import os
import sys
import tarfile


def pack(directory: str, archive: str, patterns: list[str]) -> int:
    names = []
    if os.path.isdir(directory):
        names = sorted(
            n
            for n in os.listdir(directory)
            if not n.startswith(".")
            and os.path.isfile(os.path.join(directory, n))
            and any(fnmatch.fnmatch(n, p) for p in patterns)
        )
    if names:
        with tarfile.open(os.path.join(directory, archive), "w:gz") as tar:
            for n in names:
                tar.add(os.path.join(directory, n), arcname=n)
    return len(names)


def unpack(archive: str, dest: str) -> None:
    os.makedirs(dest, exist_ok=True)
    # plain files from our own hosts; the "data" filter (Python 3.12, backported) refuses anything else
    kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
    with tarfile.open(archive, "r:gz") as tar:
        tar.extractall(dest, **kwargs)
    os.remove(archive)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "pack":
        print(pack(sys.argv[2], sys.argv[3], sys.argv[4:]))
    elif len(sys.argv) == 4 and sys.argv[1] == "unpack":
        unpack(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: outputs_archive.py pack <dir> <archive-name> <pattern>... | unpack <archive> <dest-dir>")
