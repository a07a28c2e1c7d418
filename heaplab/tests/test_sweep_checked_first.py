"""A bad sweep in experiment.yml fails `heaplab run` at once, before any run directory or playbook.

The report reads the sweep after the run; without the early check a typo cost a whole run first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from heaplab.lab.sweeps import SweepError
from heaplab.run.options import RunOptions
from heaplab.run.runner import run_lab

REPO = Path(__file__).resolve().parents[2]
LAB = "05-netty-rpc"


def _root_with(tmp_path: Path, sweep_line: str) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "labs" / LAB, root / "labs" / LAB)
    spec = root / "labs" / LAB / "experiment.yml"
    text = spec.read_text(encoding="utf-8")
    original = "sweep: [netty_rpc_sweep1, netty_rpc_sweep2, netty_rpc_sweep3, netty_rpc]\n"
    assert original in text, "the lab's sweep line changed: update this test"
    spec.write_text(text.replace(original, sweep_line), encoding="utf-8")
    return root


def _options(root: Path, tmp_path: Path) -> RunOptions:
    return RunOptions(
        root=root,
        scale="ci",
        inventory=tmp_path / "hosts.yml",
        runs_dir=tmp_path / "runs",
        command="heaplab run " + LAB,
    )


@pytest.mark.parametrize(
    ("sweep_line", "message"),
    [
        (
            "sweep: [netty_rpc_sweep1, netty_rpc_sweep9]\n",
            "'netty_rpc_sweep9', which the lab does not reproduce",
        ),
        ("sweep: [netty_rpc]\n", "at least two experiment names"),
        ("sweep: [netty_rpc, netty_rpc]\n", "names an experiment twice"),
    ],
)
def test_a_bad_sweep_fails_before_the_run(tmp_path: Path, sweep_line: str, message: str) -> None:
    root = _root_with(tmp_path, sweep_line)
    with pytest.raises(SweepError, match=message):
        run_lab(LAB, _options(root, tmp_path))
    assert not (tmp_path / "runs").exists(), "no run directory for a run that cannot be reported"


def test_the_labs_own_sweep_passes_the_check(tmp_path: Path) -> None:
    root = _root_with(tmp_path, "sweep: [netty_rpc_sweep1, netty_rpc_sweep2, netty_rpc_sweep3, netty_rpc]\n")
    # past the sweep check, the run stops at the next missing piece (no engine build in this copy)
    with pytest.raises(Exception) as e:
        run_lab(LAB, _options(root, tmp_path))
    assert not isinstance(e.value, SweepError), e.value
