"""The verdict tables of results/reference/README.md, docs/coverage.md and the handouts are generated
(`heaplab verdicts --write`, heaplab/report/verdict_table.py): the committed ones are what the committed runs
give, a hand-edited count fails `heaplab verdicts --check` naming the file, and the tables count each kind
of claim apart (claims.json format 3), so that a mechanism check or a peer target never counts as a
reproduction and a claim judged on Apache HBase lands in that subject's row.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from heaplab.cli import main
from heaplab.report.verdict_table import (
    BEGIN,
    END,
    FORMAT,
    LEVELS_BY_KIND,
    check,
    documents,
    marker,
    runs_of,
    tally,
    to_markdown,
    write,
)
from heaplab.runfiles.rundir import RunError
from heaplab.tests.conftest import REPO

OFFHEAP = "HBase 2.0 end-to-end off-heap"
HYPERTABLE = "Hypertable in practice"


def _claim(kind: str, verdict: str, doc: str | None = "000", subject: str = "engine") -> dict:
    name = "engine" if subject == "engine" else "Apache HBase 2.6.4"
    return {"kind": kind, "subject": subject, "subject_name": name, "doc": doc, "verdict": verdict}


def _run(parent: Path, lab: str, stamp: str, claims: dict[str, dict]) -> Path:
    """A run directory as `heaplab report` leaves it, as far as the tables read it (format 3)."""
    path = parent / f"{lab}-local-{stamp}"
    path.mkdir(parents=True)
    (path / "run.json").write_text(json.dumps({"lab": lab, "scale": "local", "status": "complete"}))
    data = {"format": 3, "lab": lab, "scale": "local", "run": path.name, "claims": claims}
    (path / "claims.json").write_text(json.dumps(data))
    return path


# --- the committed tables -------------------------------------------------------------------------


def test_the_committed_tables_are_what_heaplab_verdicts_counts(capsys: pytest.CaptureFixture[str]) -> None:
    docs = documents(REPO)
    names = {p.relative_to(REPO).as_posix() for p in docs}
    assert {"results/reference/README.md", "docs/coverage.md"} <= names
    handouts = {
        p.parent.name
        for p in (REPO / "labs").glob("*/README.md")
        if "What we measured" in p.read_text(encoding="utf-8")
    }
    assert {f"labs/{lab}/README.md" for lab in handouts} <= names
    for doc in docs:  # a handout counts its own lab's series, the others every lab's last run
        labs = {run.name.split("-local-")[0] for run in runs_of(REPO, doc)}
        if doc.parent.parent == REPO / "labs":
            assert labs == {doc.parent.name}, doc
        else:
            assert len(labs) >= 11, doc
    every = [run for doc in docs for run in runs_of(REPO, doc)]
    # the tables count the kinds apart only when the runs were judged so: format 3 (check and peer
    # claims, subject names, each claim's doc)
    stale = sorted(
        {run.name for run in every if json.loads((run / "claims.json").read_text()).get("format", 1) < FORMAT}
    )
    assert not stale, (
        f"judged before claims.json format {FORMAT}: {', '.join(stale)}; re-judge each series "
        "(heaplab report <its last run> <its other runs>), then heaplab verdicts --write"
    )
    assert main(["--root", str(REPO), "verdicts", "--check"]) == 0, capsys.readouterr().out


def test_a_hand_edited_count_fails_the_check_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "README.md"
    copy.write_text((REPO / "results" / "reference" / "README.md").read_text(encoding="utf-8"))
    root = ["--root", str(REPO)]
    assert main([*root, "verdicts", "--write", "--doc", str(copy)]) == 0  # the tables as the runs give them
    assert main([*root, "verdicts", "--check", "--doc", str(copy)]) == 0
    capsys.readouterr()
    text = copy.read_text()
    region = text[text.index(BEGIN) : text.index(END)]
    row = re.search(r"^\| [^|\n]+ \| [^|\n]+ \|(?: \d+ \|)+$", region, re.M)
    assert row, "the region has a table row of counts"
    edited = re.sub(r"\| (\d+) \|$", lambda m: f"| {int(m.group(1)) + 1} |", row.group(0))
    copy.write_text(text.replace(row.group(0), edited, 1))
    assert main([*root, "verdicts", "--check", "--doc", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"{copy}: a generated verdict table differs from its runs" in out
    assert f"\n-{edited}\n" in out and f"\n+{row.group(0)}\n" in out  # the diff shows the edit
    assert "1 of 1 file(s) differ" in out
    assert check(REPO, [copy])[0].startswith(str(copy))


# --- the tables, on claims.json files made here ----------------------------------------------------


def test_a_check_or_a_peer_target_is_never_counted_as_reproduced(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        "03-offheap-write",
        "20260101T000000Z",
        {
            "p999-drop": _claim("article", "reproduced"),
            "alloc-per-put": _claim("inference", "smaller than the article"),
            "no-heap-copy": _claim("check", "passed"),
            "copies-counted": _claim("check", "failed"),
            "race": _claim("peer", "met", doc=None),
        },
    )
    tables = tally([run])
    assert list(tables) == ["article", "inference", "check", "peer"]
    reproduced = sum(row["reproduced"] for t in tables.values() for row in t.rows.values())
    assert reproduced == 1  # the article's figure, nothing else
    assert tables["check"].levels == LEVELS_BY_KIND["check"] and "reproduced" not in tables["check"].levels
    assert tables["check"].rows[(OFFHEAP, "engine")] == {"passed": 1, "failed": 1}
    assert tables["peer"].rows[("03-offheap-write", "engine")] == {"met": 1}  # a lab's, no article's
    text = to_markdown(tables)
    checks = text.split("**Mechanism checks")[1].split("**Peer targets")[0]
    assert "| article | subject | passed | failed | inconclusive | not measurable here | claims |" in checks
    assert f"| {OFFHEAP} | engine | 1 | 1 | 0 | 0 | 2 |" in checks and "reproduced" not in checks
    assert "| 03-offheap-write | engine | 1 | 0 | 0 | 0 | 1 |" in text.split("**Peer targets")[1]


def test_a_check_judged_with_an_articles_level_is_refused(tmp_path: Path) -> None:
    run = _run(tmp_path, "03-offheap-write", "20260101T000000Z", {"x": _claim("check", "reproduced")})
    with pytest.raises(RunError, match="claim x \\(check\\) has verdict 'reproduced', not one of passed"):
        tally([run])


def test_a_claim_on_apache_hbase_lands_in_that_subjects_row(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        "04-offheap-read",
        "20260101T000000Z",
        {
            "mixed-p999": _claim("article", "smaller than the article"),
            "mixed-p999@apache-hbase": _claim("article", "reproduced", subject="apache-hbase"),
            "no-cms@apache-hbase": _claim("article", "opposite", subject="apache-hbase"),
        },
    )
    table = tally([run])["article"]
    assert table.rows[(OFFHEAP, "engine")] == {"smaller than the article": 1}
    assert table.rows[(OFFHEAP, "apache-hbase")] == {"reproduced": 1, "opposite": 1}
    lines = to_markdown({"article": table}).splitlines()
    engine = next(x for x in lines if x.startswith(f"| {OFFHEAP} | engine |"))
    hbase = next(x for x in lines if x.startswith(f"| {OFFHEAP} | Apache HBase 2.6.4 |"))
    assert lines.index(engine) < lines.index(hbase)  # the engine's row first
    # reproduced, smaller, larger, no effect, opposite, not reproduced, inconclusive, not measurable, claims
    assert hbase == f"| {OFFHEAP} | Apache HBase 2.6.4 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 2 |"
    assert engine == f"| {OFFHEAP} | engine | 0 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 1 |"


def test_a_claim_counts_under_its_doc_and_the_newest_claims_json_of_a_lab_counts(tmp_path: Path) -> None:
    old = _run(tmp_path, "08-memstore-memory", "20260101T000000Z", {"a": _claim("article", "opposite")})
    new = _run(
        tmp_path,
        "08-memstore-memory",
        "20260102T000000Z",
        {"a": _claim("article", "reproduced", doc="004"), "b": _claim("inference", "no effect", doc="000")},
    )
    tables = tally([new, old])
    assert tables["article"].rows == {(HYPERTABLE, "engine"): {"reproduced": 1}}
    assert tables["inference"].rows == {(OFFHEAP, "engine"): {"no effect": 1}}


def test_a_region_is_written_checked_and_names_its_runs(tmp_path: Path) -> None:
    reference = tmp_path / "results" / "reference"
    _run(reference, "01-tail-latency", "20260101T000000Z", {"a": _claim("article", "opposite")})
    last = _run(reference, "01-tail-latency", "20260102T000000Z", {"a": _claim("article", "reproduced")})
    _run(reference, "05-netty-rpc", "20260102T000000Z", {"b": _claim("article", "no effect", doc="002")})
    handout = tmp_path / "labs" / "01-tail-latency" / "README.md"
    handout.parent.mkdir(parents=True)
    handout.write_text(
        f"# Lab 01\n\nProse.\n\n{marker('results/reference', '01-tail-latency')}\n{END}\n\nMore.\n"
    )
    assert documents(tmp_path) == [handout]
    assert runs_of(tmp_path, handout) == [last]
    assert check(tmp_path, [handout])  # the empty region differs from what the run gives
    assert write(tmp_path, [handout]) == [handout] and check(tmp_path, [handout]) == []
    text = handout.read_text()
    assert text.startswith("# Lab 01\n\nProse.\n\n") and text.endswith(f"\n{END}\n\nMore.\n")
    assert f"`{last.name}`" in text and f"| {OFFHEAP} | engine | 1 | 0 |" in text and "netty" not in text
    assert write(tmp_path, [handout]) == []  # nothing to do twice


def test_a_broken_marker_is_one_clear_error(tmp_path: Path) -> None:
    doc = tmp_path / "docs" / "x.md"
    doc.parent.mkdir()
    doc.write_text(f"{marker('results/reference')}\nno end\n")
    with pytest.raises(RunError, match=r"docs/x\.md:1: the region has no"):
        check(tmp_path, [doc])
    doc.write_text(marker("results/reference").replace("runs=", "run=") + f"\n{END}\n")
    with pytest.raises(RunError, match=r"docs/x\.md:1: the marker takes runs=DIR and lab=LAB, not 'run="):
        check(tmp_path, [doc])
