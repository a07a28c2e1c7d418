"""A warm-up with ``level_off`` and a phase sized from it, end to end: the real heaplab run, ansible-playbook,
engine_workload's size.yml and again.yml, and the engine's pe (lab 03's spec at a tiny ci scale).

The warm-up's 2 x 100 puts take well under a second, far too few seconds for the steady-state rule to call
their rate level, so the playbook must run the warm-up a second time, sized from its first run, before it
sizes single_put from it; single_put's sizing must then read the second run with the args it ran with.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml

from heaplab.tests.conftest import FinishedRun, LabRoot
from heaplab.tests.test_phase_sizing import SIZING
from heaplab.tests.test_runner import heaplab_env, real_run, small_spec


def level_off_spec() -> str:
    raw = yaml.safe_load(small_spec())
    phases = {p["name"]: p for p in raw["phases"]}
    phases["warmup"]["level_off"] = True
    phases["single_put"].update(steady_after_s="1", measure_s="2", sized_by={"phase": "warmup"})
    # a sized write writes a table of its own, made for its keys (heaplab.lab.phase_time)
    phases["single_put"]["args"] = phases["single_put"]["args"].replace(
        "randomWrite", "--table=PutTable randomWrite"
    )
    return yaml.safe_dump(raw, sort_keys=False)


@pytest.fixture(scope="module")
def finished(lab_root) -> FinishedRun:
    lab: LabRoot = lab_root(level_off_spec())
    done = real_run(lab)
    assert done.proc.returncode == 0, done.proc.stdout[-6000:] + done.proc.stderr[-3000:]
    return done


def _ops(hlog_text: str) -> int:
    return sum(n for _, _, n in SIZING.intervals(hlog_text))


def test_the_warm_up_ran_again_and_kept_its_first_log(finished: FinishedRun) -> None:
    client = finished.run / "hbase1-onheap" / "client"
    (first,) = client.glob("warmup-*.first.hlog")
    host = first.name.removeprefix("warmup-").removesuffix(".first.hlog")
    record = json.loads((client / f"warmup-{host}.sizing.json").read_text(encoding="utf-8"))
    assert record["again"] is True and record["phase"] == record["from"] == "warmup"
    assert record["why"].startswith("never levelled off, so it ran again: ")
    assert record["stated"] == 100 and record["value"] > record["stated"]
    assert f"--rows={record['value']} " in record["args"]
    # the phase's own files are the second run's: more puts than the first run's 2 x 100
    first_ops = _ops(first.read_text(encoding="utf-8"))
    second = json.loads((client / f"warmup-{host}.json").read_text(encoding="utf-8"))
    assert first_ops == 200 and second["operations"] == 2 * record["value"]
    assert _ops((client / f"warmup-{host}.hlog").read_text(encoding="utf-8")) == 2 * record["value"]


def test_the_phase_sized_from_it_read_the_second_run(finished: FinishedRun) -> None:
    sized = finished.manifest["variants"]["hbase1-onheap"]["sized"]
    assert set(sized) == {"warmup", "single_put"}
    ((host, warm),) = sized["warmup"].items()
    put = sized["single_put"][host]
    assert warm["again"] is True and put["from"] == "warmup" and put["value"] >= put["stated"] == 300
    # single_put's rate is the second run's puts over the rows that run put (its args, not the stated ones)
    phases = finished.spec.phases_for(finished.params, finished.spec.variants["hbase1-onheap"])
    phase = next(p for p in phases if p["name"] == "single_put")
    hlog = (finished.run / "hbase1-onheap/client" / f"warmup-{host}.hlog").read_text(encoding="utf-8")
    assert put == SIZING.phase_size(hlog, phase, warm["args"])
    assert put["rate_rows_per_s"] != SIZING.phase_size(hlog, phase)["rate_rows_per_s"]


def test_the_report_names_the_second_run(finished: FinishedRun) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "heaplab", "report", str(finished.run)],
        capture_output=True,
        text=True,
        cwd=finished.lab.root,
        env=heaplab_env(finished.lab),
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = (finished.run / "report.md").read_text(encoding="utf-8")
    assert "- its warm-up `warmup` on " in report and "never levelled off, so it ran again" in report
