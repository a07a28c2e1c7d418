"""Every lab's notebook executes headless (nbclient, a real kernel) on the lab's newest committed reference
run, as a student's notebook opens before the student has made a run: no cell may raise, and the notebook
shows the run's claims. The graded notebooks' answer cells are left as shipped (`...`): the questions'
public checks then fail politely in their output, which is not an error."""

from __future__ import annotations

import pytest

from heaplab.lab.spec import list_labs, load_spec
from heaplab.runfiles.rundir import newest_run_of
from heaplab.tests.conftest import REPO
from heaplab.tests.shared_runs import execute_notebook

LABS = [p.parent.name for p in list_labs(REPO)]


@pytest.mark.parametrize("lab", LABS)
def test_the_notebook_executes_on_the_reference_run(lab: str) -> None:
    run = newest_run_of(lab, REPO / "results/reference")
    assert run is not None, f"{lab} has no committed reference run"
    _, text = execute_notebook(REPO / "notebooks" / f"{lab}.ipynb", run)
    claims = [c.id for c in load_spec(REPO / "labs" / lab / "experiment.yml").claims]
    assert any(c in text for c in claims), f"{lab}: the notebook shows none of its claims"
