"""Fixtures of the playbook tests: engine archives and variant runs in temporary directories."""

import contextlib
import os
import shutil
import signal
import tarfile

import pytest

from playbooks.tests.support import STUB_ENGINE, VariantRun


@pytest.fixture
def stub_archive(tmp_path_factory):
    """The contract stub packed like the real distribution: heaplab-engine-<v>-bin.tar.gz."""
    out = tmp_path_factory.mktemp("dist")
    archive = out / "heaplab-engine-0.0.0-stub-bin.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(
            STUB_ENGINE,
            arcname="heaplab-engine-0.0.0-stub",
            filter=lambda info: None if "__pycache__" in info.name else info,
        )
    return archive


@pytest.fixture
def variant_run(tmp_path):
    """A factory of VariantRun; kills any process a failed test left in its base dir."""
    runs = []

    def make(archive):
        run = VariantRun(tmp_path, archive)
        runs.append(run)
        return run

    yield make
    for run in runs:
        for pid, _ in run.leftover_processes():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    shutil.rmtree(tmp_path / "base", ignore_errors=True)
