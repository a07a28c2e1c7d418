"""`heaplab reference add --release TAG RUN...` (heaplab/report/release.py): a release's series goes into
results/reference/ in place of the lab's older one only when it is one complete series, made by a clean
checkout of the tag, with no phase disturbed by other work; anything else is refused with one line and
leaves results/reference/ as it was.

A throw-away git repository holds lab 03's experiment.yml, an older series (one run of another commit) and
an A/A run of the lab; the new series is three copies of the committed ci fixture run, relabelled `local`,
given one series id and pointed at the tagged commit.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from heaplab.cli import main
from heaplab.tests.conftest import REPO
from heaplab.tests.git_repo import git
from heaplab.tests.test_reference_status import _samples

FIXTURE = REPO / "results/reference/03-offheap-write-ci-fixture"
LAB = "03-offheap-write"
OLDER = f"{LAB}-local-20250101T000000Z"
AA = f"{LAB}-aa-hbase1-onheap-local-20250102T000000Z"
NEW = [f"{LAB}-local-20270101T00000{i}Z" for i in (1, 2, 3)]


def _run(path: Path, commit: str, **fields: Any) -> None:
    shutil.copytree(FIXTURE, path)
    manifest = json.loads((path / "run.json").read_text(encoding="utf-8"))
    manifest.update(scale="local", git={"commit": commit, "dirty": False}, **fields)
    (path / "run.json").write_text(json.dumps(manifest), encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> dict[str, Any]:
    """The repository (tag v9.9 on its first commit, the older series and the A/A run committed after it)
    and the new series' three runs, outside it as `heaplab run` left them."""
    root = tmp_path / "repo"
    (root / f"labs/{LAB}").mkdir(parents=True)
    shutil.copyfile(FIXTURE / "experiment.yml", root / f"labs/{LAB}/experiment.yml")
    shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
    shutil.copytree(REPO / "results/published", root / "results/published")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "the release")
    git(root, "tag", "v9.9")
    tagged = git(root, "rev-parse", "HEAD")
    reference = root / "results/reference"
    _run(reference / OLDER, "0" * 40, series={"id": f"{OLDER}-x1", "index": 1, "of": 1})
    _run(reference / AA, "0" * 40)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "older series")
    runs = tmp_path / "runs"
    for i, name in enumerate(NEW, start=1):
        _run(runs / name, tagged, series={"id": f"{NEW[0]}-x3", "index": i, "of": 3})
    (runs / NEW[-1] / "claims.json").write_text("{}\n", encoding="utf-8")
    return {"root": root, "runs": [runs / name for name in NEW], "reference": reference, "tagged": tagged}


def _add(root: Path, runs: list[Path], capsys: pytest.CaptureFixture[str], tag: str = "v9.9") -> tuple:
    code = main(["--root", str(root), "reference", "add", "--release", tag, *map(str, runs)])
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err.strip()


def _listing(reference: Path) -> list[str]:
    return sorted(p.name for p in reference.iterdir())


def test_a_release_series_replaces_the_older_one(
    repo: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    root, reference = repo["root"], repo["reference"]
    code, out, err = _add(root, repo["runs"], capsys)
    assert code == 0, err
    assert out[0] == f"added {LAB} at local, made by v9.9: {', '.join(NEW)}"
    assert out[1] == f"removed its older runs: {OLDER}"
    assert _listing(reference) == sorted([AA, *NEW])  # the A/A run is no series: it stays
    for name in NEW:  # copied whole: the same files, byte for byte
        copied = sorted(p.relative_to(reference / name) for p in (reference / name).rglob("*"))
        made = sorted(
            p.relative_to(repo["runs"][0].parent / name) for p in (repo["runs"][0].parent / name).rglob("*")
        )
        assert copied == made
    assert (reference / NEW[-1] / "claims.json").read_text(encoding="utf-8") == "{}\n"
    # the release is recorded for clones without tags, once
    releases = (root / "results/releases.tsv").read_text(encoding="utf-8").splitlines()
    assert releases[1:] == [f"v9.9\t{repo['tagged']}"]

    # the tag's commit made every run of the series: status calls it current
    code = main(["--root", str(root), "reference", "status"])
    status = capsys.readouterr().out.splitlines()
    assert status[0].startswith(f"{LAB} (local, 3 runs, commit ") and status[0].endswith(": current")

    # adding the same series again changes nothing
    code, out, _ = _add(root, repo["runs"], capsys)
    assert code == 0 and out[1] == "removed its older runs: none"
    assert _listing(reference) == sorted([AA, *NEW])
    assert (root / "results/releases.tsv").read_text(encoding="utf-8").splitlines()[1:] == releases[1:]


def test_a_tag_that_moved_is_refused(repo: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    (repo["root"] / "results/releases.tsv").write_text(f"v9.9\t{'f' * 40}\n", encoding="utf-8")
    code, _, err = _add(repo["root"], repo["runs"], capsys)
    assert code == 2
    assert err.startswith("heaplab: error: results/releases.tsv gives v9.9 commit ffffffffffff, but the tag")
    assert _listing(repo["reference"]) == sorted([AA, OLDER])


def _edit(run: Path, **fields: Any) -> None:
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    manifest.update(fields)
    (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")


def _disturb(run: Path) -> None:
    samples = run / "hbase1-onheap/server/localhost/proc-cpu.jsonl"
    samples.parent.mkdir(parents=True, exist_ok=True)
    samples.write_text(_samples(1800, 6.0, 4.0), encoding="utf-8")  # other work: 40% of the host


Plant = Callable[[list[Path]], list[Path]]
REFUSED: dict[str, tuple[Plant, str]] = {
    "another commit": (
        lambda runs: (_edit(runs[1], git={"commit": "e" * 40, "dirty": False}), runs)[1],
        f"{NEW[1]} was made by eeeeeeeeeeee, not by v9.9 (",
    ),
    "a checkout with changes": (
        lambda runs: (
            _edit(runs[0], git={**json.loads((runs[0] / "run.json").read_text())["git"], "dirty": True}),
            runs,
        )[1],
        f"{NEW[0]} was made by a checkout of v9.9 with changes",
    ),
    "an interrupted run": (
        lambda runs: (_edit(runs[2], status="interrupted"), runs)[1],
        f"{NEW[2]} is interrupted, not complete",
    ),
    "a run left out": (lambda runs: runs[:2], "has 3 runs; these are its runs [1, 2]: give them all"),
    "two series": (
        lambda runs: (_edit(runs[2], series={"id": "other-x3", "index": 3, "of": 3}), runs)[1],
        "the runs belong to 2 series",
    ),
    "no report": (
        lambda runs: ((runs[2] / "claims.json").unlink(), runs)[1],
        f"{NEW[2]}, the series' last run, has no claims.json",
    ),
    "a disturbed phase": (
        lambda runs: (_disturb(runs[1]), runs)[1],
        f"{NEW[1]}: other work shared the machine in hbase1-onheap single_put on localhost: other work 40% "
        "of its CPUs",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_is_no_release_series_is_refused(
    case: str, repo: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    plant, reason = REFUSED[case]
    before = _listing(repo["reference"])
    code, out, err = _add(repo["root"], plant(repo["runs"]), capsys)
    assert code == 2 and out == []
    assert err.startswith("heaplab: error: ") and reason in err and "\n" not in err, err
    assert _listing(repo["reference"]) == before


def test_an_unknown_tag_is_refused(repo: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _add(repo["root"], repo["runs"], capsys, tag="v0.0")
    assert (
        code == 2
        and err == f"heaplab: error: no release tag 'v0.0' in {repo['root']} (git tag lists the releases)"
    )
    assert _listing(repo["reference"]) == sorted([AA, OLDER])
