"""Run ansible-playbook for one variant, logging everything and showing a condensed progress view.

The full output goes to ``<variant>/ansible.log``.  The terminal sees what a student needs to follow a
run: each phase's start and end with its length (a task whose name ends in ``phase <name>`` for one of
the run's phases, e.g. ``engine_workload : Run phase single_put``), a background phase started and
stopped, a heartbeat every HEARTBEAT_S seconds while a task runs long, and on a failure the failed task's
name, its message and the recap. A task that merely ran (or was skipped: "Fail when the phase failed",
another subject's tasks) is not shown.
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import yaml

HEARTBEAT_S = 15.0
_TASK = re.compile(r"^(TASK|PLAY|RUNNING HANDLER) \[(?P<name>.*)\]")
_PHASE = re.compile(r"\bphase (?P<phase>[A-Za-z0-9_.-]+)$", re.IGNORECASE)
_SHOW = re.compile(r"^(fatal:|failed:|ERROR!)")
_BACKGROUND = re.compile(r"\b(Start|Stop) background phase [A-Za-z0-9_.-]+$")  # one named phase
_RECAP = re.compile(r"^\S+\s+: ok=")
_RECAP_FAILED = re.compile(r"\b(failed|unreachable)=[1-9]")
_FAILURE = re.compile(r"^(fatal:|failed:|ERROR!)")
_MSG = re.compile(r"^\s+msg: ?(?P<rest>.*)$")
_QUIET = ("Validating arguments against arg spec", "Gathering Facts")
MSG_LINES = 4
_NO_SPACE = "no space left on device"


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
        self.disk_full: list[
            str
        ] = []  # every line that says a disk is full (heaplab.run.disk_full reads them)
        # where the variant's time went (run.json's "timing"): the seconds of each phase, and when the first
        # began and the last ended
        self.created = time.monotonic()
        self.phase_seconds: dict[str, float] = {}
        self.first_phase_at: float | None = None
        self.last_phase_end: float | None = None

    def _end_phase(self, now: float) -> None:
        if self.phase is not None:
            self.out(f"[{self.variant}] phase {self.phase} ended ({now - self.phase_started:.0f} s)")
            spent = (
                self.phase_seconds.get(self.phase, 0.0) + now - self.phase_started
            )  # a phase run again adds
            self.phase_seconds[self.phase] = spent
            self.last_phase_end = now
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

    def _task(self, kind: str, name: str, now: float) -> None:
        """A task (or play) starts: it may end a phase and start another; only a named background phase's
        start and stop are shown as tasks."""
        self.task, self.task_started = name, now
        pm = self._phase_of(name) if kind == "TASK" else None
        if pm is None or pm.group("phase") != self.phase:
            self._end_phase(now)
        if pm is not None and pm.group("phase") != self.phase:
            self.phase, self.phase_started = pm.group("phase"), now
            self.first_phase_at = now if self.first_phase_at is None else self.first_phase_at
            self.out(f"[{self.variant}] phase {self.phase} started")
        if _BACKGROUND.search(name):
            self.out(f"[{self.variant}] {kind.lower()}: {name}")

    def line(self, text: str) -> None:
        if _NO_SPACE in text.lower():
            self.disk_full.append(text.strip())
        if self._continues_scalar(text):
            return
        m = _TASK.match(text)
        if m:
            self._task(m.group(1), m.group("name"), time.monotonic())
        elif _SHOW.match(text):
            if self.task is not None and not any(q in self.task for q in _QUIET):
                self.out(f"[{self.variant}] task failed: {self.task}")
            self.out(f"[{self.variant}]   {text}")
            self.after_failure = 40 if _FAILURE.match(text) else 0
        elif _RECAP.match(text) and _RECAP_FAILED.search(text):
            self.out(f"[{self.variant}]   {text}")
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
        now = time.monotonic()
        if self.phase is not None:
            self.out(f"[{self.variant}]   ... phase {self.phase} running ({now - self.phase_started:.0f} s)")
        elif self.task is not None:
            self.out(f"[{self.variant}]   ... still running: {self.task} ({now - self.task_started:.0f} s)")

    def finish(self) -> None:
        self._end_scalar()
        self._end_phase(time.monotonic())

    def timing(self, end: float) -> dict[str, object]:
        """Where the variant's ``end - created`` seconds went: before its first phase (deploying, starting
        the servers), in each phase (the tasks whose names end in it), between phases (ansible's own steps:
        sizing a phase, sampling the CPU, the includes), after the last (stopping, collecting the files)."""
        first = self.first_phase_at if self.first_phase_at is not None else end
        last = self.last_phase_end if self.last_phase_end is not None else end
        in_phases = sum(self.phase_seconds.values())
        return {
            "total_s": round(end - self.created, 1),
            "before_phases_s": round(first - self.created, 1),
            "phases_s": {name: round(s, 1) for name, s in self.phase_seconds.items()},
            "between_phases_s": round(max(0.0, last - first - in_phases), 1),
            "after_phases_s": round(end - last, 1),
        }


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
    disk_full: list[str] | None = None,
    timing: dict[str, object] | None = None,
) -> int:
    """Run ``cmd``; return its exit code.  KeyboardInterrupt stops the process and is re-raised.

    ``failures``, if given, receives the msg of every failed task seen in the output; ``disk_full`` every
    line that says a disk is full; ``timing`` where the time went (``Progress.timing``). When the log
    cannot be written (the run directory's disk is full), the output is still read to the end and shown,
    the failure to write it goes into both lists, and the return value is 1 if ansible-playbook itself
    succeeded.
    """
    interval = HEARTBEAT_S if heartbeat_s is None else heartbeat_s
    progress = Progress(out, variant, phases)
    lines: queue.Queue[str | None] = queue.Queue()
    log_error: OSError | None = None
    # unbuffered: a write the disk refuses fails there and then, and leaves nothing for close() to retry
    with log_path.open("wb", buffering=0) as log:
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
                if log_error is None:
                    try:
                        log.write(text.encode("utf-8", errors="replace"))
                    except OSError as e:  # a full disk: keep reading, or ansible blocks on its pipe
                        log_error = e
                        progress.line(f"ERROR! heaplab cannot write {log_path}: {e.strerror or e}")
                if _TASK.match(text):
                    last_beat = time.monotonic()
                progress.line(text.rstrip("\n"))
            progress.finish()
            if failures is not None:
                failures.extend(f for f in progress.failures if f)
            if disk_full is not None:
                disk_full.extend(progress.disk_full)
            code = proc.wait()
            if timing is not None:
                timing.update(progress.timing(time.monotonic()))
            return code or (1 if log_error is not None else 0)
        except KeyboardInterrupt:
            _stop(proc)
            with contextlib.suppress(OSError):  # a full disk must not hide the interrupt
                log.write(b"\n[heaplab] interrupted (Ctrl-C or SIGTERM)\n")
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


@contextlib.contextmanager
def appended_log(log: Path, header: str) -> Iterator[IO[str] | int]:
    """``log`` opened for appending after ``header``, or DEVNULL when it cannot be written (its disk is
    full): the clean-up runs all the same."""
    f: IO[str] | None = None
    try:
        f = log.open("a", encoding="utf-8")
        f.write(header)
        f.flush()
    except OSError:
        with contextlib.suppress(OSError):
            if f is not None:
                f.close()
        f = None
    try:
        yield subprocess.DEVNULL if f is None else f
    finally:
        with contextlib.suppress(OSError):
            if f is not None:
                f.close()
