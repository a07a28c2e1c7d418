"""Which run a lab's notebook opens (heaplab.find_lab_run): a submission's run beside the notebook, else
the notebook's own ``run_dir``, else the student's newest run of the lab, else the newest committed
reference run, and a sentence saying which; every notebook asks for it with its own lab's name and its
``run_dir``, and every lab has a committed reference run for it to open before the student has made one."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from heaplab.lab.spec import list_labs
from heaplab.runfiles.rundir import RunError, find_lab_run, newest_run_of
from heaplab.tests.conftest import REPO

LABS = [p.parent.name for p in list_labs(REPO)]


def _run(parent: Path, name: str) -> Path:
    run = parent / name
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"format": 1}), encoding="utf-8")
    return run


def test_submission_then_yours_then_the_reference(tmp_path: Path) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    lab = "03-offheap-write"
    _run(tmp_path / "results/reference", f"{lab}-ci-fixture")  # no UTC stamp: never picked
    with pytest.raises(RunError, match=f"no run of {lab} in .*: `heaplab run {lab}`"):
        find_lab_run(lab, notebooks)
    old = _run(tmp_path / "results/reference", f"{lab}-local-20261120T000000Z")
    new = _run(tmp_path / "results/reference", f"{lab}-local-20261125T000000Z")
    _run(tmp_path / "results/reference", "04-offheap-read-local-20261126T000000Z")  # another lab
    (tmp_path / "results/reference" / f"{lab}-local-20261127T000000Z").mkdir()  # no run.json
    run, which = find_lab_run(lab, notebooks)
    assert run == new != old and "**You have no run of 03-offheap-write yet**" in which
    assert f"`results/reference/{new.name}`" in which
    yours = _run(tmp_path / "results/runs", f"{lab}-ci-20261101T000000Z")
    expected = f"Reading your newest run of {lab}: `results/runs/{yours.name}`."
    assert find_lab_run(lab, notebooks) == (yours, expected)
    submitted = _run(notebooks / "results", f"{lab}-local-20261001T000000Z")
    assert find_lab_run(lab, notebooks) == (submitted, f"Reading the submitted run `{submitted.name}`.")


def test_run_dir_as_a_student_sets_it(tmp_path: Path) -> None:
    """The handouts say "point run_dir at your run": a path from the repository or the notebook, a bare
    name, or an absolute path all open it; a wrong one says so in one line."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    lab = "03-offheap-write"
    newest = _run(tmp_path / "results/runs", f"{lab}-local-20261202T000000Z")
    mine = _run(tmp_path / "results/runs", f"{lab}-local-20261201T000000Z")
    for given in (f"results/runs/{mine.name}", f"../results/runs/{mine.name}", mine.name, str(mine)):
        run, which = find_lab_run(lab, notebooks, given)
        assert run.resolve() == mine.resolve() != newest.resolve(), given
        assert "Reading `run_dir`" in which
    with pytest.raises(RunError, match=r"run_dir = 'results/runs/typo': no run there"):
        find_lab_run(lab, notebooks, "results/runs/typo")


def test_the_grader_reads_the_submitted_run_whatever_run_dir_says(tmp_path: Path) -> None:
    """Graded, the notebook sits beside the run it was handed in with; the student's run_dir is a path on
    their machine, which does not exist there: the submitted run is read, and said to be."""
    notebooks = tmp_path / "notebooks"
    lab = "03-offheap-write"
    submitted = _run(notebooks / "results", f"{lab}-local-20261201T000000Z")
    given = f"/home/ada/heaplab/results/runs/{submitted.name}"
    assert find_lab_run(lab, notebooks, given) == (
        submitted,
        f"Reading the submitted run `{submitted.name}`.",
    )
    run, which = find_lab_run(lab, notebooks, "results/runs/03-offheap-write-local-20261130T000000Z")
    assert run == submitted and "the grader reads the run handed in" in which


@pytest.mark.parametrize("lab", LABS)
def test_every_lab_has_a_reference_run_to_open(lab: str) -> None:
    run = newest_run_of(lab, REPO / "results/reference")
    assert run is not None and (run / "report.md").is_file(), lab


@pytest.mark.parametrize("lab", LABS)
def test_the_notebook_asks_for_its_own_labs_run(lab: str) -> None:
    nb = nbformat.read(REPO / "notebooks" / f"{lab}.ipynb", as_version=4)
    (params,) = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert "run_dir = None" in params.source
    calls = [c for c in nb.cells if c.cell_type == "code" and "heaplab.find_lab_run(" in c.source]
    assert len(calls) == 1 and f'heaplab.find_lab_run("{lab}", Path.cwd(), run_dir)' in calls[0].source
