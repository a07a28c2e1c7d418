"""`heaplab report` on the fixture: what it writes, what it leaves alone; its table is the raw data."""

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from heaplab.cli import main
from heaplab.judge.comparison import COLUMNS
from heaplab.tests.fabricate import Shape

OUTPUTS = {"report.md", "claims.json", "figures/claims-forest.png"}


def _tree(run: Path) -> dict[str, str]:
    return {
        str(p.relative_to(run)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(run.rglob("*"))
        if p.is_file()
    }


def _table_rows(report: str, experiment: str) -> dict[tuple[str, str], list[str]]:
    section = report.split(f"## {experiment}", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 2 + len(COLUMNS) and cells[0] != "variant":
            rows[(cells[0], cells[1].split(" (")[0])] = cells[2:]
    return rows


def test_report_writes_only_its_outputs(fixture_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _tree(fixture_run)
    assert main(["report", str(fixture_run)]) == 0
    # the path of the report, after one line when this checkout's code is newer than the run's
    # (heaplab.run.staleness: the fixture was made at an older commit)
    *said, path = capsys.readouterr().out.strip().splitlines()
    assert path == str(fixture_run / "report.md")
    assert len(said) <= 1 and all(
        line.startswith("Made by older code. This run was made at") for line in said
    )
    after = _tree(fixture_run)
    new = set(after) - set(before)
    reproduced = yaml.safe_load((fixture_run / "experiment.yml").read_text())["reproduces"]
    figures = {f"figures/{r['experiment']}-latency.png" for r in reproduced}
    figures |= {f"figures/timeline-{r['experiment']}.png" for r in reproduced}
    assert new == OUTPUTS | figures
    assert {k: v for k, v in after.items() if k in before} == before
    assert (fixture_run / "figures/single_put-latency.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_table_matches_summary_and_unavailable_row_has_no_numbers(fixture_run: Path) -> None:
    assert main(["report", str(fixture_run)]) == 0
    report = (fixture_run / "report.md").read_text()
    rows = _table_rows(report, "single_put")
    raw = json.loads((fixture_run / "hbase1-onheap/client/single_put-localhost.json").read_text())
    measured = rows[("hbase1-onheap", "this run")]
    labels = [label for _, label in COLUMNS]
    for label, key in (
        ("AVG", "mean"),
        ("95%", "p95"),
        ("99%", "p99"),
        ("99.9%", "p999"),
        ("MAX (ms)", "max"),
    ):
        shown = float(measured[labels.index(label)])
        ms = raw["latency_us"][key] / 1000
        assert abs(shown - ms) <= 0.006 * ms + 0.006, (label, shown, ms)
    assert float(measured[labels.index("TPS")]) == round(raw["throughput"])
    offheap = rows[("hbase2-offheap", "this run")]
    assert offheap[0].startswith("not yet available: ")
    assert not any(re.search(r"\d", c) for c in offheap[1:])
    assert ("hbase2-offheap", "article") in rows  # the article's row stays
    assert "8-core" in report and "`ci` scale" in report


def test_report_metadata_and_claims_json(fixture_run: Path) -> None:
    assert main(["report", str(fixture_run)]) == 0
    report = (fixture_run / "report.md").read_text()
    manifest = json.loads((fixture_run / "run.json").read_text())
    assert manifest["git"]["commit"] in report
    assert manifest["jdk"] in report
    assert manifest["hosts"][0]["cpu_model"] in report
    disk = manifest["hosts"][0]["disk"]
    assert f"{disk['device']} {disk['type']}" in report and "{'" not in report  # no raw dicts
    for flags in manifest["variants"]["hbase1-onheap"]["server_jvm_flags"]:
        assert flags in report
    claims = json.loads((fixture_run / "claims.json").read_text())
    assert claims["format"] == 3 and claims["lab"] == "03-offheap-write"
    assert claims["runs"] == [fixture_run.name]
    tallied = sum(
        n for kinds in claims["counts"].values() for levels in kinds.values() for n in levels.values()
    )
    assert tallied == len(claims["claims"])
    for cid, c in claims["claims"].items():
        keys = {
            "kind",
            "experiment",
            "metric",
            "expect",
            "figure",
            "source",
            "article",
            "measured",
            "verdict",
        }
        judged = {"why", "n", "per_run", "quantity", "low", "high", "band", "rule", "region", "no_effect"}
        assert keys | judged | {"subject", "subject_name", "doc", "decided", "indicative"} <= c.keys()
        assert c["subject_name"] == "engine" and c["doc"] == "000"
        assert f"| {cid} |" in report and c["verdict"] in report


def test_report_judges_named_runs_together(make_pair: Callable[..., Path]) -> None:
    """`heaplab report RUN RUN RUN`: one verdict over three runs, each run's values kept."""
    runs = [
        make_pair(Shape(), Shape(young_gcs=1), name=f"runs/03-offheap-write-ci-2026010{i}T000000Z")
        for i in (1, 2, 3)
    ]
    assert main(["report", str(runs[0]), str(runs[1]), str(runs[2])]) == 0
    claims = json.loads((runs[0] / "claims.json").read_text())
    assert claims["runs"] == [r.name for r in runs]
    judged = [c for c in claims["claims"].values() if c["n"]]
    assert judged and all(c["n"] == 3 and len(c["per_run"]) == 3 for c in judged)
    assert all("over 3 runs" in c["band"] for c in judged)
    assert "Judged over 3 run(s)" in (runs[0] / "report.md").read_text()


def test_report_finds_the_series_of_a_run(make_pair: Callable[..., Path]) -> None:
    """A run of `--repeat N` is judged with the complete runs of its series beside it."""
    runs = [make_pair(Shape(), Shape(), name=f"runs/03-offheap-write-ci-2026020{i}T000000Z") for i in (1, 2)]
    other = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20260203T000000Z")
    for i, run in enumerate(runs, 1):
        manifest = json.loads((run / "run.json").read_text())
        manifest["series"] = {"id": "s1", "index": i, "of": 2}
        (run / "run.json").write_text(json.dumps(manifest))
    assert main(["report", str(runs[1])]) == 0
    claims = json.loads((runs[1] / "claims.json").read_text())
    assert claims["runs"] == [runs[1].name, runs[0].name] and other.name not in claims["runs"]


def test_report_latest_picks_newest_run(make_pair: Callable[..., Path], tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    old = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20260101T000000Z")
    new = make_pair(Shape(), Shape(), name="runs/03-offheap-write-ci-20261231T000000Z")
    assert main(["report", "latest", "--runs-dir", str(runs)]) == 0
    assert (new / "report.md").is_file() and not (old / "report.md").exists()


def test_report_on_a_non_run_fails_cleanly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a run directory" in err


def test_an_experiment_without_an_article_names_its_peer_and_no_article_scale(tmp_path: Path) -> None:
    """Lab 11 measures the engine against Apache HBase, which no article did: its sections must not tell the
    student that "the article ran on 8-core nodes". data/lab11-ci-run is a real ci run of lab 11."""
    run = tmp_path / "lab11-ci-run"
    shutil.copytree(Path(__file__).parent / "data" / "lab11-ci-run", run)
    assert main(["report", str(run)]) == 0
    report = (run / "report.md").read_text(encoding="utf-8")
    assert "## pe_single_put (no article: Apache HBase 2.6 is the peer)" in report
    assert "No article measured this" in report
    assert "The article ran on" not in report
