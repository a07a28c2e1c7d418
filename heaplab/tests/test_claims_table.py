"""heaplab.report.claims_table: the figures a handout's "What we measured" shows are generated from the
series' claims.json, and a figure edited by hand fails `heaplab verdicts --check`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.report import claims_table
from heaplab.runfiles.rundir import RunError
from heaplab.tests.conftest import REPO

RATIO = {
    "kind": "article",
    "subject": "engine",
    "subject_name": "engine",
    "experiment": "single_put",
    "metric": "latency_p999",
    "unit": "ms",
    "figure": "P999 45 ms -> 5 ms: 0.11x",
    "measured": {"hbase2-offheap": 18.9377, "hbase1-onheap": 16.6603},
    "ratio": 1.1143,
    "mean": 1.1143,
    "low": 0.53888,
    "high": 2.3042,
    "verdict": "inconclusive",
}
VALUE = {
    "kind": "inference",
    "subject": "engine",
    "subject_name": "engine",
    "experiment": "single_put",
    "metric": "throughput",
    "unit": "ops/s",
    "figure": "at least 20000 puts/s",
    "measured": {"hbase1-onheap": 24674.2},
    "ratio": None,
    "mean": 24674.2,
    "low": 21000.4,
    "high": 28000.9,
    "verdict": "reproduced",
}
ABSENT = {
    "kind": "check",
    "subject": "apache-hbase",
    "subject_name": "Apache HBase 2.6.4",
    "experiment": "batch_put",
    "metric": "heap_copy_bytes_per_op",
    "unit": "B/op",
    "figure": "0.5x | one copy",
    "measured": {},
    "ratio": None,
    "mean": None,
    "verdict": "not measurable here",
}
CLAIMS = {"p999-drop": RATIO, "tps": VALUE, "copies@apache-hbase": ABSENT}


def _run(parent: Path, lab: str, stamp: str, claims: dict) -> Path:
    path = parent / f"{lab}-local-{stamp}"
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"lab": lab, "scale": "local", "status": "complete"}))
    data = {"format": 3, "lab": lab, "run": path.name, "runs": [path.name, "a", "b"], "claims": claims}
    (path / "claims.json").write_text(json.dumps(data))
    return path


def test_each_variant_has_its_mean_per_metric_and_each_claim_its_interval() -> None:
    means = claims_table.means_tables(CLAIMS)
    assert means.startswith("**single_put**\n\n| variant | latency_p999 (ms) | throughput (ops/s) |")
    assert "| hbase2-offheap | 18.9 | - |" in means  # no throughput claim on it
    assert "| hbase1-onheap | 16.7 | 24,674 |" in means
    assert "batch_put" not in means  # a claim that measured nothing adds no table
    rows = claims_table.claims_lines(CLAIMS).splitlines()
    assert rows[2] == (
        "| p999-drop | article | engine | P999 45 ms -> 5 ms: 0.11x | 1.11x [0.539, 2.3] | **inconclusive** |"
    )
    assert rows[3] == (
        "| tps | inference | engine | at least 20000 puts/s | 24,674 ops/s [21,000, 28,001] "
        "| **reproduced** |"
    )
    assert rows[4].endswith("| Apache HBase 2.6.4 | 0.5x / one copy | - | **not measurable here** |")


def test_a_region_is_filled_from_the_newest_run_and_a_hand_edit_fails_the_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    _run(runs, "03-offheap-write", "20261101T000000Z", {"p999-drop": {**RATIO, "mean": 9.0}})
    newest = _run(runs, "03-offheap-write", "20261102T000000Z", CLAIMS)
    timed = {"start": "2026-11-02T00:00:00Z", "end": "2026-11-02T00:12:40Z", "git": {"commit": "abcdef0" * 5}}
    manifest = json.loads((newest / "run.json").read_text())
    (newest / "run.json").write_text(json.dumps({**manifest, **timed}))
    doc = tmp_path / "README.md"
    region = f"{claims_table.marker('runs', '03-offheap-write')}\n{claims_table.END}\n"
    doc.write_text(f"# Lab\n\n{region}\nAfter.\n")
    root = ["--root", str(tmp_path)]
    assert main([*root, "verdicts", "--write", "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert f"From the claims.json of `{newest.name}`, judged over its series of 3 run(s)" in text
    # the series named, with the minutes and commit of the runs found (a and b are not here; no git here)
    assert (
        f"The series: `{newest.name}`, `a` and `b` (13 minutes in all), made by commit abcdef0 (no release)."
        in text
    )
    assert "1.11x [0.539, 2.3]" in text and "9x" not in text  # the older run is not read
    assert text.endswith(f"{claims_table.END}\n\nAfter.\n")
    assert main([*root, "verdicts", "--check", "--doc", str(doc)]) == 0
    doc.write_text(text.replace("| hbase1-onheap | 16.7 |", "| hbase1-onheap | 12.0 |"))
    capsys.readouterr()
    assert main([*root, "verdicts", "--check", "--doc", str(doc)]) == 1
    assert "-| hbase1-onheap | 12.0 |" in capsys.readouterr().out


def test_a_region_without_runs_or_with_a_bad_marker_says_where(tmp_path: Path) -> None:
    doc = f"{claims_table.marker('runs', '03-offheap-write')}\n{claims_table.END}\n"
    with pytest.raises(RunError, match=r"here:1: no run of 03-offheap-write"):
        claims_table.regenerate(tmp_path, doc, "here")
    with pytest.raises(RunError, match="a marker must read"):
        claims_table.regenerate(tmp_path, f"{claims_table.BEGIN} lab=x -->\n{claims_table.END}\n", "here")


def test_every_handout_with_a_committed_series_generates_its_figures() -> None:
    """No figure of a series typed into a handout: each lab with a series under results/reference/ shows it
    through a generated claims region (checked against the series by `heaplab verdicts --check`)."""
    labs = {
        json.loads(p.read_text(encoding="utf-8"))["lab"]
        for p in REPO.glob("results/reference/*-local-*/run.json")
    }
    assert len(labs) == 11
    for lab in sorted(labs):
        text = (REPO / "labs" / lab / "README.md").read_text(encoding="utf-8")
        assert claims_table.marker("results/reference", lab) in text, lab
