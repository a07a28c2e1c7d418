"""Test order for `make test` (pytest-xdist, `--dist loadfile`): the files that run real labs at ci scale go
first, longest first, so that the two workers end together instead of one finishing a long end-to-end run
while the other idles; every other file keeps its place. The durations are those of `--durations` in CI."""

from __future__ import annotations

import pytest

LONGEST_FIRST = (  # seconds per file in `--durations` of a full run on 2 cores, 2026-11-28
    "test_end_to_end_read_labs.py",  # labs 04, 06 and 09 at ci scale: 685 s (with three lab 04 variants)
    "test_grading.py",  # 439 s
    "test_end_to_end_labs.py",  # 285 s
    "test_lab11_ci.py",  # 253 s
    "test_namespace_cluster.py",  # 248 s
    "test_runner.py",  # 221 s
    "test_edition.py",  # 219 s: builds the engine's core module in a copy of the repository
    "test_integrity.py",  # 210 s
    "test_lab02_ci.py",
    "test_full_disk.py",  # two runs on small tmpfs mounts: about 100 s (2026-11-29)
    "test_run_switch_check.py",  # one lab 03 run with two engine variants: about 80 s
    "test_notebooks_reference.py",
    "test_lab05_ci.py",
    "test_lab10_ci.py",
    "test_end_to_end.py",
    "test_variant_engine.py",
    "test_background_phase.py",
    "test_provision.py",
    "test_terraform.py",
    "test_lab01_ci.py",
    "test_aa_run.py",  # one A/A run of lab 07 (a variant and its twin): 47 s idle, 58 s beside other work
    "test_noisy_host.py",  # variant.yml with a junk-printing python3: about 40 s
    "test_lint.py",
    "test_ycsb_ci.py",
    "test_profile_ci.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order
