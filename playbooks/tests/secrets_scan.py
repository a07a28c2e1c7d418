"""A scanner for credentials and private keys in files HeapLab writes (run directories, reference runs).

Issue 7, item 8: keys come from the student's files and no credential is ever written into the repo or a
run directory. The scanner looks for what would leak if that went wrong: private key blocks, AWS access key
ids and secret key names, and ansible passwords with a value. Compressed archives (.tar.gz, .gz) are read
through; other binary files are read as bytes, which still finds ASCII key material.
"""

from __future__ import annotations

import gzip
import re
import tarfile
from dataclasses import dataclass
from pathlib import Path

PATTERNS = {
    "private key": re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"),
    "AWS access key id": re.compile(rb"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "AWS secret key name": re.compile(rb"aws_secret_" rb"access_key", re.IGNORECASE),
    # A password variable followed by a value (YAML, JSON, INI or key=value); the bare name alone
    # (e.g. in documentation) is not a leak.
    "ansible password": re.compile(
        rb"ansible_(?:ssh_|become_)?pass(?:word)?[\"']?[ \t]*[:=][ \t]*[\"']?(?![\"',}\s])[^\s\"',}]+"
    ),
}


@dataclass(frozen=True)
class Finding:
    path: str
    kind: str

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}"


def _contents(path: Path):
    """(name, bytes) of a file, or of each member of a tar archive / the inside of a .gz."""
    name = path.name
    if name.endswith((".tar.gz", ".tgz", ".tar")):
        try:
            with tarfile.open(path) as archive:
                for member in archive.getmembers():
                    if member.isfile():
                        handle = archive.extractfile(member)
                        if handle is not None:
                            yield f"{path}!{member.name}", handle.read()
            return
        except (tarfile.TarError, OSError):
            pass
    elif name.endswith(".gz"):
        try:
            yield str(path), gzip.decompress(path.read_bytes())
            return
        except (OSError, EOFError):
            pass
    yield str(path), path.read_bytes()


def scan(*roots: Path) -> list[Finding]:
    """Every finding under the given files or directories (symlinks are not followed)."""
    findings = []
    for root in roots:
        files = (
            [root]
            if root.is_file()
            else sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
        )
        for path in files:
            for name, data in _contents(path):
                for kind, pattern in PATTERNS.items():
                    if pattern.search(data):
                        findings.append(Finding(name, kind))
    return findings
