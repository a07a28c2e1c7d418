"""Test order for `make test` (pytest-xdist, `--dist loadfile`): the files that run real labs at ci scale go
first, longest first, so that the workers end together instead of one finishing a long end-to-end run
while the other idles; every other file keeps its place. The durations are those of `--durations` in CI."""

from __future__ import annotations

import pytest

LONGEST_FIRST = (  # seconds per file in the junit report of a full run on 2 cores (3 workers), 2026-12-03
    "test_grading.py",  # 751 s: classes of students' notebooks, each executed by otter
    "test_namespace_cluster.py",  # 507 s: a 3-node cluster of namespaces, the engine and a distributed HBase
    "test_provision.py",  # 499 s: provision.yml seven times, ansible's tasks at about 0.5 s each
    "test_end_to_end_read_labs.py",  # 399 s: labs 04, 06 and 09 at ci scale
    "test_runner.py",  # 208 s
    "test_lab11_ci.py",  # 193 s
    "test_edition.py",  # 172 s: builds the engine's core module in a copy of the repository
    "test_end_to_end_labs.py",  # 172 s
    "test_lab02_ci.py",  # 142 s
    "test_variant_engine.py",  # 104 s
    "test_lab05_ci.py",  # 103 s
    "test_terraform.py",  # 96 s
    "test_hbase14_ci.py",  # 94 s
    "test_background_phase.py",  # 94 s
    "test_end_to_end.py",  # 88 s
    "test_notebooks_reference.py",  # 87 s
    "test_lab10_ci.py",  # 81 s
    "test_lab05_sweep.py",  # 72 s
    "test_integrity.py",  # 72 s
    "test_read_labs.py",  # 65 s
    "test_lab01_ci.py",  # 59 s
    "test_aa_run.py",  # 57 s
    "test_run_switch_check.py",  # 55 s
    "test_full_disk.py",  # 52 s
    "test_lint.py",  # 51 s
    "test_profile_ci.py",  # 44 s
    "test_memory.py",  # 40 s
    "test_ycsb_ci.py",  # 35 s
    "test_handout_commands.py",  # 35 s
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
