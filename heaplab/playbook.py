"""Run ansible-playbook for one variant, logging everything and showing a condensed progress view.

The full output goes to ``<variant>/ansible.log``.  The terminal sees play and task names, failures,
the recap, phase start/end (a task whose name ends in ``phase <name>`` for one of the run's phases, e.g.
``engine_workload : Run phase single_put``) and a heartbeat every HEARTBEAT_S seconds while a task runs long.
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import subprocess
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import yaml

HEARTBEAT_S = 15.0
_TASK = re.compile(r"^(TASK|PLAY|RUNNING HANDLER) \[(?P<name>.*)\]")
_PHASE = re.compile(r"\bphase (?P<phase>[A-Za-z0-9_.-]+)$", re.IGNORECASE)
_SHOW = re.compile(r"^(fatal:|failed:|ERROR!|PLAY RECAP|\S+\s+: ok=)")
_FAILURE = re.compile(r"^(fatal:|failed:|ERROR!)")
_MSG = re.compile(r"^\s+msg: ?(?P<rest>.*)$")
_QUIET = ("Validating arguments against arg spec", "Gathering Facts")
MSG_LINES = 4


class Progress:
    """Turns ansible's output lines into the condensed view (one instance per variant)."""

    def __init__(self, out: Callable[[str], None], variant: str, phases: list[str] | None = None) -> None:
        self.out = out
        self.variant = variant
        self.phases = set(phases) if phases is not None else None  # None: any name
        self.task: str | None = None
        self.task_started = time.monotonic()
        self.phase: str | None = None
        self.phase_started = 0.0
        self.after_failure = 0  # lines left to scan for a failure's msg
        self.msg_lines = 0  # lines of a multi-line msg still to show
        self.scalar: list[str] | None = None  # a failure's "msg: <scalar>" line and its wrapped lines
        self.failures: list[str] = []  # the msg of each failure, for run.json's "error"

    def _end_phase(self, now: float) -> None:
        if self.phase is not None:
            self.out(f"[{self.variant}] phase {self.phase} ended ({now - self.phase_started:.0f} s)")
            self.phase = None

    def _end_scalar(self) -> None:
        """A failure's msg scalar is complete: unquote and unwrap it as YAML, show and keep it."""
        if self.scalar is None:
            return
        raw = textwrap.dedent("\n".join(self.scalar))
        self.scalar = None
        try:
            value = yaml.safe_load(raw)["msg"]
        except (yaml.YAMLError, TypeError, KeyError):
            value = " ".join(part.strip() for part in raw.split("\n")).removeprefix("msg:").strip()
        value = "" if value is None else value
        text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
        self.out(f"[{self.variant}]     {text}")
        self.failures.append(text)

    def _continues_scalar(self, text: str) -> bool:
        """ansible's YAML output wraps a long scalar onto lines indented deeper than its key."""
        if self.scalar is None:
            return False
        indent = len(self.scalar[0]) - len(self.scalar[0].lstrip())
        if text.strip() and len(text) - len(text.lstrip()) > indent:
            self.scalar.append(text)
            return True
        self._end_scalar()
        return False

    def _phase_of(self, task: str) -> re.Match[str] | None:
        """The run's phase a task runs, if any. Starting, stopping or waiting for a background phase is no
        phase boundary: those tasks show as task lines."""
        pm = _PHASE.search(task)
        if pm is None or "background phase" in task.lower():
            return None
        return pm if self.phases is None or pm.group("phase") in self.phases else None

    def line(self, text: str) -> None:
        if self._continues_scalar(text):
            return
        now = time.monotonic()
        m = _TASK.match(text)
        if m:
            kind, name = m.group(1), m.group("name")
            self.task, self.task_started = name, now
            pm = self._phase_of(name) if kind == "TASK" else None
            if pm is None or pm.group("phase") != self.phase:
                self._end_phase(now)
            if pm is not None and pm.group("phase") != self.phase:
                self.phase, self.phase_started = pm.group("phase"), now
                self.out(f"[{self.variant}] phase {self.phase} started")
            if not any(q in name for q in _QUIET):
                self.out(f"[{self.variant}] {kind.lower()}: {name}")
        elif _SHOW.match(text):
            self.out(f"[{self.variant}]   {text}")
            self.after_failure = 40 if _FAILURE.match(text) else 0
        elif self.msg_lines and text.startswith("    "):
            self.msg_lines -= 1
            self.out(f"[{self.variant}]     {text.strip()}")
            self.failures[-1] = f"{self.failures[-1]} {text.strip()}".strip()
        elif self.after_failure:
            self.after_failure -= 1
            self.msg_lines = 0
            m = _MSG.match(text)
            if m:  # ansible's yaml-ish failure output: "msg: text" or "msg: |-" + indented lines
                self.after_failure = 0
                rest = m.group("rest")
                if rest and rest not in ("|-", "|", ">-"):
                    self.scalar = [text]  # plain or quoted, possibly continued on the next lines
                else:
                    self.msg_lines = MSG_LINES
                    self.failures.append("")

    def heartbeat(self) -> None:
        if self.task is not None:
            elapsed = time.monotonic() - self.task_started
            self.out(f"[{self.variant}]   ... still running: {self.task} ({elapsed:.0f} s)")

    def finish(self) -> None:
        self._end_scalar()
        self._end_phase(time.monotonic())


def run_playbook(
    cmd: list[str],
    *,
    env: dict[str, str],
    log_path: Path,
    variant: str,
    out: Callable[[str], None] = print,
    heartbeat_s: float | None = None,
    failures: list[str] | None = None,
    phases: list[str] | None = None,
) -> int:
    """Run ``cmd``; return its exit code.  KeyboardInterrupt stops the process and is re-raised.

    ``failures``, if given, receives the msg of every failed task seen in the output.
    """
    interval = HEARTBEAT_S if heartbeat_s is None else heartbeat_s
    progress = Progress(out, variant, phases)
    lines: queue.Queue[str | None] = queue.Queue()
    with log_path.open("w", encoding="utf-8") as log:
        proc = subprocess.Popen(
            cmd,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
            start_new_session=True,  # its own process group: _stop ends ansible and what its tasks started
        )

        def pump() -> None:
            assert proc.stdout is not None
            for text in proc.stdout:
                lines.put(text)
            lines.put(None)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            last_beat = time.monotonic()
            while True:
                try:
                    text = lines.get(timeout=max(interval - (time.monotonic() - last_beat), 0.05))
                except queue.Empty:
                    progress.heartbeat()
                    last_beat = time.monotonic()
                    continue
                if text is None:
                    break
                log.write(text)
                log.flush()
                if _TASK.match(text):
                    last_beat = time.monotonic()
                progress.line(text.rstrip("\n"))
            progress.finish()
            if failures is not None:
                failures.extend(f for f in progress.failures if f)
            return proc.wait()
        except KeyboardInterrupt:
            _stop(proc)
            log.write("\n[heaplab] interrupted (Ctrl-C or SIGTERM)\n")
            raise


def _stop(proc: subprocess.Popen[str]) -> None:
    """Give ansible and the commands its tasks run (a pe or ycsb client) a chance to stop cleanly, then
    insist: the whole process group, so a client it started does not outlive it."""
    if proc.poll() is not None:
        return
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()


def _signal_group(proc: subprocess.Popen[str], sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(proc.pid, sig)
