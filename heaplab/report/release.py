"""A release's reference series: `heaplab reference add --release TAG RUN...` checks that the runs are one
complete, undisturbed series made by a clean checkout of the tag, then puts them in results/reference/ in
place of the lab's older series at that scale (older series stay in the git history).

It refuses, naming the first reason, a set of runs that is not exactly one series (one lab, one scale, one
series id, every index from 1 to its length), a run that did not complete, a run made by another commit
or by a checkout with changes, a phase that shared the machine with other work
(heaplab.analysis.proc_cpu.disturbed_phases), and a series whose last run has no report (`--report`).

A release is also written into results/releases.tsv (tag, commit), because a clone need not carry the
tags: the generated tables name a series' release from that file, so they read the same in every clone.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from heaplab.analysis.proc_cpu import disturbed_phases
from heaplab.lab.schema import SpecError
from heaplab.runfiles.rundir import Run, RunError, is_aa_run_name, load_run


@dataclass(frozen=True)
class Added:
    """What `add_series` did: the runs it copied in and the older runs it removed (directory names)."""

    lab: str
    scale: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


RELEASES = Path("results/releases.tsv")
_RELEASES_HEAD = "# tag\tcommit (written by `heaplab reference add --release TAG`)\n"


def recorded_releases(root: Path) -> dict[str, str]:
    """{full commit: tag} from ``root``/results/releases.tsv (empty if there is none)."""
    path = root / RELEASES
    if not path.is_file():
        return {}
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            tag, commit = line.split("\t")[:2]
            found[commit] = tag
    return found


def record_release(root: Path, tag: str, commit: str) -> None:
    """Adds ``tag commit`` to results/releases.tsv; refuses a tag the file gives another commit."""
    recorded = recorded_releases(root)
    for known_commit, known_tag in recorded.items():
        if known_tag == tag and known_commit != commit:
            raise SpecError(
                f"{RELEASES} gives {tag} commit {known_commit[:12]}, but the tag names {commit[:12]}: "
                "a release's tag never moves"
            )
    if commit in recorded:
        return
    path = root / RELEASES
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text(encoding="utf-8") if path.is_file() else _RELEASES_HEAD
    path.write_text(f"{text}{tag}\t{commit}\n", encoding="utf-8")


def release_commit(root: Path, tag: str) -> str:
    """The full commit the tag names in ``root``'s history."""
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"refs/tags/{tag}^{{commit}}"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SpecError(f"no release tag {tag!r} in {root} (git tag lists the releases)")
    return done.stdout.strip()


def check_series(runs: list[Run], commit: str, tag: str) -> None:
    """Raises SpecError naming the first reason ``runs`` are not one reference series of the release."""
    if not runs:
        raise SpecError("give the runs of one series")
    first = runs[0]
    for run in runs:
        if (run.lab, run.scale) != (first.lab, first.scale):
            raise SpecError(
                f"{run.path.name} is {run.lab} at {run.scale}, not {first.lab} at {first.scale}: "
                "give one series at a time"
            )
    if first.scale == "ci":
        raise SpecError("ci runs are the test suite's fixtures, not a reference series")
    if any(is_aa_run_name(run.lab, run.path.name) for run in runs):
        raise SpecError("an A/A run calibrates the verdict rule (results/calibration): no reference series")
    series = [run.manifest.get("series") or {} for run in runs]
    ids = {s.get("id") for s in series}
    if len(ids) != 1 or None in ids:
        named = ", ".join(sorted(map(str, ids)))
        raise SpecError(f"the runs belong to {len(ids)} series ({named}): give one")
    length = series[0].get("of")
    indices = sorted(s.get("index") for s in series)
    if indices != list(range(1, len(runs) + 1)) or length != len(runs):
        raise SpecError(f"series {ids.pop()} has {length} runs; these are its runs {indices}: give them all")
    for run in runs:
        _check_run(run, commit, tag)
    last = max(runs, key=lambda r: r.manifest["series"]["index"])
    if not (last.path / "claims.json").is_file():
        raise SpecError(f"{last.path.name}, the series' last run, has no claims.json: `heaplab report` it")


def _check_run(run: Run, commit: str, tag: str) -> None:
    name = run.path.name
    if run.manifest.get("status") != "complete":
        raise SpecError(f"{name} is {run.manifest.get('status')}, not complete")
    git = run.manifest.get("git") or {}
    if git.get("commit") != commit:
        made = (git.get("commit") or "no commit")[:12]
        raise SpecError(f"{name} was made by {made}, not by {tag} ({commit[:12]})")
    if git.get("dirty"):
        raise SpecError(f"{name} was made by a checkout of {tag} with changes: not the release's code")
    shared = disturbed_phases(run)
    if shared:
        more = f" (and {len(shared) - 1} more phases)" if len(shared) > 1 else ""
        raise SpecError(f"{name}: other work shared the machine in {shared[0]}{more}")


def add_series(root: Path, reference: Path, tag: str, run_dirs: list[Path]) -> Added:
    """Checks the runs (check_series), removes the lab's older runs at that scale from ``reference`` and
    copies the new ones in (each under a temporary name first, so a crash leaves no half-copied run)."""
    try:
        runs = [load_run(path) for path in run_dirs]
    except RunError as e:
        raise SpecError(str(e)) from e
    commit = release_commit(root, tag)
    check_series(runs, commit, tag)
    record_release(root, tag, commit)
    lab, scale = runs[0].lab, runs[0].scale
    new = {run.path.name for run in runs}
    runs_there = sorted(reference.glob(f"{lab}-{scale}-*/run.json"))  # an A/A run's name is <lab>-aa-...
    older = [p.parent for p in runs_there if p.parent.name not in new]
    for run in runs:
        target = reference / run.path.name
        if target.exists():
            continue  # added before (a second `add` of the same series changes nothing)
        partial = reference / f".{run.path.name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(run.path, partial, symlinks=True)
        partial.rename(target)
    for path in older:
        shutil.rmtree(path)
    return Added(lab, scale, tuple(sorted(new)), tuple(p.name for p in older))
