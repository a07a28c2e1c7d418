"""A run made while other work shared the machine says so in its report (heaplab.report.report, from the /proc
samples of heaplab.analysis.proc_cpu): the committed lab 03 run is quiet; a copy whose samples show a third of
the CPUs busy with neither the server nor the client gets the warning."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from heaplab.analysis.proc_cpu import BUSY_OTHER_SHARE
from heaplab.judge.run_analysis import analyse
from heaplab.report.report import _host_cpu_lines
from heaplab.tests.conftest import REPO

LAB03 = sorted((REPO / "results" / "reference").glob("03-offheap-write-local-*"))[-1]
VARIANT, PHASE = "hbase1-onheap", "single_put"
WARNING = "The machine was busy with other work"


def _busy_copy(tmp_path: Path, share: float) -> Path:
    """A copy of LAB03 whose single_put window shows ``share`` of the host's CPU time taken by neither the
    server nor the client: that much of the server's CPU seconds moved out of its own count in the sample
    after the phase (raw files of a copy, made to stand for a run on a shared machine, which this test
    cannot arrange for real; the host's busy ticks stay as they were)."""
    run = tmp_path / LAB03.name
    shutil.copytree(LAB03, run)
    samples = run / VARIANT / "server" / "localhost" / "proc-cpu.jsonl"
    lines = [json.loads(x) for x in samples.read_text(encoding="utf-8").splitlines() if x.strip()]
    before = next(x for x in lines if x["phase"] == PHASE and x["at"] == "before")
    after = next(x for x in lines if x["phase"] == PHASE and x["at"] == "after")
    total_s = (sum(after["host_cpu_ticks"]) - sum(before["host_cpu_ticks"])) / after["clk_tck"]
    moved_s = share * total_s
    assert after["server_cpu_s"] - before["server_cpu_s"] > moved_s, "the server used less CPU than that"
    after["server_cpu_s"] -= moved_s
    samples.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return run


def test_an_idle_reference_run_gets_no_warning() -> None:
    lines = _host_cpu_lines(analyse(LAB03), PHASE)
    assert lines and not any(WARNING in x for x in lines)


def test_a_run_on_a_busy_machine_is_told_so(tmp_path: Path) -> None:
    run = _busy_copy(tmp_path, BUSY_OTHER_SHARE + 0.1)
    lines = _host_cpu_lines(analyse(run), PHASE)
    (warning,) = [x for x in lines if WARNING in x]
    assert f"localhost ({VARIANT}: other work" in warning and "rerun on an idle machine" in warning


def _single_put_claims(a) -> list:
    return [c for c in a.claims if c.claim.experiment == PHASE and VARIANT in str(c.claim.expect)]


def test_a_verdict_on_a_busy_machine_carries_a_caution(tmp_path: Path) -> None:
    idle = _single_put_claims(analyse(LAB03))
    assert idle and not any("other work shared the machine" in c.why for c in idle)
    run = _busy_copy(tmp_path, BUSY_OTHER_SHARE + 0.1)
    busy = _single_put_claims(analyse(run))
    caution = f"CAUTION: other work shared the machine while {VARIANT} in {run.name} (other work "
    assert busy and all(caution in c.why and "rerun on an idle machine" in c.why for c in busy), [
        c.why for c in busy
    ]
