"""The stage tables in engine/docs are what `heaplab alloc-stages` makes of the committed profiles.

Each table between `heaplab alloc-stages` markers is regenerated from the profiles its marker names
(engine/docs/profiles/, with their sidecars); a table typed or edited by hand, a profile changed, or a
rule of heaplab/analysis/alloc_stage_rules.py moved fails here with the diff (`heaplab alloc-stages --write`
rewrites them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.report.alloc_docs import BEGIN, check, documents, load_committed, regenerate
from heaplab.tests.conftest import REPO

PROFILES = REPO / "engine/docs/profiles"


def test_the_write_path_pages_hold_stage_tables() -> None:
    names = {p.relative_to(REPO).as_posix() for p in documents(REPO)}
    assert {"engine/docs/allocation.md", "engine/docs/write-path.md"} <= names


def test_every_generated_table_matches_its_profiles() -> None:
    problems = check(REPO, documents(REPO))
    assert problems == [], "\n".join(problems) + "\nrun `heaplab alloc-stages --write`"


def test_a_table_edited_by_hand_is_caught(tmp_path: Path) -> None:
    doc = REPO / "engine/docs/write-path.md"
    text = doc.read_text(encoding="utf-8")
    edited = text.replace("| RPC read |", "| RPC read | 1 |", 1)
    assert edited != text and regenerate(REPO, edited, "edited") == text


def test_every_committed_profile_has_its_sidecar_and_the_docs_read_it() -> None:
    profiles = sorted(PROFILES.glob("*.collapsed*"))
    assert profiles
    for path in profiles:
        meta = json.loads(path.with_name(path.name.split(".collapsed")[0] + ".json").read_text())
        committed = load_committed(path)
        assert committed.table.operations == meta["operations"] > 0
        assert committed.table.family == meta["subject"]
        assert committed.table.share("other") < 0.10, (path.name, committed.table.share("other"))
        assert path.stat().st_size < 1_000_000 or path.name.endswith(".gz")
    used = "".join(p.read_text(encoding="utf-8") for p in documents(REPO))
    assert BEGIN in used
    for path in profiles:
        assert path.relative_to(REPO).as_posix() in used, f"{path.name} is committed but no doc uses it"


def test_the_command_checks_every_doc(capsys: pytest.CaptureFixture[str]) -> None:
    """`heaplab alloc-stages --check` on this checkout: exit 0 and one summary line naming the docs."""
    assert main(["--root", str(REPO), "alloc-stages", "--check"]) == 0
    out = capsys.readouterr().out
    assert (
        f"heaplab alloc-stages --check: 0 of {len(documents(REPO))} file(s) differ from their profiles" in out
    )
