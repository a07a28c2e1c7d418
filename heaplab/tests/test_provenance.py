"""git_state: a run's checkout is "modified" when anything a run reads differs from the commit, not when a
student answered a notebook in place as the handouts ask (heaplab submit refuses modified runs)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from heaplab.run.provenance import git_state


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "notebooks").mkdir(parents=True)
    (repo / "labs" / "03").mkdir(parents=True)
    (repo / "notebooks" / "03.ipynb").write_text("{}\n", encoding="utf-8")
    (repo / "labs" / "03" / "experiment.yml").write_text("lab: 03\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "start")
    return repo


def test_a_clean_checkout_is_not_dirty(checkout: Path) -> None:
    state = git_state(checkout)
    assert state["dirty"] is False
    assert len(state["commit"]) == 40


def test_an_answered_notebook_does_not_make_it_dirty(checkout: Path) -> None:
    (checkout / "notebooks" / "03.ipynb").write_text('{"answered": true}\n', encoding="utf-8")
    assert git_state(checkout)["dirty"] is False


def test_a_changed_experiment_makes_it_dirty(checkout: Path) -> None:
    (checkout / "labs" / "03" / "experiment.yml").write_text("lab: 03\nthreads: 99\n", encoding="utf-8")
    (checkout / "notebooks" / "03.ipynb").write_text('{"answered": true}\n', encoding="utf-8")
    assert git_state(checkout)["dirty"] is True


def test_no_checkout_is_unknown(tmp_path: Path) -> None:
    assert git_state(tmp_path) == {"commit": None, "dirty": None}
