"""Whether a run was made by the code this checkout holds: the files its lab exercises that changed between
the run's commit (run.json's git.commit) and HEAD, for `heaplab reference status` and the opening lines of a
report made from an older run.

What a lab exercises is what makes its runs: the engine's code and launchers (not its JMH benchmarks), the
playbooks, heaplab's lab and run stages (the spec's reading, the runner), the lab's experiment.yml, and,
for a lab with Apache HBase variants, infra/apache-hbase. Not the tests, the docs, nor heaplab's analysis,
verdicts and reports: those read the run's raw files again at every report, so a change there changes no
run.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from heaplab.runfiles.rundir import Run

ENGINE_AND_RUNNER = (
    ":(glob)engine/*/src/main/**",
    ":(exclude)engine/bench",  # the JMH microbenchmarks: no lab's run starts them
    ":(glob)engine/**/pom.xml",
    "engine/dist/src",
    "playbooks",
    ":(exclude,glob)playbooks/tests/**",
    "heaplab/lab",
    "heaplab/run",
)
APACHE_HBASE = (":(glob)infra/apache-hbase/**", ":(exclude,glob)infra/apache-hbase/target/**")
GROUPED = ("engine", "heaplab", "labs", "infra")  # a changed file is counted under its first two folders


@dataclass(frozen=True)
class Staleness:
    """A run's commit against HEAD: ``changed`` the files its lab exercises that differ (empty: current);
    ``why`` when that cannot be told (no commit recorded, not a git checkout, a commit not in its history)."""

    commit: str | None
    changed: tuple[str, ...] = ()
    why: str | None = None

    @property
    def stale(self) -> bool:
        return bool(self.changed)

    def describe(self) -> str:
        """One line: 'current', 'unknown: <why>', or 'stale: N files it exercises changed since, in
        engine/core (40), playbooks (7), ...' (the files by folder, most first)."""
        if self.why:
            return f"unknown: {self.why}"
        if not self.changed:
            return "current"
        return f"stale: {self.count()} it exercises changed since, in {self.where()}"

    def count(self) -> str:
        return f"{len(self.changed)} file{'s' if len(self.changed) != 1 else ''}"

    def where(self) -> str:
        """The changed files by folder, most first: 'engine/core (40), playbooks (7)'."""
        folders = Counter(_folder(path) for path in self.changed)
        return ", ".join(f"{folder} ({n})" for folder, n in folders.most_common())


def _folder(path: str) -> str:
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] in GROUPED and len(parts) > 2 else parts[0]


def exercised_paths(lab: str, servers: set[str]) -> list[str]:
    """The git pathspecs of what makes ``lab``'s runs (the module docstring), HBase's where it ran."""
    paths = [*ENGINE_AND_RUNNER, f"labs/{lab}/experiment.yml"]
    return paths + list(APACHE_HBASE) if "apache-hbase" in servers else paths


def staleness(root: Path, run: Run) -> Staleness:
    """The files the run's lab exercises that changed from the run's commit to ``root``'s HEAD (its
    servers from the experiment.yml the run kept)."""
    commit = (run.manifest.get("git") or {}).get("commit")
    if not commit:
        return Staleness(None, why="the run records no commit (made outside a git checkout)")
    paths = exercised_paths(run.lab, {v.server for v in run.spec.variants.values()})
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "diff", "--name-only", commit, "HEAD", "--", *paths],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as e:
        return Staleness(commit, why=f"git could not run ({e})")
    if done.returncode != 0:
        return Staleness(commit, why=f"its commit {commit[:12]} is not in this checkout's history")
    return Staleness(commit, changed=tuple(line for line in done.stdout.splitlines() if line))


def report_preface(root: Path, run: Run) -> list[str]:
    """The lines a report made from an older run opens with (none for a current run, or one outside git)."""
    found = staleness(root, run)
    if not found.stale or found.commit is None:
        return []
    return [
        f"> **Made by older code.** This run was made at commit {found.commit[:12]}; {found.count()} its lab "
        f"exercises changed since, in {found.where()}. Its figures describe that code, not this checkout's "
        "(`heaplab reference status --files` names them).",
        "",
    ]
