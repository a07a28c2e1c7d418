"""What a student reads never points at our own bookkeeping: no "seed 00N" (the articles are cited by
title, results/published/README.md) and no "issue N" (a tracker the student cannot see), in the handouts,
notebooks, specs, docs and the comments of the code they are asked to open."""

from __future__ import annotations

import re
from pathlib import Path

from heaplab.tests.conftest import REPO

FORBIDDEN = re.compile(r"\bseed 00[0-4]\b|\bissues? #?\d+\b", re.IGNORECASE)
PATTERNS = (
    "README.md",
    "labs/*/README.md",
    "labs/*/experiment.yml",
    "notebooks/*.ipynb",
    "docs/*.md",
    "results/*/README.md",
    "engine/README.md",
    "engine/docs/*.md",
    "infra/**/*.md",
    "playbooks/**/*.yml",
    "playbooks/README.md",
    "heaplab/*.py",
    "heaplab/tests/*.py",
    "engine/*/src/main/java/**/*.java",
)


def offending_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if FORBIDDEN.search(line)]


def _files() -> list[Path]:
    found = {p for pattern in PATTERNS for p in REPO.glob(pattern) if "/target/" not in str(p)}
    found.discard(Path(__file__))  # its planted lines
    return sorted(found)


def test_the_check_catches_both_kinds() -> None:
    planted = "as seed 000 shows\nfixed in issue 6 (gc)\nsee Issue #12\nthe random seed 42 and HBASE-17263\n"
    assert offending_lines(planted) == ["as seed 000 shows", "fixed in issue 6 (gc)", "see Issue #12"]


def test_the_files_exist() -> None:
    names = {str(p.relative_to(REPO)) for p in _files()}
    assert {"README.md", "labs/05-netty-rpc/README.md", "notebooks/05-netty-rpc.ipynb"} <= names
    assert len(names) > 100


def test_no_seed_or_issue_numbers() -> None:
    found = {str(p.relative_to(REPO)): offending_lines(p.read_text(encoding="utf-8")) for p in _files()}
    assert {path: lines for path, lines in found.items() if lines} == {}
