"""Secrets that must never sit in a run directory or in the repository.

A run directory is shared: students submit it for grading and commit reference runs. ssh keys come from
the student's own files and cloud credentials from the environment; nothing HeapLab writes should ever
hold either. This module looks for the shapes they have (a private key block, an AWS access key id, an
AWS secret key or an ansible password assigned to a name), so ``heaplab run`` can check every run it
makes and the tests can check the committed runs and the repository. A finding names the file, line
and kind, never the value.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

# Only the first bytes of a file are read: a histogram log of hundreds of MB holds numbers, and every
# file HeapLab writes with text from a host (logs, configs, JSON) is far smaller than this.
MAX_BYTES = 16 * 1024 * 1024

PATTERNS: dict[str, re.Pattern[bytes]] = {
    "private key": re.compile(rb"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----"),
    "AWS access key id": re.compile(rb"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "AWS secret access key": re.compile(rb"(?i)aws_secret_access_key[\"']?\s*[=:]\s*[\"']?[A-Za-z0-9/+]{40}"),
    "ansible password": re.compile(
        rb"(?i)ansible_(?:ssh_|become_)?pass(?:word)?[\"']?\s*[=:]\s*[\"']?[^\s\"',}]+"
    ),
}

# Lower-case literals of which every match of the pattern contains one: a quick substring test spares the
# regex scan of a file that cannot match (the committed runs are about 450 MB, mostly numbers).
NEEDLES: dict[str, tuple[bytes, ...]] = {
    "private key": (b"private key-----",),
    "AWS access key id": (b"akia", b"asia"),
    "AWS secret access key": (b"aws_secret_access_key",),
    "ansible password": (b"ansible_",),
}


@dataclass(frozen=True)
class Finding:
    path: Path
    line: int
    kind: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}"


def scan_file(path: Path) -> list[Finding]:
    """Every secret-shaped match in the first MAX_BYTES of one file."""
    try:  # a gzipped log (heaplab.runfiles.rawlogs) is scanned as the text it holds
        with gzip.open(path, "rb") if path.name.endswith(".gz") else path.open("rb") as f:
            data = f.read(MAX_BYTES)
    except (OSError, EOFError):
        return []
    found = []
    lowered = data.lower()
    for kind, pattern in PATTERNS.items():
        if not any(needle in lowered for needle in NEEDLES[kind]):
            continue
        for m in pattern.finditer(data):
            found.append(Finding(path, data.count(b"\n", 0, m.start()) + 1, kind))
    return sorted(found, key=lambda f: (f.line, f.kind))


def find_secrets(root: Path) -> list[Finding]:
    """Every finding in the regular files below root (or in root, a file); symlinks are not followed."""
    if root.is_file():
        return scan_file(root)
    found: list[Finding] = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            found.extend(scan_file(path))
    return found
