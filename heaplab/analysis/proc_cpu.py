"""The region servers' and their hosts' CPU over a measured phase, from the /proc samples a run keeps in
``<variant>/server/<host>/proc-cpu.jsonl`` (docs/contracts.md; written by the engine's bin/engine-proc-cpu
right before and right after every measured phase's command, on each region server's host).

Each line is one sample: the server process's CPU seconds (utime + stime of /proc/<pid>/stat: every thread,
user and system, with its live descendants), the host's /proc/stat cpu line in clock ticks, a wall-clock
time, and, on a host where the client ran the phase too (the local target), the client's CPU in the phase.
Reads no JVM, so it exists for every server: the engine, Apache HBase 2.6 and 1.4 alike.

A phase's figures are its ``after`` sample minus its ``before`` sample.  What the host's CPUs did that was
neither the server's nor (where known) the client's is kept as ``other_share``: a run on a host that
something else kept busy is a disturbed run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heaplab.runfiles.rundir import Run

SAMPLES = "proc-cpu.jsonl"
# The share of a region server host's CPUs that other processes may take before a run is said to have
# shared the machine: the committed reference runs, on an idle VM, show at most 22% in a measured phase
# (the kernel, ansible's polling, the hiccup meter's JVM, and lab 04's background writer, a client of the
# run's own that the samples cannot tell from other work).
BUSY_OTHER_SHARE = 0.25
# /proc/stat's first line: user nice system idle iowait irq softirq steal (guest time is inside user).
IDLE_FIELDS = (3, 4)  # idle, iowait: the CPU did nothing for this host


class ProcCpuFileError(ValueError):
    """A samples file that cannot be read; the message names the file, the line and the problem."""


@dataclass(frozen=True)
class Sample:
    phase: str
    at: str  # "before" | "after"
    unix_time: float
    pid: int | None
    server_cpu_s: float | None  # None: the server could not be read (error says why)
    host_ticks: tuple[int, ...]
    clk_tck: int
    cpus: int
    client_cpu_s: float | None = None
    error: str | None = None
    load_1m: float | None = None  # /proc/loadavg's 1-minute figure (samples since 2026-12-03)

    @property
    def busy_ticks(self) -> int:
        return sum(t for i, t in enumerate(self.host_ticks) if i not in IDLE_FIELDS)

    @property
    def total_ticks(self) -> int:
        return sum(self.host_ticks)


@dataclass(frozen=True)
class PhaseCpu:
    """One host's CPU over one phase (``after - before``); shares are of the host's whole CPU time."""

    host: str
    seconds: float  # wall time between the two samples
    server_cpu_s: float
    client_cpu_s: float | None  # None: no client ran on this host, or it was not measured here
    busy_ticks: int
    total_ticks: int
    clk_tck: int
    cpus: int
    load_1m: float | None = None  # the host's 1-minute load average at the phase's end, where sampled

    def _share(self, cpu_s: float) -> float:
        return cpu_s * self.clk_tck / self.total_ticks if self.total_ticks > 0 else 0.0

    @property
    def busy_share(self) -> float:
        return self.busy_ticks / self.total_ticks if self.total_ticks > 0 else 0.0

    @property
    def server_share(self) -> float:
        return self._share(self.server_cpu_s)

    @property
    def client_share(self) -> float | None:
        return None if self.client_cpu_s is None else self._share(self.client_cpu_s)

    @property
    def other_share(self) -> float:
        """Busy time that was neither the server's nor the client's (never below 0: a tick's rounding)."""
        return max(0.0, self.busy_share - self.server_share - (self.client_share or 0.0))

    @property
    def busy_with_other_work(self) -> bool:
        """Whether other processes took more of the host than an idle machine's do: a disturbed phase."""
        return self.other_share > BUSY_OTHER_SHARE


def _sample(raw: Any, where: str) -> Sample:
    if not isinstance(raw, dict):
        raise ProcCpuFileError(f"{where}: not a JSON object")

    def field(key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        value = raw.get(key)
        if value is None and optional:
            return None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ProcCpuFileError(
                f"{where}: {key} is not a {getattr(kind, '__name__', 'number')}: {value!r}"
            )
        return value

    at = field("at", str)
    if at not in ("before", "after"):
        raise ProcCpuFileError(f"{where}: at is {at!r}, not before or after")
    ticks = field("host_cpu_ticks", list)
    if len(ticks) < 4 or not all(isinstance(t, int) and not isinstance(t, bool) for t in ticks):
        raise ProcCpuFileError(
            f"{where}: host_cpu_ticks is not a list of at least 4 whole numbers: {ticks!r}"
        )
    number = (int, float)
    return Sample(
        phase=field("phase", str),
        at=at,
        unix_time=float(field("unix_time", number)),
        pid=field("pid", int, optional=True),
        server_cpu_s=field("server_cpu_s", number, optional=True),
        host_ticks=tuple(ticks),
        clk_tck=field("clk_tck", int),
        cpus=field("cpus", int),
        client_cpu_s=field("client_cpu_s", number, optional=True),
        error=field("error", str, optional=True),
        load_1m=_load_1m(raw.get("loadavg"), where),
    )


def _load_1m(raw: Any, where: str) -> float | None:
    """The 1-minute load average of a sample's ``loadavg`` [1, 5, 15 minutes]; None where it has none."""
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 3 or not all(isinstance(x, (int, float)) for x in raw):
        raise ProcCpuFileError(f"{where}: loadavg is not a list of three numbers: {raw!r}")
    return float(raw[0])


def read_samples(path: Path) -> list[Sample]:
    """Every sample of one host's file, in order; a line that is not a sample is ProcCpuFileError."""
    samples = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as e:
            raise ProcCpuFileError(f"{path}:{n}: not JSON: {e.msg}") from None
        samples.append(_sample(raw, f"{path}:{n}"))
    return samples


def phase_cpu(host: str, samples: list[Sample], phase: str) -> PhaseCpu | str:
    """The host's CPU over ``phase`` (its last ``before`` sample to the ``after`` that follows), or why
    not (one line)."""
    before = after = None
    for s in samples:
        if s.phase != phase:
            continue
        if s.at == "before":
            before, after = s, None
        elif before is not None:
            after = s
    if before is None or after is None:
        return f"{host}: no {'after' if before else 'before'} sample of phase {phase}"
    for s in (before, after):
        if s.server_cpu_s is None:
            why = s.error or "no reason given"
            return f"{host}: the {s.at} sample of phase {phase} has no server CPU ({why})"
    if before.pid != after.pid:
        return (
            f"{host}: the server's pid changed during phase {phase} ({before.pid} -> {after.pid}: a restart)"
        )
    if before.clk_tck != after.clk_tck or before.clk_tck <= 0:
        ticks = f"{before.clk_tck}, {after.clk_tck}"
        return f"{host}: the samples of phase {phase} disagree on the clock tick ({ticks})"
    grew = after.server_cpu_s - before.server_cpu_s  # type: ignore[operator]
    total = after.total_ticks - before.total_ticks
    if grew < 0 or total < 0 or after.unix_time < before.unix_time:
        return f"{host}: a counter fell between the samples of phase {phase}"
    return PhaseCpu(
        host=host,
        seconds=after.unix_time - before.unix_time,
        server_cpu_s=grew,
        client_cpu_s=after.client_cpu_s,
        busy_ticks=after.busy_ticks - before.busy_ticks,
        total_ticks=total,
        clk_tck=after.clk_tck,
        cpus=after.cpus,
        load_1m=after.load_1m,
    )


def variant_phase_cpu(variant_dir: Path, phase: str) -> dict[str, PhaseCpu | str] | None:
    """Every region server host's CPU over ``phase`` (host -> figures or why not), from
    ``<variant_dir>/server/<host>/proc-cpu.jsonl``; None when no host has the file (a run made before the
    samples).  A host without the file is one with a reason, so a sum over hosts is never silently short."""
    hosts = sorted(p for p in (variant_dir / "server").glob("*") if p.is_dir())
    if not any((h / SAMPLES).is_file() for h in hosts):
        return None
    found: dict[str, PhaseCpu | str] = {}
    for h in hosts:
        path = h / SAMPLES
        found[h.name] = (
            phase_cpu(h.name, read_samples(path), phase) if path.is_file() else f"{h.name}: no {SAMPLES}"
        )
    return found


def disturbed_phases(run: Run) -> list[str]:
    """'<variant> <phase> on <host>: other work 39% of its CPUs' for each measured pe or ycsb phase of each
    variant that ran while other work shared a host (``busy_with_other_work``); an `admin metrics` phase
    lasts a second or so, too short for a share to mean anything, and is left out."""
    phases = [p.name for p in run.spec.phases if p.measure and p.tool in ("pe", "ycsb")]
    found = []
    for variant in sorted(run.manifest.get("variants") or {}):
        for phase in phases:
            for host, cpu in (variant_phase_cpu(run.path / variant, phase) or {}).items():
                if not isinstance(cpu, str) and cpu.busy_with_other_work:
                    found.append(f"{variant} {phase} on {host}: other work {cpu.other_share:.0%} of its CPUs")
    return found


def describe(cpu: PhaseCpu) -> str:
    """'localhost busy 96% of 2 CPUs over 12.3 s: server 58%, client 36%, other 2%, load average 2.1 at its
    end' (shares of the host; the load where the samples have it)."""
    parts = [f"server {cpu.server_share:.0%}"]
    if cpu.client_share is not None:
        parts.append(f"client {cpu.client_share:.0%}")
    parts.append(f"other {cpu.other_share:.0%}")
    busy = f"busy {cpu.busy_share:.0%} of {cpu.cpus} CPUs over {cpu.seconds:.1f} s"
    load = f", load average {cpu.load_1m:.1f} at its end" if cpu.load_1m is not None else ""
    return f"{cpu.host} {busy}: {', '.join(parts)}{load}"
