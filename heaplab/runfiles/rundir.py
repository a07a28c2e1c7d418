"""Load a run directory (docs/contracts.md sections 5-6): run.json, the spec as run, per-variant files.

The run loader owns the directory layout; the per-file loaders (client_summary, hlog, gc_events) own the
file formats.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from heaplab.lab.aa import aa_spec
from heaplab.lab.schema import Spec, SpecError
from heaplab.lab.spec import parse_spec
from heaplab.paths import SPEC_NAME
from heaplab.runfiles.gc_events import GC_EVENTS, GcEvent, load_gc_events
from heaplab.runfiles.runjson import RUN_JSON

SUPPORTED_FORMATS = (1,)
NOT_SELECTED = "not selected"  # run.json's why of a variant `heaplab run --variant` left out


def unavailable_text(why: str | None) -> str:
    """How reports say a variant did not run: left out on the command line, or not available yet."""
    why = why or "no reason given"
    return why if why.startswith(NOT_SELECTED) else f"not yet available: {why}"


class RunError(ValueError):
    """The directory is not a readable run; the message is one line for the user."""


# run.json's status of a run that ended: complete, or failed (a variant failed; its report shows which and
# why). interrupted (Ctrl-C or SIGTERM) and running (heaplab still at it, or killed before it could say)
# are not finished: no report, submission or grade is made of them.
ENDED = ("complete", "failed")
_UNFINISHED_WHY = {
    "interrupted": "stopped by Ctrl-C or SIGTERM",
    "running": "heaplab is still running it, or was killed before it could finish it",
    "failed": "a variant failed",
}


def unfinished(
    path: Path, manifest: dict[str, Any], ended: tuple[str, ...] = ENDED, *, again: bool = True
) -> str | None:
    """One line saying why the run is not finished (its status is not in ``ended``), or None; ``again``:
    with the command that runs it again (run.json's ``command``)."""
    status = manifest.get("status")
    if status in ended:
        return None
    why = _UNFINISHED_WHY.get(str(status), "it did not complete")
    rerun = f"; run it again with `{manifest['command']}`" if again and manifest.get("command") else ""
    return f"{path.name} is not complete (status {status}: {why}){rerun}"


@dataclass(frozen=True)
class Run:
    path: Path
    manifest: dict[str, Any]
    spec: Spec

    @property
    def lab(self) -> str:
        return str(self.manifest["lab"])

    @property
    def scale(self) -> str:
        return str(self.manifest["scale"])

    # run.json's fields as the later stages read them (docs/contracts.md section 6)

    @property
    def started(self) -> str:
        """When the run started, ISO 8601 UTC (``start``)."""
        return str(self.manifest["start"])

    @property
    def status(self) -> str | None:
        """running | complete | failed | interrupted (``status``); None in a run.json without one."""
        status = self.manifest.get("status")
        return None if status is None else str(status)

    @property
    def scale_params(self) -> dict[str, Any]:
        """The scale's parameters as the run used them (``scale_params``); {} when it kept none."""
        return dict(self.manifest.get("scale_params") or {})

    @property
    def aa(self) -> dict[str, str] | None:
        """An A/A run's ``{"variant", "twin"}`` (heaplab.lab.aa); None for an ordinary run."""
        aa = self.manifest.get("aa")
        return {str(k): str(v) for k, v in aa.items()} if isinstance(aa, dict) else None

    @property
    def series(self) -> dict[str, Any] | None:
        """The series this run belongs to (``series``: id, index, of, ...); None when it was run alone."""
        series = self.manifest.get("series")
        return dict(series) if isinstance(series, dict) else None

    @property
    def predictions(self) -> dict[str, Any]:
        """The student's predictions the run carries, by question (``predictions``); {} without any."""
        return dict(self.manifest.get("predictions") or {})

    @property
    def hosts(self) -> list[dict[str, Any]]:
        """The hosts the run recorded (``hosts``)."""
        return [h for h in self.manifest.get("hosts") or [] if isinstance(h, dict)]

    def variant_info(self, name: str) -> dict[str, Any]:
        return dict(self.manifest.get("variants", {}).get(name, {}))

    def variant_status(self, name: str) -> str:
        """complete | failed | unavailable | interrupted | ..., or "missing" if the run never had it."""
        info = self.variant_info(name)
        if not info:
            return "missing"
        return str(info.get("status", "unknown"))

    def variant_dir(self, name: str) -> Path:
        return self.path / name

    def client_dir(self, name: str) -> Path:
        return self.variant_dir(name) / "client"

    def server_hosts(self, name: str) -> list[str]:
        server = self.variant_dir(name) / "server"
        return sorted(p.name for p in server.iterdir() if p.is_dir()) if server.is_dir() else []

    def gc_events(self, name: str) -> list[GcEvent]:
        events: list[GcEvent] = []
        for host in self.server_hosts(name):
            path = self.variant_dir(name) / "server" / host / GC_EVENTS
            if path.is_file():
                events.extend(load_gc_events(path, host))
        return sorted(events, key=lambda e: e.start_epoch_ms)


def load_run(path: str | Path) -> Run:
    run_dir = Path(path).resolve()
    manifest_path = run_dir / RUN_JSON
    if not manifest_path.is_file():
        raise RunError(f"{run_dir}: not a run directory (no {RUN_JSON})")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise RunError(f"{manifest_path}: not valid JSON: {e}") from e
    if manifest.get("format") not in SUPPORTED_FORMATS:
        raise RunError(f"{manifest_path}: unsupported run format {manifest.get('format')!r}")
    spec_path = run_dir / SPEC_NAME
    if not spec_path.is_file():
        raise RunError(f"{run_dir}: the spec as run ({SPEC_NAME}) is missing")
    spec = _load_copied_spec(spec_path)
    aa = manifest.get("aa")
    if isinstance(aa, dict):  # an A/A run: the twin beside its variant, the A/A claims (heaplab.lab.aa)
        try:
            spec = aa_spec(spec, str(aa["variant"]), str(aa["twin"]))
        except (KeyError, SpecError) as e:
            raise RunError(f"{manifest_path}: aa {aa!r} does not fit the spec as run: {e}") from e
    return Run(run_dir, manifest, spec)


def _load_copied_spec(path: Path) -> Spec:
    # The copy sits in the run directory, not labs/<lab>/, so the lab-vs-directory check does not apply.
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise RunError(f"{path}: cannot parse: {e}") from e
    return parse_spec(raw, None)


def resolve_run(arg: str, runs_dir: Path) -> Path:
    """A run directory from a path or ``latest`` (the newest run under ``runs_dir`` by its UTC stamp)."""
    if arg != "latest":
        return Path(arg)
    candidates = [p for p in runs_dir.glob("*") if (p / RUN_JSON).is_file()] if runs_dir.is_dir() else []
    if not candidates:
        raise RunError(f"no runs under {runs_dir}; run `heaplab run <lab> --scale ci` first")
    return max(candidates, key=lambda p: (p.name.rsplit("-", 1)[-1], p.name))


_STAMPED = re.compile(r"-(\d{8}T\d{6}Z)$")  # <lab>-<scale>-<UTC>: a run as heaplab run names it


def run_name(lab: str, scale: str, stamp: str, aa: str | None = None) -> str:
    """A run directory's name: ``<lab>-<scale>-<UTC>``, an A/A run's ``<lab>-aa-<variant>-<scale>-<UTC>``."""
    return f"{lab}-aa-{aa}-{scale}-{stamp}" if aa else f"{lab}-{scale}-{stamp}"


def is_aa_run_name(lab: str, name: str) -> bool:
    """Whether ``name`` is that of an A/A run of ``lab`` (heaplab.lab.aa)."""
    return name.startswith(f"{lab}-aa-")


def newest_run_of(lab: str, parent: Path) -> Path | None:
    """The newest run of ``lab`` directly under ``parent`` (by the UTC stamp of its name), or None.

    An A/A run (``heaplab run --aa``) is no run of the lab's experiments: it is never the one chosen."""
    if not parent.is_dir():
        return None
    runs = [
        p
        for p in parent.iterdir()
        if p.name.startswith(f"{lab}-")
        and not is_aa_run_name(lab, p.name)
        and _STAMPED.search(p.name)
        and (p / RUN_JSON).is_file()
    ]
    return max(runs, key=lambda p: _STAMPED.search(p.name).group(1), default=None)  # type: ignore[union-attr]


def find_lab_run(lab: str, notebook_dir: Path, given: str | Path | None = None) -> tuple[Path, str]:
    """The run a lab's notebook reads, and a sentence saying which.

    In order: a submission's run beside the notebook (``results/<run>/``, as the grader unpacks a
    `heaplab submit` zip: what is graded is the run handed in, whatever ``run_dir`` the notebook names);
    ``given``, the notebook's ``run_dir`` (a path from the notebook's directory or the repository's, or a
    run's bare name under ``results/runs/`` or ``results/reference/``); the student's newest run of the lab
    (the repository's ``results/runs/``); else the newest committed reference run (``results/reference/``),
    so the notebook opens before any run."""
    here = notebook_dir.resolve()
    repo = here.parent
    submitted = newest_run_of(lab, here / "results")
    if submitted is not None:
        if given is not None and Path(given).name != submitted.name:
            return submitted, (
                f"Reading the submitted run `{submitted.name}`: the grader reads the run handed in, not "
                f"`run_dir` = `{given}`."
            )
        return submitted, f"Reading the submitted run `{submitted.name}`."
    if given is not None:
        return _given_run(lab, Path(given), here, repo)
    yours = newest_run_of(lab, repo / "results/runs")
    if yours is not None:
        return yours, f"Reading your newest run of {lab}: `results/runs/{yours.name}`."
    reference = newest_run_of(lab, repo / "results/reference")
    if reference is not None:
        return reference, (
            f"**You have no run of {lab} yet** (`heaplab run {lab}` makes one): reading the committed "
            f"reference run `results/reference/{reference.name}`, made on a 2-core VM."
        )
    raise RunError(f"no run of {lab} in {repo / 'results/runs'} or the reference runs: `heaplab run {lab}`")


def _given_run(lab: str, given: Path, here: Path, repo: Path) -> tuple[Path, str]:
    """The notebook's ``run_dir``, found where a student would mean it."""
    candidates = [given] if given.is_absolute() else [here / given, repo / given]
    if len(given.parts) == 1:  # a run's name, as `heaplab run` prints it
        candidates += [repo / "results/runs" / given, repo / "results/reference" / given]
    for path in candidates:
        if (path / RUN_JSON).is_file():
            return path, f"Reading `run_dir`: `{path}`."
    raise RunError(
        f"run_dir = {str(given)!r}: no run there (no {RUN_JSON}); set it to the directory "
        f"`heaplab run {lab}` "
        "printed, or to None for your newest run"
    )
