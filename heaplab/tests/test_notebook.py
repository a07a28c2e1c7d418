"""The lab-03 notebook executes headless (nbclient) against a run and shows the table, figure and verdicts."""

from pathlib import Path

import nbformat
from nbclient import NotebookClient

from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import Shape

NOTEBOOK = REPO / "notebooks/03-offheap-write.ipynb"


def execute(run_dir: Path) -> tuple[nbformat.NotebookNode, str]:
    """Run the notebook with ``run_dir`` injected after the parameters cell (papermill's convention)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    (index,) = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell(f"run_dir = {str(run_dir)!r}"))
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    ).execute()
    text = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", out
            data = out.get("data", {})
            text.append(data.get("text/markdown", "") + data.get("text/plain", "") + out.get("text", ""))
    return nb, "\n".join(text)


def _has_png(nb: nbformat.NotebookNode) -> bool:
    return any("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


def test_notebook_on_the_fixture(fixture_run: Path) -> None:
    nb, text = execute(fixture_run)
    assert "| 99.9% |" in text and "this run (ci)" in text
    assert "not yet available" in text
    assert "**inconclusive**" in text
    assert _has_png(nb)


def test_notebook_defaults_to_the_committed_fixture() -> None:
    nb = nbformat.read(NOTEBOOK, as_version=4)
    (params,) = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert 'run_dir = "../results/reference/03-offheap-write-ci-fixture"' in params.source
    assert (NOTEBOOK.parent / "../results/reference/03-offheap-write-ci-fixture/run.json").resolve().is_file()


def test_notebook_shows_a_reproduced_claim(make_pair) -> None:
    run = make_pair(Shape(young_gcs=8, gc_pause_ms=60), Shape(young_gcs=2, gc_pause_ms=2))
    _, text = execute(run)
    assert "**reproduced**" in text
    assert "not yet available" not in text
