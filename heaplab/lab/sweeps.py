"""experiment.yml's thread sweeps (docs/contracts.md section 8): ``sweep:``, one unnamed sweep (lab 05), or
``sweeps:``, named ones (lab 10), each the experiments of its steps from the lowest client concurrency to
the highest. heaplab.lab.spec reads them with the rest of the spec, so a bad sweep fails before a run;
heaplab.report.sweep lines the steps up.
"""

from __future__ import annotations

from typing import Any

from heaplab.lab.schema import Spec, SpecError

SWEEP_KEY = "sweep"  # one unnamed sweep (lab 05)
SWEEPS_KEY = "sweeps"  # several named sweeps (lab 10)
LEGACY_NAME = "sweep"  # the name `sweep:` gets among sweeps()


class SweepError(SpecError):
    """A malformed ``sweep`` or ``sweeps``, or a sweep the lab does not have: one line naming the place."""


def spec_sweeps(raw: dict[str, Any], spec: Spec, where: str) -> dict[str, list[str]]:
    """``sweep``/``sweeps`` of a parsed experiment.yml, checked against ``spec``."""
    if raw.get(SWEEP_KEY) is not None and raw.get(SWEEPS_KEY) is not None:
        raise SweepError(f"{where}: use {SWEEP_KEY} (one sweep) or {SWEEPS_KEY} (named sweeps), not both")
    if raw.get(SWEEPS_KEY) is not None:
        return check_sweeps(raw[SWEEPS_KEY], spec, where)
    steps = check_sweep(raw.get(SWEEP_KEY), spec, where)
    return {LEGACY_NAME: steps} if steps else {}


def check_sweeps(value: Any, spec: Spec, where: str) -> dict[str, list[str]]:
    """``sweeps:``: a mapping of names to sweeps, each checked like ``sweep:``; no step in two sweeps."""
    if not isinstance(value, dict) or not value:
        raise SweepError(f"{where}: {SWEEPS_KEY} must map sweep names to lists of experiments, low to high")
    out: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for name, steps in value.items():
        if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
            raise SweepError(f"{where}: {SWEEPS_KEY} name {name!r} must be letters, digits, _ or -")
        if name == LEGACY_NAME:
            raise SweepError(f"{where}: {SWEEPS_KEY} name {name!r} is the unnamed sweep's: choose another")
        out[name] = check_sweep(steps, spec, where, f"{SWEEPS_KEY}.{name}")
        for exp in out[name]:
            if exp in seen:
                other = f"{SWEEPS_KEY}.{seen[exp]}"
                raise SweepError(f"{where}: {SWEEPS_KEY}.{name} and {other} both name {exp!r}")
            seen[exp] = name
    return out


def check_sweep(value: Any, spec: Spec, where: str, key: str = SWEEP_KEY) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) < 2 or not all(isinstance(e, str) for e in value):
        raise SweepError(f"{where}: {key} must be a list of at least two experiment names, low to high")
    for exp in value:
        if exp not in spec.experiments:
            raise SweepError(f"{where}: {key} names {exp!r}, which the lab does not reproduce")
        if spec.measured_phase(exp) is None:
            raise SweepError(f"{where}: {key} step {exp!r} has no pe or ycsb phase measuring it")
    if len(set(value)) != len(value):
        raise SweepError(f"{where}: {key} names an experiment twice")
    return list(value)
