"""Every shell script of the repository parses (``bash -n``): a quote left open in a rarely used branch
(say, an apostrophe inside ``${VAR:?message}``) would otherwise break the whole script, every command of it,
only when that script runs on a student's machine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from heaplab.tests.conftest import REPO

SHEBANGS = ("#!/usr/bin/env bash", "#!/bin/bash", "#!/bin/sh", "#!/usr/bin/env sh")


def shell_scripts() -> list[Path]:
    files = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    out = []
    for name in files:
        path = REPO / name
        if not path.is_file() or path.suffix in (".py", ".md", ".yml", ".yaml", ".json", ".ipynb"):
            continue
        with path.open("rb") as f:
            first = f.readline().decode("utf-8", errors="replace").strip()
        if first.startswith(SHEBANGS):
            out.append(path)
    return out


def test_the_repository_has_shell_scripts() -> None:
    names = {p.relative_to(REPO).as_posix() for p in shell_scripts()}
    assert {"infra/apache-hbase/bin/hbase-lab", "engine/dist/src/bin/engine", ".ci/run"} <= names


@pytest.mark.parametrize("script", shell_scripts(), ids=lambda p: p.relative_to(REPO).as_posix())
def test_script_parses(script: Path) -> None:
    proc = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_a_script_with_an_open_quote_fails_the_check(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sh"
    bad.write_text("#!/usr/bin/env bash\ncase $1 in\n  x) v=${HOME:?it's unset} ;;\nesac\n", encoding="utf-8")
    proc = subprocess.run(["bash", "-n", str(bad)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "unexpected EOF" in proc.stderr
