"""`heaplab run` through the REAL ansible-playbook, the real playbooks and the real engine distribution.

Each run is ``python -m heaplab run 03-offheap-write --scale ci --inventory <tmp inventory>`` as a
subprocess, with HEAPLAB_ROOT pointing at a throw-away repository root (conftest ``lab_root``): the real
playbooks/ and engine archive, and lab 03's real spec with its ci scale shrunk (2 threads x 300 rows,
heap 128m) and hbase.regionserver.port set to a free port in ``site``.  The inventory is the local one
with heaplab_base_dir under the temporary directory, so nothing touches ~/heaplab or port 16020.

Three real runs serve the tests: a complete one (module-scoped, in a clean git checkout), one whose first
variant fails for real (a profile the distribution lacks) in a dirty checkout, and one interrupted with
Ctrl-C (not a git checkout).  The two Progress tests at the end are unit tests of the output parser.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from heaplab.lab.spec import load_spec
from heaplab.run.playbook import Progress, run_playbook
from heaplab.tests.conftest import REPO, FinishedRun, LabRoot, java_processes_mentioning

LAB = "03-offheap-write"
REAL_SPEC = REPO / "labs" / LAB / "experiment.yml"
SMALL_CI = {
    "heap": "128m",
    "young": "32m",
    "client_heap": "128m",
    "threads": 2,
    "rows": 300,
    "batch_rows": 300,
    "warm_rows": 100,
    "regions": 2,
}
RUN_TIMEOUT_S = 300
UNAVAILABLE_WHY = "marked unavailable by this test"


def small_spec(*, rows: int = SMALL_CI["rows"], broken_first: bool = False, writer: bool = False) -> str:
    """Lab 03's real spec with a small ci scale and ``{port}`` (filled in by lab_root) as the RPC port.

    ``broken_first`` puts a variant "broken" first whose profile the distribution does not have; ``writer``
    a background pe phase (its own session) that writes another table until single_put ends.
    """
    raw = yaml.safe_load(REAL_SPEC.read_text(encoding="utf-8"))
    raw["scales"]["ci"] = {**SMALL_CI, "rows": rows}
    # One measured variant keeps these runs short and exercises the unavailable path; the end-to-end test
    # runs every variant of the real spec. Lab 03's two engine variants only (its CMS and min0 variants are
    # the end-to-end test's), and the claims on them.
    kept = ("hbase1-onheap", "hbase2-offheap")
    raw["variants"] = {k: raw["variants"][k] for k in kept}
    raw.pop("subjects", None)  # its Apache HBase counterparts are among the variants left out
    raw["claims"] = [c for c in raw["claims"] if all(w in kept for w in _variant_words(c.get("expect", "")))]
    raw["variants"]["hbase2-offheap"].update(available=False, why=UNAVAILABLE_WHY)
    raw["site"] = {**raw.get("site", {}), "hbase.regionserver.port": "{port}"}
    if broken_first:
        broken = {"profile": "no-such-profile", "server_jvm": ["-XX:+UseG1GC"], "client_jvm": []}
        raw["variants"] = {"broken": broken, **raw["variants"]}
    if writer:
        args = "--nomapred --oneCon=true --valueSize=200 --rows=2000000 --table=WriterTable randomWrite 1"
        phase = {"name": "writer", "tool": "pe", "background": True, "until": "single_put", "args": args}
        at = [p["name"] for p in raw["phases"]].index("single_put")
        raw["phases"].insert(at, phase)
    return yaml.safe_dump(raw, sort_keys=False)


def _variant_words(expect: str) -> list[str]:
    """The variant names in an expectation: its words that are neither numbers nor operators."""
    words = expect.replace("*", " ").split()
    return [w for w in words if w not in ("<", "<=", ">", ">=") and not w.replace(".", "").isdigit()]


def run_args(lab: LabRoot) -> list[str]:
    return ["run", LAB, "--scale", "ci", "--inventory", str(lab.inventory)]


def heaplab_env(lab: LabRoot) -> dict[str, str]:
    return {**os.environ, "HEAPLAB_ROOT": str(lab.root), "PYTHONUNBUFFERED": "1"}


def only_run(lab: LabRoot) -> Path:
    (run,) = lab.runs_dir.iterdir()
    return run


def real_run(lab: LabRoot, timeout_s: float = RUN_TIMEOUT_S) -> FinishedRun:
    proc = subprocess.run(
        [sys.executable, "-m", "heaplab", *run_args(lab)],
        capture_output=True,
        text=True,
        cwd=lab.root,
        env=heaplab_env(lab),
        timeout=timeout_s,
        check=False,
    )
    run = only_run(lab)
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    return FinishedRun(lab, proc, run, manifest, load_spec(lab.spec))


@pytest.fixture(scope="module")
def complete_run(lab_root) -> FinishedRun:
    """The small spec, both of lab 03's variants (hbase2-offheap unavailable), in a clean git checkout."""
    return real_run(lab_root(small_spec(), git=True))


@pytest.fixture(scope="module")
def failed_run(lab_root) -> FinishedRun:
    """A failing variant first, then hbase1-onheap; the spec is changed after the commit (dirty tree)."""
    lab = lab_root(small_spec(), git=True)
    lab.spec.write_text(small_spec(broken_first=True).replace("{port}", str(lab.port)), encoding="utf-8")
    return real_run(lab)


# --- the complete run ------------------------------------------------------------------------------------


def test_complete_run_exits_0_and_names_its_directory(complete_run: FinishedRun) -> None:
    r = complete_run
    assert r.proc.returncode == 0, r.output()
    assert r.run.parent == r.lab.runs_dir  # the default --runs-dir, under the root
    prefix = f"{LAB}-ci-"
    stamp = r.run.name.removeprefix(prefix)
    assert r.run.name.startswith(prefix)
    assert len(stamp) == len("20261121T200000Z") and stamp[8] == "T" and stamp.endswith("Z")
    assert stamp.replace("T", "").removesuffix("Z").isdigit()
    assert f"run directory: {r.run}" in r.proc.stdout
    assert f"next: heaplab report {r.run}" in r.proc.stdout
    assert "Traceback" not in r.proc.stderr


def test_spec_is_copied_byte_for_byte(complete_run: FinishedRun) -> None:
    assert (complete_run.run / "experiment.yml").read_bytes() == complete_run.lab.spec.read_bytes()


def test_run_json_of_a_complete_run(complete_run: FinishedRun) -> None:
    r, m = complete_run, complete_run.manifest
    assert m["format"] == 1 and m["lab"] == LAB and m["title"] == r.spec.title
    assert m["status"] == "complete" and m["scale"] == "ci"
    assert m["scale_params"] == r.params and m["scale_params"]["total_rows"] == 600
    assert m["target"] == str(r.lab.inventory)
    assert m["git"] == {"commit": r.lab.commit, "dirty": False}
    assert m["command"] == shlex.join(["heaplab", *run_args(r.lab)])
    assert m["start"] <= m["end"]
    # Every file the run collected was scanned; a real run here holds no secret.
    assert m["secrets_check"] == {"clean": True, "findings": []}
    # hosts: what the real host_facts role recorded about this machine, with the real JDK.
    (host,) = m["hosts"]
    assert host["name"] == "localhost" and host["cores"] > 0
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True)
    assert host["jdk"] == java.stderr.splitlines()[0] and m["jdk"] == host["jdk"]
    for name, v in r.spec.variants.items():
        entry = m["variants"][name]
        assert entry["profile"] == v.profile and entry["available"] == v.available
        assert entry["server_jvm_flags"] == r.spec.server_jvm_flags(v, r.params)
        assert entry["client_jvm_flags"] == r.spec.client_jvm_flags(v, r.params)
    onheap = m["variants"]["hbase1-onheap"]
    assert onheap["status"] == "complete" and onheap["error"] is None
    assert onheap["log"] == "hbase1-onheap/ansible.log"
    assert onheap["server_jvm_flags"] == ["-Xms128m", "-Xmx128m", "-XX:+UseG1GC", "-Xmn32m"]
    # where its time went: set-up, every phase of the spec, stop and collection, adding up to the whole
    timing = onheap["timing"]
    assert list(timing["phases_s"]) == [p.name for p in r.spec.phases]
    assert timing["before_phases_s"] > 0 and timing["after_phases_s"] > 0
    between = timing["between_phases_s"]
    parts = timing["before_phases_s"] + sum(timing["phases_s"].values()) + between + timing["after_phases_s"]
    assert between >= 0 and parts == pytest.approx(timing["total_s"], abs=0.5)


def test_ansible_vars_json(complete_run: FinishedRun, engine_archive: Path) -> None:
    r = complete_run
    v = r.spec.variants["hbase1-onheap"]
    vars_ = json.loads((r.run / "hbase1-onheap" / "ansible-vars.json").read_text(encoding="utf-8"))
    assert vars_["heaplab_run_dir"] == str(r.run) and vars_["heaplab_variant"] == "hbase1-onheap"
    assert vars_["heaplab_profile"] == v.profile
    # The root's engine/dist/target/ holds a symlink to the real archive; heaplab passes the resolved path.
    assert vars_["heaplab_dist_archive"] == str(engine_archive.resolve())
    assert vars_["heaplab_server_jvm_flags"] == ["-Xms128m", "-Xmx128m", "-XX:+UseG1GC", "-Xmn32m"]
    assert vars_["heaplab_client_jvm_flags"] == ["-Xmx128m", "-XX:+UseG1GC"]
    assert vars_["heaplab_site"] == {
        "hfile.block.cache.size": "0.4",
        "hbase.regionserver.global.memstore.size": "0.35",
        "hbase.regionserver.port": str(r.lab.port),
    }
    raw_phases = yaml.safe_load(r.lab.spec.read_text(encoding="utf-8"))["phases"]
    assert [(p["name"], p["tool"], p["record"]) for p in vars_["heaplab_phases"]] == [
        (p["name"], p["tool"], "measure" in p) for p in raw_phases
    ]
    assert vars_["heaplab_measured_phases"] == [p["name"] for p in raw_phases if "measure" in p]
    assert vars_["heaplab_measured_phases"][:2] == ["single_put", "batch_put"]
    assert vars_["heaplab_phases"][0]["args"] == "create TestTable --presplit=2 --rows=600 --compress=SNAPPY"
    assert vars_["heaplab_phases"][2]["args"].endswith(
        "--rows=300 --autoFlush=true --presplit=2 randomWrite 2"
    )


def test_the_playbook_ran_the_engine_as_configured(complete_run: FinishedRun) -> None:
    """What the real playbook left: the engine deployed under the private base dir, the configuration as
    started (private port, the variant's heap) and the measured phase's client summary."""
    r = complete_run
    vdir = r.run / "hbase1-onheap"
    assert (r.lab.base_dir / "engine/heaplab-engine-0.1.0/bin/engine-daemon").is_file()
    site = (vdir / "conf/engine-site.xml").read_text(encoding="utf-8")
    assert f"<value>{r.lab.port}</value>" in site
    jvm_options = (vdir / "conf/jvm.options").read_text(encoding="utf-8").splitlines()
    flags = [x.strip() for x in jvm_options if x.strip() and not x.lstrip().startswith("#")]
    assert flags == ["-Xms128m", "-Xmx128m", "-XX:+UseG1GC", "-Xmn32m"]
    assert (vdir / "server/localhost/server.log").is_file()
    summary = json.loads((vdir / "client/single_put-localhost.json").read_text(encoding="utf-8"))
    assert summary["rows"] == 600 and summary["threads"] == 2 and summary["throughput"] > 0
    assert r.lab.leftover_processes() == [], "a server outlived the run"


def test_progress_lines_and_log(complete_run: FinishedRun) -> None:
    r = complete_run
    out = r.proc.stdout
    log = r.run / "hbase1-onheap" / "ansible.log"
    expected_cmd = [
        str(Path(sys.executable).parent / "ansible-playbook"),
        "-i",
        str(r.lab.inventory),
        str(r.lab.root / "playbooks/variant.yml"),
        "-e",
        f"@{r.run / 'hbase1-onheap' / 'ansible-vars.json'}",
    ]
    assert f"[hbase1-onheap] {shlex.join(expected_cmd)}" in out
    lines = out.splitlines()
    for phase in ("create", "warmup", "single_put"):
        started = lines.index(f"[hbase1-onheap] phase {phase} started")
        ended = next(i for i, x in enumerate(lines) if x.startswith(f"[hbase1-onheap] phase {phase} ended ("))
        assert started < ended
    assert "phase failed started" not in out  # "Fail when the phase failed" is no phase "failed"
    # the condensed view: no recap, no task that merely ran or was skipped; the full output is in the log
    assert "PLAY RECAP" not in out and "ok=" not in out
    assert "task: " not in out and "Fail when the phase failed" not in out
    assert "changed: [localhost]" not in out
    text = log.read_text(encoding="utf-8")
    assert "TASK [engine_workload : Run phase single_put]" in text and "changed: [localhost]" in text
    assert f"run complete: {r.run}" in out


def test_unavailable_variant_is_recorded_with_why(complete_run: FinishedRun) -> None:
    r = complete_run
    entry = r.manifest["variants"]["hbase2-offheap"]
    why = r.spec.variants["hbase2-offheap"].why
    assert why and entry["status"] == "unavailable" and entry["why"] == why
    assert entry["log"] is None and entry["error"] is None
    assert not (r.run / "hbase2-offheap").exists()
    assert f"[hbase2-offheap] skipped, not yet available: {why}" in r.proc.stdout


# --- a variant that fails for real -----------------------------------------------------------------------


def test_failed_variant_is_recorded_and_the_run_goes_on(failed_run: FinishedRun) -> None:
    r, m = failed_run, failed_run.manifest
    assert r.proc.returncode == 1, r.output()
    assert "Traceback" not in r.proc.stderr
    assert list(m["variants"]) == ["broken", "hbase1-onheap", "hbase2-offheap"]
    assert m["status"] == "failed" and m["end"] is not None
    assert m["git"] == {"commit": r.lab.commit, "dirty": True}  # the spec changed after the commit
    broken = m["variants"]["broken"]
    assert broken["status"] == "failed" and broken["profile"] == "no-such-profile"
    # The whole msg of ansible's last failure, unwrapped and unquoted from its YAML output.
    profiles = r.lab.base_dir / "engine/heaplab-engine-0.1.0/conf/profiles"
    assert broken["error"].startswith(
        "ansible-playbook exited with 2: Variant broken failed on localhost at Fail on an unknown profile: "
        f"Profile 'no-such-profile' is not in {profiles}; the distribution has: "
    )
    assert "hbase1-onheap" in broken["error"].rsplit("the distribution has: ", 1)[1]
    assert broken["error"].endswith("; see broken/ansible.log")
    assert broken["log"] == "broken/ansible.log"
    assert "fatal: [localhost]" in (r.run / "broken/ansible.log").read_text(encoding="utf-8")
    assert "[broken]   fatal: [localhost]" in r.proc.stdout
    assert f"[broken] FAILED: {broken['error']}" in r.proc.stdout
    # The next variant still ran, for real, after the failure.
    assert m["variants"]["hbase1-onheap"]["status"] == "complete"
    summary = json.loads(
        (r.run / "hbase1-onheap/client/single_put-localhost.json").read_text(encoding="utf-8")
    )
    assert summary["rows"] == 600
    assert m["variants"]["hbase2-offheap"]["status"] == "unavailable"
    assert f"run failed: {r.run}" in r.proc.stdout
    assert r.lab.leftover_processes() == []


# --- Ctrl-C ----------------------------------------------------------------------------------------------


def _client_jvms(lab: LabRoot, phase: str) -> list[tuple[int, str]]:
    """The running java processes of one phase's client (its log directory is in their command line)."""
    return java_processes_mentioning(f"{lab.base_dir}/current/client/logs/{phase}/")


def _listening(port: int) -> list[str]:
    """The sockets listening on TCP ``port`` (any address, IPv4 or IPv6), from /proc/net/tcp{,6}."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                local, state = line.split()[1], line.split()[3]
                if state == "0A" and int(local.rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    found.append(f"{table}: {line.strip()}")
    return found


def _wait_until(condition: Callable[[], object], what: str, proc: subprocess.Popen, out: Path) -> None:
    deadline = time.monotonic() + 180
    while not condition():
        assert proc.poll() is None, f"heaplab ended before {what}:\n{out.read_text()}"
        assert time.monotonic() < deadline, f"no {what} within 180 s:\n{out.read_text()}"
        time.sleep(0.1)


def _heaplab(lab: LabRoot, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heaplab", *args],
        capture_output=True,
        text=True,
        cwd=lab.root,
        env=heaplab_env(lab),
        timeout=RUN_TIMEOUT_S,
        check=False,
    )


def _start_stale_server(lab: LabRoot) -> int:
    """A region server of the base directory's last configuration, as a heaplab killed with SIGKILL leaves
    one: running, its pid file in place, holding the run's port."""
    work = lab.base_dir / "current"
    (home,) = (lab.base_dir / "engine").glob("heaplab-engine-*/")
    env = {**os.environ, "ENGINE_CONF_DIR": str(work / "conf"), "ENGINE_LOG_DIR": str(work / "logs")}
    started = subprocess.run(
        [str(home / "bin/engine-daemon"), "start", "regionserver"],
        env={**env, "ENGINE_PID_DIR": str(work / "logs")},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert started.returncode == 0, started.stdout + started.stderr
    return int((work / "logs/regionserver.pid").read_text().strip())


@pytest.mark.parametrize(
    ("sig", "to_group"),
    [(signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["ctrl-c-to-the-group", "sigterm-to-heaplab-alone"],
)
def test_ctrl_c_marks_the_run_interrupted_and_stops_the_server(
    lab_root, tmp_path: Path, sig: signal.Signals, to_group: bool
) -> None:
    """SIGINT to the run's process group (as a terminal's Ctrl-C), or SIGTERM to heaplab alone (kill, a
    scheduler, a CI timeout), while the measured phase runs beside a background writer (its own session,
    which no signal to heaplab's group reaches): the same clean end. No process of the run is left and
    nothing listens on the server's port; run.json says interrupted; heaplab says how to run it again;
    report and submit refuse the run in one line. After Ctrl-C, the same command right away completes,
    though a region server from before still runs (as a heaplab killed with SIGKILL leaves one)."""
    lab = lab_root(small_spec(rows=2_000_000, writer=True))  # long enough to be interrupted; no git checkout
    out_file, err_file = tmp_path / "stdout", tmp_path / "stderr"
    with out_file.open("w") as out, err_file.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "heaplab", *run_args(lab)],
            stdout=out,
            stderr=err,
            text=True,
            cwd=lab.root,
            env=heaplab_env(lab),
            start_new_session=True,
        )
    try:
        _wait_until(
            lambda: "[hbase1-onheap] phase single_put started" in out_file.read_text(),
            "single_put",
            proc,
            out_file,
        )
        # both clients load the server: the measured phase's and the background writer
        _wait_until(
            lambda: _client_jvms(lab, "single_put") and _client_jvms(lab, "writer"), "clients", proc, out_file
        )
        running = json.loads((only_run(lab) / "run.json").read_text(encoding="utf-8"))
        assert running["status"] == "running" and running["end"] is None
        assert _listening(lab.port), "the region server does not listen on its port"
        if to_group:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    stdout, stderr = out_file.read_text(), err_file.read_text()
    assert code == 130, stdout + stderr
    assert lab.leftover_processes() == [], "a server or client of the interrupted run outlived it"
    assert _listening(lab.port) == [], "something still listens on the run's port"
    assert "Traceback" not in stderr and "Traceback" not in stdout
    assert "interrupted (Ctrl-C or SIGTERM): the run is marked interrupted" in stdout
    run = only_run(lab)
    m = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert m["status"] == "interrupted" and m["end"] is not None and m["start"] <= m["end"]
    assert m["git"] == {"commit": None, "dirty": None}  # not a git checkout
    assert m["variants"]["hbase1-onheap"]["status"] == "interrupted"
    assert m["variants"]["hbase2-offheap"]["status"] == "unavailable"
    assert "[heaplab] interrupted (Ctrl-C or SIGTERM)" in (run / "hbase1-onheap/ansible.log").read_text(
        encoding="utf-8"
    )
    assert "[hbase1-onheap] clients and servers stopped" in stdout
    # how to run it again: the command run.json recorded, or the variants it did not finish
    assert f"to run it again from the start: {m['command']}\n" in stdout
    resume = shlex.join([*shlex.split(m["command"]), "--variant", "hbase1-onheap"])
    assert (
        f"or only the variants it did not finish (hbase1-onheap), as a run of their own: {resume}\n" in stdout
    )

    # an interrupted run is no run to report on or to hand in: one line each, no traceback
    notebook = tmp_path / "answers.ipynb"
    notebook.write_text("{}", encoding="utf-8")
    for args, code in ((["report", str(run)], 1), (["submit", str(run), "--notebook", str(notebook)], 2)):
        refused = _heaplab(lab, *args)
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode == code and len(lines) == 1, (args, refused.stdout, refused.stderr)
        assert lines[0].startswith("heaplab: error: ") and "is not complete (status interrupted" in lines[0]
    assert not (run / "report.md").exists()
    if not to_group:
        return

    # The same command again, at once, with a short spec: a region server left from before holds the port
    # (and its pid file says so); the next run stops it and completes.
    lab.spec.write_text(small_spec().replace("{port}", str(lab.port)), encoding="utf-8")
    stale = _start_stale_server(lab)
    again = _heaplab(lab, *run_args(lab))
    assert again.returncode == 0, again.stdout[-6000:] + again.stderr[-3000:]
    (second,) = (r for r in lab.runs_dir.iterdir() if r != run)
    m2 = json.loads((second / "run.json").read_text(encoding="utf-8"))
    assert m2["status"] == "complete" and m2["variants"]["hbase1-onheap"]["status"] == "complete"
    assert not Path(f"/proc/{stale}").exists(), "the region server left from before still runs"
    said = f"Stopped, left running by an earlier run: regionserver (pid {stale}) stopped"
    assert said in " ".join((second / "hbase1-onheap/ansible.log").read_text(encoding="utf-8").split())
    assert lab.leftover_processes() == [] and _listening(lab.port) == []


# --- the progress view (a parser: unit tests) ------------------------------------------------------------


def test_progress_view_and_heartbeat(tmp_path: Path) -> None:
    lines: list[str] = []
    script = (
        "import time\n"
        "print('TASK [engine_workload : Run phase single_put] ***', flush=True)\n"
        "time.sleep(0.6)\n"
        "print('changed: [localhost]')\n"
        "print('TASK [engine_workload : Save the phase\\'s stdout] ***')\n"
    )
    timing: dict = {}
    code = run_playbook(
        [sys.executable, "-c", script],
        env={},
        log_path=tmp_path / "a.log",
        variant="v",
        out=lines.append,
        heartbeat_s=0.1,
        timing=timing,
    )
    assert code == 0
    # the phase's 0.6 s, between the script's start and the task after it
    assert set(timing) == {"total_s", "before_phases_s", "phases_s", "between_phases_s", "after_phases_s"}
    assert list(timing["phases_s"]) == ["single_put"] and 0.5 <= timing["phases_s"]["single_put"] <= 5
    parts = timing["before_phases_s"] + timing["phases_s"]["single_put"] + timing["after_phases_s"]
    assert parts == pytest.approx(timing["total_s"], abs=0.2)
    assert lines[0] == "[v] phase single_put started"
    assert any(x.startswith("[v]   ... phase single_put running (") for x in lines)
    assert any(x.startswith("[v] phase single_put ended") for x in lines)
    assert not any("changed:" in x for x in lines)
    assert "changed: [localhost]" in (tmp_path / "a.log").read_text()


def test_a_phase_run_twice_counts_both_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm-up with level_off runs a second time (engine_workload's again.yml): its seconds add up."""
    clock = iter(range(100))  # one second a call
    monkeypatch.setattr("heaplab.run.playbook.time.monotonic", lambda: float(next(clock)))
    p = Progress(lambda _: None, "v", ["warmup", "single_put"])  # created at 1
    for task in (
        "Run phase warmup",  # 2
        "Read the interval log of warmup",  # 3: ansible's step between the two runs (no phase)
        "Run phase warmup",  # 4
        "Run phase single_put",  # 5
        "Collect the variant's files",  # 6
    ):
        p.line(f"TASK [engine_workload : {task}] ***")
    p.finish()  # 7
    assert p.timing(9.0) == {
        "total_s": 8.0,
        "before_phases_s": 1.0,
        "phases_s": {"warmup": 2.0, "single_put": 1.0},
        "between_phases_s": 1.0,
        "after_phases_s": 3.0,
    }


def test_progress_ignores_non_phase_tasks_and_shows_failure_msgs() -> None:
    out: list[str] = []
    p = Progress(out.append, "v", ["create", "single_put"])
    for line in (
        "TASK [engine_workload : Fail when the phase failed] *",
        "TASK [engine_workload : Check the phases] *",
        "TASK [x : Name the phase's files] *",
        "TASK [x : Run the phases in order; the first failing phase fails with its stderr tail.] *",
        "TASK [x : Validating arguments against arg spec 'main' - Run the phases] *",
        "fatal: [localhost]: FAILED! => ",
        "    changed: false",
        "    msg: |-",
        "        Variant v failed at phase single_put:",
        "        ERROR: server not running",
        "",
    ):
        p.line(line)
    p.finish()
    assert not any("phase " in x and ("started" in x or "ended" in x) for x in out)
    assert not any("Validating arguments" in x for x in out)
    assert "[v]     ERROR: server not running" in out
    assert p.failures == ["Variant v failed at phase single_put: ERROR: server not running"]


def test_progress_unwraps_a_quoted_failure_msg() -> None:
    """ansible's YAML output quotes a msg holding quotes and wraps it onto deeper-indented lines."""
    out: list[str] = []
    p = Progress(out.append, "v", ["single_put"])
    for line in (
        "fatal: [localhost]: FAILED! => ",
        "    changed: false",
        "    msg: 'Variant v failed on localhost at Fail on an unknown profile: Profile ''nope''",
        "        is not in /b/engine/conf/profiles;",
        "        the distribution has: hbase1-onheap'",
        "",
        "fatal: [localhost]: FAILED! => ",
        "    msg: plain words",
        "        wrapped",
        "TASK [next] *",
    ):
        p.line(line)
    p.finish()
    first = (
        "Variant v failed on localhost at Fail on an unknown profile: Profile 'nope' is not in "
        "/b/engine/conf/profiles; the distribution has: hbase1-onheap"
    )
    assert p.failures == [first, "plain words wrapped"]
    assert f"[v]     {first}" in out and "[v]     plain words wrapped" in out
    assert not any("next" in x for x in out)  # a task that merely runs is not shown


def test_progress_background_phase_tasks_are_not_phase_boundaries() -> None:
    """Starting or stopping a background phase shows as a task line, not as that phase starting."""
    out: list[str] = []
    p = Progress(out.append, "v", ["writer", "read"])
    for line in (
        "TASK [engine_workload : Start background phase writer] *",
        "TASK [engine_workload : Run phase read] *",
        "TASK [engine_workload : Stop background phase writer] *",
        "TASK [engine_workload : Wait for the end of background phase writer] *",
    ):
        p.line(line)
    p.finish()
    assert [x for x in out if "started" in x] == ["[v] phase read started"]
    assert "[v] task: engine_workload : Stop background phase writer" in out


def test_progress_names_the_failed_task_and_shows_the_recap_only_on_failure() -> None:
    out: list[str] = []
    p = Progress(out.append, "v", ["single_put"])
    for line in (
        "TASK [engine_server : Start the region server] *",
        "fatal: [localhost]: FAILED! => ",
        "    msg: the port is taken",
        "PLAY RECAP *********",
        "localhost                  : ok=3    changed=1    unreachable=0    failed=1    skipped=9",
    ):
        p.line(line)
    p.finish()
    assert out[0] == "[v] task failed: engine_server : Start the region server"
    assert "[v]     the port is taken" in out
    assert any("failed=1" in x for x in out)
    quiet: list[str] = []
    p = Progress(quiet.append, "v", ["single_put"])
    p.line("TASK [engine_server : Start the region server] *")
    p.line("localhost                  : ok=3    changed=1    unreachable=0    failed=0    skipped=9")
    assert quiet == []
