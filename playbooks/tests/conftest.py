"""Fixtures of the playbook tests: the real engine archive and variant runs in temporary directories."""

import shutil

import pytest

from playbooks.tests.support import VariantRun, engine_archive, kill_processes_mentioning


@pytest.fixture(scope="session")
def engine_dist():
    """engine/dist/target/heaplab-engine-<v>-bin.tar.gz; the tests skip when it is not built."""
    return engine_archive()


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
        kill_processes_mentioning(str(run.base_dir))
    shutil.rmtree(tmp_path / "base", ignore_errors=True)
