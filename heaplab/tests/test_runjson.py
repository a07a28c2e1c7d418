"""run.json is replaced atomically: a reader sees the old or the new manifest, never a partial one."""

import json
from pathlib import Path

import pytest

from heaplab.runfiles import runjson
from heaplab.runfiles.runjson import write_run_json


def test_write_replaces_via_rename_and_leaves_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_run_json(tmp_path, {"lab": "x", "status": "running"})
    renames: list[tuple[str, str]] = []
    real_replace = Path.replace

    def spy(self: Path, target: Path) -> Path:
        # At the moment of the rename the old manifest is still whole and the new one fully written.
        assert json.loads((tmp_path / "run.json").read_text())["status"] == "running"
        assert json.loads(self.read_text())["status"] == "complete"
        renames.append((self.name, Path(target).name))
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", spy)
    write_run_json(tmp_path, {"lab": "x", "status": "complete"})
    assert len(renames) == 1 and renames[0][1] == "run.json" and renames[0][0] != "run.json"
    assert json.loads((tmp_path / "run.json").read_text()) == {"format": 1, "lab": "x", "status": "complete"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]


def test_failed_write_keeps_the_old_manifest(tmp_path: Path) -> None:
    write_run_json(tmp_path, {"lab": "x", "status": "running"})
    with pytest.raises(TypeError):
        write_run_json(tmp_path, {"lab": "x", "status": object()})  # not JSON-serialisable mid-dump
    assert json.loads((tmp_path / "run.json").read_text())["status"] == "running"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"]
    assert runjson.FORMAT == 1
