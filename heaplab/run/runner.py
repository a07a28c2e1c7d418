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
inventory, vars and configuration (heaplab.run.variant_run.stop_servers), and prints how to run it again
(heaplab.run.rerun).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from heaplab.lab.aa import aa_spec, twin_name
from heaplab.lab.schema import Spec, Variant, with_derived
from heaplab.lab.sizing import size_local, this_machine
from heaplab.lab.spec import load_spec, resolve_lab, spec_sha256
from heaplab.paths import DIST_GLOB, SPEC_NAME, find_dist_archive
from heaplab.run import (
    disk_full,
    eta,
    hbase_pe,
    rerun,
    run_lock,
    secrets,
)
from heaplab.run.options import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    ORDER_RANDOM,
    RunOptions,
    RunSetupError,
    default_order_seed,
    iso,
    utc_stamp,
    variant_order,
)
from heaplab.run.provenance import git_state, jdk_of, read_hosts
from heaplab.run.student import seed_jvm_flag
from heaplab.run.variant_run import (
    JdkQuestions,
    run_variant,
    stop_servers,
)
from heaplab.runfiles import exercise_sources, predictions, server_errors
from heaplab.runfiles.rundir import NOT_SELECTED, Run, RunError, load_run, run_name, unavailable_text
from heaplab.runfiles.runjson import FORMAT, RUN_JSON, write_run_json


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
    facts are gathered for the first variant, not again for each of the others. No other run may use the
    inventory's hosts meanwhile (heaplab.run.run_lock)."""
    facts = tempfile.mkdtemp(prefix="heaplab-facts-")
    try:
        with run_lock.held(opts.inventory, opts.command):  # re-entered within `heaplab run`'s own hold
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
    if aa:  # first: a variant left out is "not selected", whatever else it lacks
        mark_unselected(manifest["variants"], (aa["variant"], aa["twin"]), f"--aa {opts.aa}")
    else:
        mark_unselected(manifest["variants"], opts.variants)
    hbase_pe.mark_unavailable(manifest["variants"], spec, opts.root)  # HBase's jars not fetched
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
    jdk_questions = JdkQuestions(str(Path(job.playbook).with_name("ansible")), opts)
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
        if not run_variant(
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


def _exercise_sources(root: Path, lab: str) -> dict[str, Any]:
    """run.json's ``exercise_sources`` for a lab with exercises: the code this run measures."""
    recorded = exercise_sources.record(root, lab)
    return {exercise_sources.RUN_FIELD: recorded} if recorded else {}


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
