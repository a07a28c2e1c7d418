"""Shared fixtures: the committed ci fixture run (copied, so tests never write into the repo), fabricated
runs that do and do not show the effect, and a throw-away repository root for the CLI."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "results/reference/03-offheap-write-ci-fixture"
PUBLISHED = REPO / "results/published/published_results.csv"


@pytest.fixture
def fixture_run(tmp_path: Path) -> Path:
    """A private copy of the committed ci fixture run."""
    dest = tmp_path / "runs" / "03-offheap-write-ci-20261121T200000Z"
    shutil.copytree(FIXTURE, dest)
    return dest


@pytest.fixture
def make_pair(tmp_path: Path) -> Callable[..., Path]:
    """Fabricate a lab-03 run with both variants measured (hbase2-offheap made available)."""

    def make(onheap: Shape, offheap: Shape | None, name: str = "pair") -> Path:
        shapes = {"hbase1-onheap": onheap}
        if offheap is not None:
            shapes["hbase2-offheap"] = offheap
        return fabricate_run(tmp_path / name, lab03_spec(offheap_available=True), shapes)

    return make


@pytest.fixture
def fake_root(tmp_path: Path) -> Path:
    """A minimal checkout: lab 03's spec (both variants available), an engine archive, playbook files."""
    root = tmp_path / "repo"
    lab = root / "labs" / "03-offheap-write"
    lab.mkdir(parents=True)
    (lab / "experiment.yml").write_text(yaml.safe_dump(lab03_spec(offheap_available=True)), encoding="utf-8")
    dist = root / "engine/dist/target"
    dist.mkdir(parents=True)
    (dist / "heaplab-engine-0.1.0-bin.tar.gz").write_bytes(b"not really a tarball")
    inv = root / "playbooks/inventories/local"
    inv.mkdir(parents=True)
    (inv / "hosts.yml").write_text("all:\n  hosts:\n    localhost: {ansible_connection: local}\n")
    (root / "playbooks/variant.yml").write_text("- hosts: all\n  tasks: []\n")
    (root / "playbooks/ansible.cfg").write_text("[defaults]\n")
    (root / "pyproject.toml").write_text("")
    return root


__all__ = ["FIXTURE", "PUBLISHED", "REPO", "Shape"]
