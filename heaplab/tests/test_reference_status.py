"""`heaplab reference status` and a report's opening lines on a planted change (heaplab/run/staleness.py).

A throw-away git repository holds a reference series (the committed ci fixture run, relabelled `local` and
pointed at the repository's first commit) and a few files standing for each kind: the engine's code and its
tests, a playbook, heaplab's run stage and its analysis, a doc. Only a change to what makes a run may make
the series stale.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.run.staleness import report_preface, staleness
from heaplab.runfiles.rundir import load_run
from heaplab.runfiles.timings import run_cost, target_line
from heaplab.tests.conftest import REPO
from heaplab.tests.git_repo import commit, git

FIXTURE = REPO / "results/reference/03-offheap-write-ci-fixture"
SERIES = "results/reference/03-offheap-write-local-20260101T000000Z"
FILES = {
    "engine/core/src/main/java/org/heaplab/core/Region.java": "class Region {}\n",
    "engine/core/src/test/java/org/heaplab/core/RegionTest.java": "class RegionTest {}\n",
    "engine/bench/src/main/java/org/heaplab/bench/PutBench.java": "class PutBench {}\n",
    "playbooks/variant.yml": "---\n",
    "playbooks/tests/test_lint.py": "\n",
    "heaplab/run/runner.py": "\n",
    "heaplab/analysis/steady.py": "\n",
    "docs/analysis.md": "# Analysis\n",
    "infra/apache-hbase/fetch.sh": "#!/bin/sh\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "labs/03-offheap-write").mkdir(parents=True)
    shutil.copyfile(FIXTURE / "experiment.yml", root / "labs/03-offheap-write/experiment.yml")
    shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(REPO / "results/published", root / "results/published")
    git(root, "init", "-q")
    first = commit(root, "the code the series was made with")
    shutil.copytree(FIXTURE, root / SERIES)
    manifest = json.loads((root / SERIES / "run.json").read_text(encoding="utf-8"))
    manifest.update(scale="local", git={"commit": first, "dirty": False})
    (root / SERIES / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    commit(root, "the series")
    return root


def _cost_oracle(run: Path) -> tuple[float, float, float]:
    """The run's minutes (run.json's start to end), its phases' (each variant's pe phases, end to end,
    none of the fixture's overlapping) and those of the two phases its claims judge (the fixture's
    single_put and batch_put; its warmup is not judged), computed here on their own."""
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    stamp = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()  # noqa: E731
    phases_ms = measured_ms = 0.0
    for summary in run.glob("*/client/*.json"):
        data = json.loads(summary.read_text(encoding="utf-8"))
        if "start_epoch_ms" in data:
            phases_ms += data["end_epoch_ms"] - data["start_epoch_ms"]
            if summary.name.startswith(("single_put-", "batch_put-")):
                measured_ms += data["end_epoch_ms"] - data["start_epoch_ms"]
    assert phases_ms > measured_ms > 0
    return (stamp(manifest["end"]) - stamp(manifest["start"])) / 60, phases_ms / 60000, measured_ms / 60000


def _status(root: Path, capsys: pytest.CaptureFixture[str], *more: str) -> tuple[int, list[str]]:
    code = main(["--root", str(root), "reference", "status", *more])
    return code, capsys.readouterr().out.splitlines()


def test_only_what_makes_a_run_makes_a_series_stale(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _status(repo, capsys)
    assert (
        code == 0
        and out[0].startswith("03-offheap-write (local, 1 run, commit ")
        and out[0].endswith(": current")
    )
    minutes, phases, measured = _cost_oracle(repo / SERIES)
    assert (
        f"{minutes:.0f} min: phases {phases:.0f} (measured {measured:.0f}), set-up {minutes - phases:.0f} ("
        in out[0]
    )
    assert out[-1] == (
        "heaplab reference status: 0 of 1 series not made by this checkout's code, 0 with a phase disturbed "
        f"by other work; {minutes:.0f} minutes of runs in all"
    )

    # the engine's tests and benchmarks, the playbooks' tests, heaplab's analysis, a doc: no run changes
    for rel in FILES:
        if (
            "/src/test/" in rel
            or "/bench/" in rel
            or "tests/" in rel
            or rel.startswith(("heaplab/analysis", "docs"))
        ):
            (repo / rel).write_text("changed\n", encoding="utf-8")
    commit(repo, "changes no run")
    assert _status(repo, capsys)[0] == 0

    # the engine's code, a playbook and the runner do; HBase's files only for a lab that runs HBase
    for rel in (
        "engine/core/src/main/java/org/heaplab/core/Region.java",
        "playbooks/variant.yml",
        "heaplab/run/runner.py",
        "infra/apache-hbase/fetch.sh",
    ):
        (repo / rel).write_text("changed\n", encoding="utf-8")
    commit(repo, "changes the runs")
    code, out = _status(repo, capsys, "--files")
    assert code == 1, out
    servers = {v.server for v in load_run(repo / SERIES).spec.variants.values()}
    hbase = ["infra/apache-hbase/fetch.sh"] if "apache-hbase" in servers else []
    changed = sorted(
        [
            "engine/core/src/main/java/org/heaplab/core/Region.java",
            "heaplab/run/runner.py",
            "playbooks/variant.yml",
            *hbase,
        ]
    )
    assert f"stale: {len(changed)} files it exercises changed since, in " in out[0]
    assert [line.strip() for line in out[1:-2]] == changed
    assert out[-2].startswith("release target (local series")
    assert out[-1].startswith("heaplab reference status: 1 of 1 series not made by this checkout's code, 0 ")


def test_a_stale_run_says_so_at_the_top_of_its_report(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = load_run(repo / SERIES)
    assert report_preface(repo, run) == []  # made by this code
    (repo / "playbooks/variant.yml").write_text("changed\n", encoding="utf-8")
    commit(repo, "a playbook changed")
    assert main(["--root", str(repo), "report", str(repo / SERIES)]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said[0].startswith("Made by older code. This run was made at commit ")  # printed as well
    report = (repo / SERIES / "report.md").read_text(encoding="utf-8").splitlines()
    made_at = run.manifest["git"]["commit"]
    assert report[0].startswith("# 03-offheap-write") and report[2].startswith(
        f"> **Made by older code.** This run was made at commit {made_at[:12]}; 1 file its lab exercises "
        "changed since, in playbooks (1). Its figures describe that code"
    )


def test_a_commit_outside_the_history_is_unknown(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((repo / SERIES / "run.json").read_text(encoding="utf-8"))
    manifest["git"]["commit"] = "f" * 40
    (repo / SERIES / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert staleness(repo, load_run(repo / SERIES)).describe() == (
        f"unknown: its commit {'f' * 12} is not in this checkout's history"
    )
    code, out = _status(repo, capsys)
    assert code == 1 and out[0].endswith(f"unknown: its commit {'f' * 12} is not in this checkout's history")


def test_no_series_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "reference", "status", "--dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.strip() == f"heaplab: error: no reference series in {tmp_path}"


def _samples(ticks_busy: int, server_s: float, client_s: float) -> str:
    """The /proc samples around single_put a run leaves (made up here: the ci fixture predates them): 10 s
    on 2 CPUs at 100 ticks a second, ``ticks_busy`` of its 2,000 ticks busy, the server's and the client's
    CPU seconds."""
    lines = []
    for at, t, busy, server, client in (
        ("before", 0.0, 0, 100.0, None),
        ("after", 10.0, ticks_busy, 100.0 + server_s, client_s),
    ):
        idle = 5000 + (2000 - ticks_busy if at == "after" else 0)
        ticks = [1000 + busy, 0, 0, idle, 0, 0, 0, 0]
        lines.append(
            {
                "phase": "single_put",
                "at": at,
                "unix_time": 1_790_000_000.0 + t,
                "pid": 4242,
                "server_cpu_s": server,
                "host_cpu_ticks": ticks,
                "clk_tck": 100,
                "cpus": 2,
                "client_cpu_s": client,
            }
        )
    return "".join(json.dumps(x) + "\n" for x in lines)


def test_a_series_measured_beside_other_work_is_no_reference(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Other work took 40% of the host during single_put (18 of 20 CPU seconds busy, the server 6 and the
    client 4): the series is named disturbed even though this checkout's code made it; 10% is an idle host."""
    samples = repo / SERIES / "hbase1-onheap/server/localhost/proc-cpu.jsonl"
    samples.parent.mkdir(parents=True, exist_ok=True)
    samples.write_text(_samples(1000, 6.0, 2.0), encoding="utf-8")  # 10 of 20 s busy, 2 s other: 10%
    code, out = _status(repo, capsys)
    assert code == 0 and out[0].endswith(": current") and not any("disturbed:" in line for line in out)
    samples.write_text(_samples(1800, 6.0, 4.0), encoding="utf-8")
    code, out = _status(repo, capsys)
    assert code == 1 and out[0].endswith(": current")
    run = SERIES.rsplit("/", 1)[1]
    assert out[1] == f"  disturbed: {run}: hbase1-onheap single_put on localhost: other work 40% of its CPUs"
    assert (
        "0 of 1 series not made by this checkout's code, 1 with a phase disturbed by other work;" in out[-1]
    )


def test_a_runs_cost_splits_the_phases_its_claims_judge_from_the_rest() -> None:
    """run_cost's minutes to the second: the judged phases (pe with `measure`) apart from the warm-up and the
    admin phases, the set-up as the rest; the oracle reads the client files on its own."""
    minutes, phases, measured = _cost_oracle(FIXTURE)
    cost = run_cost(FIXTURE)
    assert cost.minutes == pytest.approx(minutes, abs=1e-6)
    assert cost.workload == pytest.approx(phases, abs=1e-6)
    assert cost.measured == pytest.approx(measured, abs=1e-6)
    assert 0 < cost.measured < cost.workload < cost.minutes


def test_the_status_says_how_the_series_stand_against_the_release_target(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    minutes, _, _ = _cost_oracle(repo / SERIES)
    _, out = _status(repo, capsys)
    assert out[-2] == (
        "release target (local series, 2 cores: at most 240 minutes in all, 45 a lab): "
        f"{minutes:.0f} minutes in all; met"
    )
    # the same series, 50 minutes long: over a lab's share
    run_json = repo / SERIES / "run.json"
    manifest = json.loads(run_json.read_text(encoding="utf-8"))
    manifest.update(start="2027-01-01T00:00:00Z", end="2027-01-01T00:50:00Z")
    run_json.write_text(json.dumps(manifest), encoding="utf-8")
    _, out = _status(repo, capsys)
    assert out[-2].endswith(": 50 minutes in all; over 45: 03-offheap-write (50); not met"), out[-2]
    # six labs of 44 minutes: none over its share, 264 in all
    assert target_line({f"0{i}-lab": 44.0 for i in range(6)}).endswith(": 264 minutes in all; not met")


def test_a_judged_phase_is_told_from_a_phase_whose_name_extends_it(tmp_path: Path) -> None:
    """Client files are `<phase>-<host>.json`: a judged phase `read` must not claim `read-heavy-h.json`, the
    file of an unjudged phase `read-heavy`."""
    run = tmp_path / "run"
    (run / "v/client").mkdir(parents=True)
    (run / "run.json").write_text(
        json.dumps({"start": "2027-01-01T00:00:00Z", "end": "2027-01-01T00:10:00Z", "variants": {"v": {}}}),
        encoding="utf-8",
    )
    (run / "experiment.yml").write_text(
        "phases:\n  - {name: read, tool: pe, measure: x}\n  - {name: read-heavy, tool: pe}\n",
        encoding="utf-8",
    )
    for name, start_s, end_s in (("read-h.json", 0, 60), ("read-heavy-h.json", 60, 240)):
        (run / "v/client" / name).write_text(
            json.dumps({"start_epoch_ms": start_s * 1000, "end_epoch_ms": end_s * 1000}), encoding="utf-8"
        )
    cost = run_cost(run)
    assert cost.workload == pytest.approx(4.0)
    assert cost.measured == pytest.approx(1.0)
