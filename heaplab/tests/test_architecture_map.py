"""docs/ARCHITECTURE.md is a map of what exists: every engine class and every path it names in backticks
must be in the repository, so that the map cannot drift from the code unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

from heaplab.tests.conftest import REPO

MAP = REPO / "docs" / "ARCHITECTURE.md"
CLASS = re.compile(r"[A-Z][A-Za-z0-9]+")  # `RegionServer`, `BucketCache`: a Java class of the engine
PATH = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?")  # `heaplab/lab/spec.py`, `playbooks/roles/`


def engine_classes(repo: Path) -> set[str]:
    return {p.stem for p in (repo / "engine").glob("*/src/main/java/**/*.java")}


def missing_names(text: str, repo: Path) -> list[str]:
    """The backticked names in ``text`` that do not exist under ``repo``: engine classes, then paths."""
    classes = engine_classes(repo)
    missing = []
    for token in re.findall(r"`([^`\n]+)`", text):
        if CLASS.fullmatch(token):
            if token not in classes:
                missing.append(token)
        elif "/" in token and PATH.fullmatch(token) and not (repo / token).exists():
            missing.append(token)
    return missing


def test_every_class_and_path_in_the_map_exists() -> None:
    assert missing_names(MAP.read_text(encoding="utf-8"), REPO) == []


def test_the_map_names_the_classes_of_every_switch() -> None:
    """The switch table is the map's core: each row names an interface and its two implementations."""
    text = MAP.read_text(encoding="utf-8")
    for on_heap, off_heap in (
        ("SimpleRpcServer", "NettyRpcServer"),
        ("HeapRequestBuffers", "DirectBufferPool"),
        ("HeapCopyReadPath", "ZeroCopyReadPath"),
        ("LegacyMvcc", "PreassignedMvcc"),
        ("LegacyWritePath", "StagedWritePath"),
    ):
        assert f"`{on_heap}`" in text and f"`{off_heap}`" in text, (on_heap, off_heap)


def test_a_renamed_class_or_a_removed_path_is_caught() -> None:
    """The check can fail: a class and a path that do not exist, beside ones that do."""
    planted = (
        "`RegionServer` calls `RegionServerv2`; see `heaplab/lab/spec.py` and `heaplab/no_such_module.py`."
    )
    assert missing_names(planted, REPO) == ["RegionServerv2", "heaplab/no_such_module.py"]
