"""Which claims a run is judged against: the lab's claims in this checkout, else the spec as run.

A run's data never changes; the claims are the reading of it, and they improve (a kind, a tolerance, a
precondition). So `heaplab report` judges a run against the claims of labs/<lab>/experiment.yml of the
checkout that holds it, as long as every variant and experiment those claims name is in the run; a run
of another shape (an older lab, a test's own spec) is judged against the claims it ran with.  claims.json
records which (``claims_from``).
"""

from __future__ import annotations

from pathlib import Path

from heaplab.lab.aa import claims_of_aa_run
from heaplab.lab.expectation import parse_expectation
from heaplab.lab.schema import Claim, SpecError
from heaplab.lab.spec import load_spec
from heaplab.paths import find_root
from heaplab.runfiles.rundir import Run

AS_RUN = "the spec as run"


def lab_spec_path(run: Run) -> Path | None:
    """labs/<lab>/experiment.yml of the checkout holding the run, else of the current checkout."""
    for parent in run.path.resolve().parents:
        candidate = parent / "labs" / run.lab / "experiment.yml"
        if candidate.is_file():
            return candidate
    candidate = find_root() / "labs" / run.lab / "experiment.yml"
    return candidate if candidate.is_file() else None


def _fits(claims: list[Claim], run: Run) -> bool:
    for c in claims:
        if not c.measurable:
            continue
        if c.experiment not in run.spec.experiments:
            return False
        if any(v not in run.spec.variants for v in parse_expectation(str(c.expect)).variants):
            return False
    return True


def claims_to_judge(run: Run) -> tuple[list[Claim], str]:
    """The claims and where they come from (a path relative to the checkout, or AS_RUN); an A/A run's are
    the A/A claims derived from them (heaplab.lab.aa)."""
    claims, source = _lab_claims(run)
    aa = run.aa
    return (claims_of_aa_run(claims, aa, run.spec) if isinstance(aa, dict) else claims), source


def _lab_claims(run: Run) -> tuple[list[Claim], str]:
    path = lab_spec_path(run)
    if path is not None:
        try:
            current = load_spec(path).claims
        except SpecError:
            current = None
        if current is not None and _fits(current, run):
            return current, f"labs/{run.lab}/experiment.yml"
    return list(run.spec.claims), AS_RUN
