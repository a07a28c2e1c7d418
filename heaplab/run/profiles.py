"""async-profiler flame graphs of a run (``heaplab run LAB --profile cpu,alloc,lock``).

The launcher (engine/dist bin/engine, ENGINE_PROFILE) writes one HTML flame graph per event when a JVM
exits and a one-line mode file ``<mode>: <why>`` saying how CPU samples were taken (``perf_events``, or
``ctimer`` where perf events are not permitted; ``none`` without a cpu event). The playbooks collect them
as ``<variant>/server/<host>/profile-regionserver-<event>.html`` (+ ``profile-regionserver.mode``),
``<variant>/master/<host>/profile-master-<event>.html`` and
``<variant>/client/profile-<phase>-<host>-<event>.html`` (+ ``profile-<phase>-<host>.mode``).
This module validates the events, summarises the mode files for run.json and lists the flame graphs
for report.md. engine/docs/profiling.md explains how to read them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVENTS = ("cpu", "alloc", "lock")
PLAYBOOK_VAR = "heaplab_profile_events"

_HTML = re.compile(r"^profile-(?P<name>.+)-(?P<event>cpu|alloc|lock)\.html$")


class ProfileError(ValueError):
    """A bad --profile value (one line naming it and the valid events)."""


def parse_events(value: str) -> list[str]:
    """``"cpu,alloc"`` -> ``["cpu", "alloc"]`` (each once, in order); ProfileError for anything else."""
    events: list[str] = []
    for raw in value.split(","):
        e = raw.strip()
        if not e:
            continue
        if e not in EVENTS:
            raise ProfileError(f"--profile: unknown event {e!r}; valid events: {', '.join(EVENTS)}")
        if e not in events:
            events.append(e)
    if not events:
        raise ProfileError(f"--profile needs at least one event: {', '.join(EVENTS)} (comma separated)")
    return events


@dataclass(frozen=True)
class Mode:
    """One mode file: where it is (relative to the variant directory), the mode and why."""

    path: str
    mode: str
    why: str


def read_mode(path: Path) -> tuple[str, str]:
    """A mode file's line ``"<mode>: <why>"`` -> ``(mode, why)``."""
    text = path.read_text(encoding="utf-8").strip().splitlines()
    line = text[0] if text else ""
    mode, sep, why = line.partition(":")
    if not sep or not mode.strip():
        return "unknown", f"unreadable mode file {path.name}: {line!r}"
    return mode.strip(), why.strip()


def modes(variant_dir: Path) -> list[Mode]:
    """Every mode file of a variant: region servers first, then the master, then the clients."""
    found: list[Mode] = []
    for pattern in ("server/*/profile-*.mode", "master/*/profile-*.mode", "client/profile-*.mode"):
        for p in sorted(variant_dir.glob(pattern)):
            mode, why = read_mode(p)
            found.append(Mode(str(p.relative_to(variant_dir)), mode, why))
    return found


def flame_graphs(variant_dir: Path) -> list[tuple[str, str]]:
    """(path relative to the variant directory, event) of every flame graph, servers first."""
    graphs: list[tuple[str, str]] = []
    for pattern in ("server/*/profile-*.html", "master/*/profile-*.html", "client/profile-*.html"):
        for p in sorted(variant_dir.glob(pattern)):
            m = _HTML.match(p.name)
            if m:
                graphs.append((str(p.relative_to(variant_dir)), m["event"]))
    return graphs


def variant_profile(variant_dir: Path, events: list[str]) -> dict[str, Any]:
    """run.json's ``profiler`` entry of a variant: events, the CPU mode and a note saying why.

    The mode is the region servers' (the clients' when no server file exists); hosts that disagree
    make it ``mixed`` and the note lists each. No mode file at all (the variant failed before a JVM
    exited): mode ``missing``.
    """
    found = modes(variant_dir)
    files = [path for path, _ in flame_graphs(variant_dir)]
    if not found:
        note = "no profile mode file was collected"
        return {"events": events, "mode": "missing", "note": note, "files": files}
    servers = [m for m in found if m.path.startswith("server/")] or found
    kinds = {m.mode for m in servers}
    if len(kinds) == 1:
        mode = servers[0].mode
        note = servers[0].why
    else:
        mode = "mixed"
        note = "; ".join(f"{m.path}: {m.mode}: {m.why}" for m in servers)
    return {"events": events, "mode": mode, "note": note, "files": files}


# --- reading async-profiler's HTML (tests, notebooks) -------------------------------------------------

_CPOOL = re.compile(r"const cpool = \[(.*?)\];", re.S)
_JS_STRING = re.compile(r"'((?:[^'\\]|\\.)*)'")


def is_flame_graph(path: Path) -> bool:
    """Whether the file is an HTML flame graph written by async-profiler's converter."""
    text = path.read_text(encoding="utf-8", errors="replace")
    html = text.lstrip().startswith("<!DOCTYPE html>")
    return html and "async-profiler" in text and _CPOOL.search(text) is not None


def frame_names(path: Path) -> list[str]:
    """The frame names of a flame graph (async-profiler stores them prefix-compressed in ``cpool``)."""
    m = _CPOOL.search(path.read_text(encoding="utf-8", errors="replace"))
    if m is None:
        return []
    raw = [re.sub(r"\\(.)", r"\1", s) for s in _JS_STRING.findall(m.group(1))]
    names: list[str] = []
    for i, s in enumerate(raw):
        if i == 0 or not s:
            names.append(s)
            continue
        # each entry: one character giving the length of the prefix shared with the previous name (+ 32)
        names.append(names[-1][: ord(s[0]) - 32] + s[1:])
    return names


# --- report.md ------------------------------------------------------------------------------------------


def report_lines(run_dir: Path, variants: dict[str, Any]) -> list[str]:
    """report.md's "Profiles" section: per profiled variant the mode note and a link to every flame graph
    (paths relative to the run directory). Nothing when no variant was profiled."""
    profiled = {name: v for name, v in variants.items() if isinstance(v, dict) and v.get("profiler")}
    if not profiled:
        return []
    lines = [
        "## Profiles",
        "",
        "async-profiler flame graphs (engine/docs/profiling.md: what each event shows, how to read them).",
        "",
    ]
    for name, v in profiled.items():
        p = v["profiler"]
        lines.append(f"### {name}")
        lines.append("")
        events = ", ".join(p.get("events", []))
        lines.append(f"- events: {events}; CPU sampling mode: `{p.get('mode')}` — {p.get('note')}")
        graphs = flame_graphs(run_dir / name)
        if not graphs:
            lines.append("- no flame graph was collected")
        for rel, event in graphs:
            parts = Path(rel).parts
            where = f"{parts[0]} {parts[1]}" if parts[0] in ("server", "master") else "client"
            lines.append(f"- {event}, {where}: [{Path(rel).name}]({name}/{rel})")
        lines.append("")
    return lines
