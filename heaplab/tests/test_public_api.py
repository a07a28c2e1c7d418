"""heaplab's public API (heaplab/__init__.py) is imported name by name when first used: every name it
presents resolves, and importing one of heaplab's modules does not import the rest of the package.

Why it matters: ansible loads playbooks/filter_plugins/heaplab_sizing.py (which imports
heaplab.analysis.steady) in a fresh worker for every task of every playbook; with the package importing
matplotlib and every analysis module up front, that cost about 0.6 CPU-s per task (25 s of a variant's
set-up). Measured in a fresh interpreter, so nothing this test process imported before counts.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import heaplab
from heaplab.tests.conftest import REPO


def test_every_public_name_resolves() -> None:
    for name in heaplab.__all__:
        assert getattr(heaplab, name) is not None, name
    assert sorted(heaplab.__all__) == sorted(set(heaplab._EXPORTS) | set(heaplab._MODULES))
    with pytest.raises(AttributeError, match="module 'heaplab' has no attribute 'no_such_name'"):
        _ = heaplab.no_such_name  # type: ignore[attr-defined]


def _modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    return set(done.stdout.split())


def test_a_module_of_the_package_imports_only_what_it_needs() -> None:
    loaded = _modules_after("import heaplab.analysis.steady")  # what the ansible filter plugin imports
    assert "heaplab.analysis.steady" in loaded
    for heavy in ("matplotlib", "heaplab.report.report", "heaplab.judge.run_analysis"):
        assert heavy not in loaded, heavy


def test_the_notebooks_import_still_gives_them_everything() -> None:
    loaded = _modules_after("from heaplab import analyse, latency_figure, sweep")
    assert {"heaplab.judge.run_analysis", "heaplab.report.figures", "heaplab.report.sweep"} <= loaded
