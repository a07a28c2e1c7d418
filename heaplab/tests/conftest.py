"""Shared fixtures: the committed ci fixture run (copied, so tests never write into the repo), fabricated
runs that do and do not show the effect, a throw-away repository root for the CLI, and throw-away
repository roots for REAL runs (the real playbooks, the real engine archive, a private inventory whose
heaplab_base_dir is a temporary directory)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.lab.schema import Spec
from heaplab.paths import DEFAULT_INVENTORY, find_dist_archive
from heaplab.tests.fabricate import Shape, fabricate_run, lab03_spec

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "results/reference/03-offheap-write-ci-fixture"
PUBLISHED = REPO / "results/published/published_results.csv"


def reference_series(lab: str) -> list[Path]:
    """The runs of ``lab``'s committed reference series at `local`, oldest first (a release replaces a
    series whole, so tests name its runs by place, never by their UTC stamps)."""
    runs = sorted((REPO / "results/reference").glob(f"{lab}-local-*/run.json"))
    assert runs, f"no committed local series of {lab} under results/reference"
    return [p.parent for p in runs]


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


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("localhost", 0))
        return sock.getsockname()[1]


def java_processes_mentioning(text: str) -> list[tuple[int, str]]:
    """(pid, command line) of every running java process whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        cmdline = b" ".join(argv).decode(errors="replace")
        if Path(argv[0].decode(errors="replace")).name == "java" and text in cmdline:
            found.append((int(entry.name), cmdline))
    return found


@dataclass(frozen=True)
class LabRoot:
    """A repository root for one real ``heaplab run``: HEAPLAB_ROOT=root, --inventory inventory."""

    root: Path
    inventory: Path  # the local inventory with heaplab_base_dir = base_dir
    base_dir: Path  # the host's working directory (engine, configuration, data, logs)
    port: int  # a free TCP port for hbase.regionserver.port
    commit: str | None  # HEAD when the root was made a git repository
    lab: str = "03-offheap-write"

    @property
    def spec(self) -> Path:
        return self.root / "labs" / self.lab / "experiment.yml"

    @property
    def runs_dir(self) -> Path:
        return self.root / "results/runs"

    def leftover_processes(self) -> list[tuple[int, str]]:
        return java_processes_mentioning(str(self.base_dir))


@dataclass(frozen=True)
class FinishedRun:
    """One real ``heaplab run`` in a LabRoot: the process, its run directory, run.json and the spec."""

    lab: LabRoot
    proc: subprocess.CompletedProcess[str]
    run: Path
    manifest: dict[str, Any]
    spec: Spec

    @property
    def params(self) -> dict[str, Any]:
        return self.spec.params("ci")

    @property
    def client(self) -> Path:
        return self.run / "hbase1-onheap" / "client"

    def summary(self) -> dict[str, Any]:
        return json.loads((self.client / "single_put-localhost.json").read_text(encoding="utf-8"))

    def output(self) -> str:
        return f"--- stdout ---\n{self.proc.stdout[-8000:]}\n--- stderr ---\n{self.proc.stderr[-4000:]}"


@pytest.fixture(scope="session")
def engine_archive() -> Path:
    """The real engine distribution; a missing build is a failure, not a skip."""
    archive = find_dist_archive(REPO)
    if archive is None:
        pytest.fail(
            "no engine/dist/target/heaplab-engine-*-bin.tar.gz: "
            "build it with `cd engine && mvn -B -q install -DskipTests`"
        )
    return archive


@pytest.fixture(scope="module")
def lab_root(
    tmp_path_factory: pytest.TempPathFactory, engine_archive: Path
) -> Iterator[Callable[..., LabRoot]]:
    """A factory of LabRoots for real runs.

    ``make(spec_text, git=False, lab="03-offheap-write")`` builds <tmp>/repo with the real playbooks/
    (symlink), the real engine archive (symlink) under engine/dist/target/, a copy of results/published/ and
    pyproject.toml, and ``spec_text`` as labs/<lab>/experiment.yml, where ``{port}`` is replaced by a free
    TCP port. ``git=True`` makes the root a git repository with one commit. The inventory is a copy of the
    local one with heaplab_base_dir under the temporary directory, so no run touches ~/heaplab. At the end
    every java process still running from a base dir is killed (the tests themselves check that none is left).
    """
    made: list[LabRoot] = []

    def make(spec_text: str, *, git: bool = False, lab: str = "03-offheap-write") -> LabRoot:
        tmp = tmp_path_factory.mktemp("lab")
        root = tmp / "repo"
        (root / "engine/dist/target").mkdir(parents=True)
        (root / "engine/dist/target" / engine_archive.name).symlink_to(engine_archive)
        (root / "playbooks").symlink_to(REPO / "playbooks")
        shutil.copytree(REPO / "results/published", root / "results/published")
        shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
        port = _free_port()
        spec = root / "labs" / lab / "experiment.yml"
        spec.parent.mkdir(parents=True)
        spec.write_text(spec_text.replace("{port}", str(port)), encoding="utf-8")
        base_dir = tmp / "base"
        inventory = tmp / "hosts.yml"
        inv = yaml.safe_load((REPO / DEFAULT_INVENTORY).read_text(encoding="utf-8"))
        for host in inv["all"]["hosts"].values():
            host["heaplab_base_dir"] = str(base_dir)
        inventory.write_text(yaml.safe_dump(inv), encoding="utf-8")
        commit = None
        if git:

            def run_git(*args: str) -> str:
                return subprocess.run(
                    ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
                ).stdout

            run_git("init", "-q")
            run_git("add", "-A")
            run_git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "fixture")
            commit = run_git("rev-parse", "HEAD").strip()
        made_root = LabRoot(
            root=root, inventory=inventory, base_dir=base_dir, port=port, commit=commit, lab=lab
        )
        made.append(made_root)
        return made_root

    yield make
    for lab in made:
        for pid, _ in lab.leftover_processes():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


__all__ = ["FIXTURE", "PUBLISHED", "REPO", "LabRoot", "Shape", "java_processes_mentioning"]
