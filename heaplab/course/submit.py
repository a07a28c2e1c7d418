"""`heaplab submit RUN --notebook NB`: a student's run and graded notebook packed for the grader.

The zip holds the notebook at its top (as otter-grader expects a submission), the run directory unchanged
under ``results/<run>/`` (so the grader recomputes every number from the raw files), the lab's exercise
solution files as the run measured them under ``source/`` (heaplab.runfiles.exercise_sources; none for a lab
without exercises), and ``heaplab-submission.json``: the run's provenance (lab, scale, commit, spec digest,
hosts, student) and the sha256 of every file in the zip, which the grader checks before it trusts a byte. The
zip's own sha256 is the receipt the student keeps.

A run that cannot be graded fairly is refused with one line: not complete, made from a modified checkout,
a `ci` run (it proves the pipeline only), or one whose secrets check is missing or not clean.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from heaplab.runfiles import exercise_sources

MANIFEST = "heaplab-submission.json"
RESULTS = "results"


class SubmitError(Exception):
    """The run or the notebook cannot be submitted; the message says why in one line."""


@dataclass(frozen=True)
class Submission:
    zip_path: Path
    sha256: str
    files: int


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_run(run_dir: Path) -> dict[str, Any]:
    """run.json of a run that may be graded, or a SubmitError saying what is wrong with it."""
    try:
        manifest = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SubmitError(f"{run_dir} is not a run directory (no run.json)") from None
    except json.JSONDecodeError as e:
        raise SubmitError(f"{run_dir}/run.json is not valid JSON: {e}") from None
    status = manifest.get("status")
    if status != "complete":
        raise SubmitError(f"{run_dir.name} is not complete (status {status}): submit a run that finished")
    if manifest.get("scale") == "ci":
        raise SubmitError(f"{run_dir.name} is a ci run, which proves the pipeline only: submit a local run")
    git = manifest.get("git") or {}
    if git.get("dirty") is not False:
        raise SubmitError(
            f"{run_dir.name} was made from a modified checkout (git dirty: {git.get('dirty')}): commit or "
            "stash your changes, then run the lab again"
        )
    secrets = manifest.get("secrets_check")
    if not secrets or secrets.get("clean") is not True:
        raise SubmitError(f"{run_dir.name}: its secrets check is missing or not clean (see secrets_check)")
    return manifest


def _entries(run_dir: Path, notebook: Path) -> list[tuple[Path, str]]:
    """(file on disk, name in the zip), the notebook first, then the run's files in sorted order."""
    out = [(notebook, notebook.name)]
    for path in sorted(p for p in run_dir.rglob("*") if p.is_file()):
        out.append((path, f"{RESULTS}/{run_dir.name}/{path.relative_to(run_dir).as_posix()}"))
    return out


def _source_entries(root: Path, manifest: dict[str, Any]) -> list[tuple[Path, str]]:
    """The exercise solution files the run measured (heaplab.runfiles.exercise_sources), as they are in
    ``root``;
    a SubmitError when one has changed since the run."""
    recorded = manifest.get(exercise_sources.RUN_FIELD) or {}
    changed = exercise_sources.changed_since_run(root, recorded)
    if changed:
        raise SubmitError(
            f"{', '.join(changed)} changed since this run measured it: run the lab again on the code you "
            "hand in"
        )
    return [(root / rel, exercise_sources.zip_name(rel)) for rel in sorted(recorded)]


def submit(
    run_dir: Path, notebook: Path, out_dir: Path, now: datetime | None = None, root: Path | None = None
) -> Submission:
    """Pack ``run_dir`` and ``notebook`` into a zip under ``out_dir``; refuse what cannot be graded. With
    ``root`` (the checkout the run was made from), the exercise files the run measured go in too."""
    run_dir, notebook = run_dir.resolve(), notebook.resolve()
    if notebook.suffix != ".ipynb" or not notebook.is_file():
        raise SubmitError(f"{notebook} is not a notebook file (.ipynb)")
    manifest = check_run(run_dir)
    entries = _entries(run_dir, notebook) + (_source_entries(root, manifest) if root is not None else [])
    student = (manifest.get("student") or {}).get("id")
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    record = {
        "format": 1,
        "lab": manifest.get("lab"),
        "scale": manifest.get("scale"),
        "run": run_dir.name,
        "student": manifest.get("student"),
        "commit": (manifest.get("git") or {}).get("commit"),
        "spec_sha256": manifest.get("spec_sha256"),
        "hosts": [h.get("name") for h in manifest.get("hosts") or [] if isinstance(h, dict)],
        "notebook": notebook.name,
        "created": stamp,
        "files": {name: sha256_of(path) for path, name in entries},
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    final = out_dir / f"{manifest.get('lab')}-{student or 'anonymous'}-{stamp}.zip"
    partial = final.with_suffix(".zip.partial")  # renamed when complete: a crash leaves no half zip
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path, name in entries:
            z.write(path, name)
        z.writestr(MANIFEST, json.dumps(record, indent=2, sort_keys=True) + "\n")
    partial.replace(final)
    return Submission(final, sha256_of(final), len(entries))
