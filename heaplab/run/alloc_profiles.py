"""Cut a profiled region server's allocations per measured phase: async-profiler's collapsed stacks.

A variant run with ``--profile alloc`` leaves the region server's whole recording,
``server/<host>/profile-regionserver.jfr`` (the engine's launcher and Apache HBase's both run
bin/engine-profiler). After the variant's files are collected, heaplab converts it once per measured phase
with async-profiler's own converter (the engine distribution's ``lib/async-profiler/jfr-converter.jar``):

    java -jar jfr-converter.jar --alloc --total -o collapsed --from START --to END JFR OUT

``--total`` weighs each stack by the bytes allocated (not by the number of samples); START and END are the
phase's window from the client summaries (earliest start, latest end, epoch milliseconds: the converter
takes absolute times). The result is ``server/<host>/profile-regionserver-alloc-<phase>.collapsed``: one
line per distinct stack, frames from the thread's root to the allocated class, then the bytes
(heaplab/analysis/alloc_stages.py reads it). The recording is then kept gzipped,
``profile-regionserver.jfr.gz``
(it is most of a profiled run's bytes): gunzip it to cut another window or draw another graph.
"""

from __future__ import annotations

import gzip
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from heaplab.runfiles.client_summary import load_phase_summaries

JFR = "profile-regionserver.jfr"
CONVERTER = "lib/async-profiler/jfr-converter.jar"
CONVERT_TIMEOUT_S = 600


def collapsed_name(phase: str) -> str:
    """The collapsed alloc profile of one measured phase, beside the region server's flame graphs."""
    return f"profile-regionserver-alloc-{phase}.collapsed"


@dataclass(frozen=True)
class Cut:
    """What cutting one variant's recordings gave: the files written and, for what was not, why."""

    files: tuple[str, ...]  # relative to the variant directory
    notes: tuple[str, ...]


def phase_window(client_dir: Path, phase: str) -> tuple[int, int] | None:
    """(first start, last end) of a phase over its client summaries, epoch ms; None without summaries."""
    summaries = load_phase_summaries(client_dir, phase)
    if not summaries:
        return None
    start = min(s.start_epoch_ms for s in summaries)
    end = max(s.end_epoch_ms for s in summaries)
    return int(start), int(end) + 1  # the converter keeps events up to END inclusive, in whole ms


def converter_jar(archive: Path, work: Path) -> Path | None:
    """The converter of the engine distribution ``archive`` (its unpacked twin beside it, as `make engine`
    leaves it, else extracted into ``work``); None when the archive holds none."""
    unpacked = archive.parent / archive.name.removesuffix("-bin.tar.gz") / CONVERTER
    if unpacked.is_file():
        return unpacked
    try:
        with tarfile.open(archive) as tar:
            member = next((m for m in tar.getmembers() if m.name.endswith("/" + CONVERTER)), None)
            if member is None:
                return None
            source = tar.extractfile(member)
            if source is None:
                return None
            target = work / "jfr-converter.jar"
            with source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
            return target
    except (OSError, tarfile.TarError):
        return None


def java_command(java_home: str | None) -> str | None:
    """The controller's java: ``java_home``'s, else the one on PATH."""
    if java_home:
        java = Path(java_home) / "bin/java"
        return str(java) if java.is_file() else None
    return shutil.which("java")


def convert(java: str, jar: Path, jfr: Path, window: tuple[int, int], out: Path) -> str | None:
    """One window of ``jfr`` as collapsed alloc stacks weighted by bytes into ``out``; None, or why not."""
    cmd = [java, "-jar", str(jar), "--alloc", "--total", "-o", "collapsed"]
    cmd += ["--from", str(window[0]), "--to", str(window[1]), str(jfr), str(out)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CONVERT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{jfr.name}: the converter did not run: {e}"
    if proc.returncode != 0 or not out.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return f"{jfr.name}: the converter exited with {proc.returncode}: {tail[0]}"
    return None


def gzip_jfr(jfr: Path) -> None:
    """Replace the recording by ``<name>.jfr.gz`` (whole before the original goes)."""
    packed = jfr.with_name(jfr.name + ".gz")
    tmp = jfr.with_name("." + packed.name + ".tmp")
    with jfr.open("rb") as src, gzip.open(tmp, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst)
    tmp.replace(packed)
    jfr.unlink()


def cut_variant(variant_dir: Path, phases: Iterable[str], archive: Path, java_home: str | None) -> Cut:
    """Write the collapsed alloc profile of each measured phase for each region server host that left a
    recording; gzip the recordings. Nothing (no notes) when no host left one."""
    jfrs = sorted(variant_dir.glob(f"server/*/{JFR}"))
    if not jfrs:
        return Cut((), ())
    phases = list(phases)
    files: list[str] = []
    notes: list[str] = []
    java = java_command(java_home)
    with tempfile.TemporaryDirectory(prefix="heaplab-jfrconv-") as work:
        jar = converter_jar(archive, Path(work))
        if java is None or jar is None:
            missing = "no java on this machine" if java is None else f"no {CONVERTER} in {archive.name}"
            notes.append(f"alloc profiles per phase not cut: {missing}")
        for jfr in jfrs:
            if java is not None and jar is not None:
                for phase in phases:
                    window = phase_window(variant_dir / "client", phase)
                    if window is None:
                        notes.append(f"{phase}: no client summary, so no window to cut")
                        continue
                    out = jfr.parent / collapsed_name(phase)
                    why = convert(java, jar, jfr, window, out)
                    if why:
                        notes.append(f"{phase}: {why}")
                    else:
                        files.append(str(out.relative_to(variant_dir)))
            gzip_jfr(jfr)
    return Cut(tuple(files), tuple(notes))
