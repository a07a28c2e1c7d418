"""Load a run directory (docs/contracts.md sections 5-6): run.json, the spec as run, per-variant files.

The run loader owns the directory layout; the per-file loaders (client_summary, hlog, gc_events) own the
file formats.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from heaplab.gc_events import GC_EVENTS, GcEvent, load_gc_events
from heaplab.paths import SPEC_NAME
from heaplab.runjson import RUN_JSON
from heaplab.spec import Spec, parse_spec

SUPPORTED_FORMATS = (1,)


class RunError(ValueError):
    """The directory is not a readable run; the message is one line for the user."""


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
