"""What `otter run` scored, kept between gradings of a class (`heaplab grade --out DIR`: DIR/otter-results/).

An instructor grades a class, marks the hand-graded questions, and grades again with `--marks`: the
notebooks have not changed, and executing each one again (10-30 s a submission) would only give the same
scores. A kept result is reused only when everything that made it is the same: the submission zip's bytes,
the autograder zip's bytes, heaplab's own code (the hidden tests import it) and otter-grader's version.
A failed `otter run` is never kept. Delete the folder to execute every notebook again.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

from heaplab.course.submit import sha256_of


def heaplab_code_sha256() -> str:
    """One digest of every module of the installed heaplab package (its tests left out)."""
    package = Path(__file__).resolve().parents[1]  # heaplab/ (this module is heaplab/course/...)
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        if rel.startswith("tests/"):
            continue
        digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


class OtterResults:
    """The kept scores of one grading folder, for one autograder. Picklable: the graders run in processes
    of their own, and each writes the files of its own submissions only."""

    def __init__(self, folder: Path, autograder: Path) -> None:
        self.folder = folder
        self.made_by = {
            "autograder": sha256_of(autograder),
            "heaplab": heaplab_code_sha256(),
            "otter": metadata.version("otter-grader"),
        }

    def _path(self, submission: Path) -> tuple[Path, str]:
        sha = sha256_of(submission)
        return self.folder / f"{sha}.json", sha

    def get(self, submission: Path) -> tuple[dict[str, tuple[float, float]], dict[str, str]] | None:
        """(scores, why) kept for this zip by the same autograder, heaplab and otter; else None."""
        path, sha = self._path(submission)
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if kept.get("submission") != sha or kept.get("made_by") != self.made_by:
            return None
        scores = {q: (float(s), float(m)) for q, (s, m) in kept["scores"].items()}
        return scores, {str(q): str(w) for q, w in kept["why"].items()}

    def put(self, submission: Path, scores: dict[str, tuple[float, float]], why: dict[str, str]) -> None:
        path, sha = self._path(submission)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "submission": sha,
            "name": submission.name,
            "made_by": self.made_by,
            "scores": scores,
            "why": why,
        }
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)  # a crash leaves the old file or none, never half a record
