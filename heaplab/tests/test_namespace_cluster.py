"""Function test: a cluster in network namespaces survives a region server killed in the middle of a write.

``infra/netns/cluster.sh up`` makes a namespace ``ctl`` (ansible and the client) and nodes n1..n3, each with
its own address, hosts file, hostname and sshd. ``heaplab run`` runs inside ctl against the inventory the
script wrote, with the same playbooks as every other target: the master on n1, region servers on n1..n3
(cluster mode), the client in ctl, and these phases (a lab written by this test, below):

1. ``admin create TestTable --presplit=3``: the master assigns the three regions round-robin,
2. ``admin regions TestTable``: which server holds which region,
3. ``pe sequentialWrite 3`` (three writer threads, each in its own region, so on its own server),
4. ``admin count TestTable --json``: rows, by scanning every region,
5. ``admin metrics``: in cluster mode the playbook asks each region server (``metrics-ctl@<server>.json``),
6. ``admin status``: the master's view of the servers at the end.

While phase 3 runs, once n2's data directory has grown by 256 KB (acknowledged writes in its WAL), the test
SIGKILLs n2's region server (no flush, no clean WAL close) and a few seconds later starts it again with
``engine-daemon start regionserver`` over ssh, as an operator would. The client's retries must carry the
writer through: the write phase succeeds, and the count equals the rows pe wrote (every acknowledged put
survived the crash through n2's WAL replay). ``cluster.sh down`` runs whatever
happens and must leave no namespace and no process behind.

Before the run, ``playbooks/provision.yml`` prepares every host from ctl, as after ``terraform apply``:
``cluster.sh data-disk n1`` gives n1 a real block device (a loop device over a 640 MB sparse file in the state
directory, with host vars that move n1's base directory onto it); the data_disk role formats and mounts it
over ssh, inside n1's own mount namespace. The test checks that n1's engine data lived on that filesystem
(``findmnt -T`` over ssh, the host's view of the mount point stays empty, n1's host record names the loop
device), that a second provision run changes nothing (``changed=0`` on every host), that os_settings in
report mode left the machine's kernel settings as they were, and that neither the run directory nor the
inventory holds a private key, cloud key or password (heaplab.run.secrets, which heaplab run also applies to
its run directory: run.json's secrets_check).
The loop device is detached by ``cluster.sh down`` (and by this test if anything is left), always.

Then, on the same cluster and where infra/apache-hbase/fetch.sh has run, lab 10 (the real spec, its Apache
HBase variant alone) at ci scale on a real distributed Apache HBase deployed by the same playbooks: the HDFS
NameNode, ZooKeeper and HMaster on n1, a DataNode and a region server on each of n1..n3 (replication 2),
YCSB in ctl through HBase's own client. Every YCSB operation must succeed, the tables must be spread over
the three region servers, and every daemon's log must be collected into the run directory.

Skips, saying why, when not root, without a working ``ip netns``, when a namespace cluster is already up
(the test would tear it down), or when ``cluster.sh up`` cannot run here (exit 2, e.g. sshd cannot be
installed); only the data-disk checks skip, saying why, when no loop device can be had. Takes about two
minutes on 2 cores; every "node" shares this machine, so nothing here is timed.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.analysis.cluster_metrics import load_phase_report, report_paths
from heaplab.run.secrets import Finding, find_secrets
from heaplab.tests.conftest import REPO
from heaplab.tests.shared_runs import fetched_apache_hbase, link_apache_hbase
from playbooks.tests.support import WRITTEN_BY_APPLY, jdk_from_dpkg, kernel_state

CLUSTER_SH = REPO / "infra" / "netns" / "cluster.sh"
# Short on purpose: ssh control sockets live below it.
STATE = Path("/tmp/heaplab-netns-test")
NAMESPACES = ("ctl", "n1", "n2", "n3")
LAB = "90-namespace-cluster"
VARIANT = "cluster"
KILLED = "n2"
# The kill comes once n2's data directory (its WAL) has grown this much since pe started: n2 has
# acknowledged writes that only its WAL replay can bring back.
KILL_AFTER_BYTES = 256 * 1024
DOWN_FOR_S = 3.0  # between the kill and the restart
RUN_TIMEOUT_S = 420
DISK_NODE = "n1"
# Room for the engine run and for Apache HBase on n1 (its 117 MB archive, unpacked beside it, and HDFS's
# blocks); the file is sparse, so only what is written takes space.
DISK_MB = "640"
# Where cluster.sh data-disk moves n1's base directory (its host_vars/n1.yml).
DISK_MOUNT = STATE / "nodes" / DISK_NODE / "data"
DISK_BASE = DISK_MOUNT / "heaplab"
HOSTS = ("ctl", "n1", "n2", "n3")

SPEC = f"""\
lab: {LAB}
title: Namespace cluster function test (a region server killed and restarted during a write)
reproduces:
  - {{doc: "none", experiment: cluster_write}}
variants:
  {VARIANT}:
    profile: hbase1-onheap
    server_jvm: ["-XX:+UseG1GC"]  # heaplab adds -Xms/-Xmx from the scale's heap and client_heap
    client_jvm: ["-XX:+UseG1GC"]
scales:
  ci: {{heap: 256m, client_heap: 256m, threads: 3, rows: 12000, regions: 3}}
site:
  hbase.regionserver.handler.count: "8"
phases:
  - {{name: create, tool: admin, args: "create TestTable --presplit={{regions}} --rows={{total_rows}}"}}
  - {{name: regions, tool: admin, args: "regions TestTable"}}
  - {{name: write, tool: pe, measure: cluster_write,
     args: "--nomapred --oneCon=true --valueSize=100 --rows={{rows}} --autoFlush=true --presplit={{regions}}
       sequentialWrite {{threads}}"}}
  - {{name: count, tool: admin, args: "count TestTable --json"}}
  - {{name: metrics, tool: admin, args: "metrics"}}
  - {{name: status, tool: admin, args: "status"}}
claims: []
"""
HBASE_LAB = "10-ycsb-cluster"
HBASE_VARIANT = "hbase-onheap"
HBASE_RUN_TIMEOUT_S = 900


def _hbase_lab10_spec() -> str:
    """Lab 10's real spec with its Apache HBase variant alone (the engine's cluster mode is tested above)."""
    raw = yaml.safe_load((REPO / "labs" / HBASE_LAB / "experiment.yml").read_text(encoding="utf-8"))
    raw["variants"] = {HBASE_VARIANT: raw["variants"][HBASE_VARIANT]}
    raw.pop("subjects", None)
    raw["claims"] = []  # they compare the engine's variant; here only the deployment is tested
    return yaml.safe_dump(raw, sort_keys=False)


def _skip_reason() -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces, veths, sshd)"
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2)"
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        return f"`ip netns` does not work here: {listed.stderr.strip()}"
    present = {line.split()[0] for line in listed.stdout.splitlines() if line.strip()} & set(NAMESPACES)
    if present:
        return (
            f"namespaces {', '.join(sorted(present))} exist already (a cluster is up); "
            "this test would replace it: run infra/netns/cluster.sh down first"
        )
    return None


def _cluster_sh(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLUSTER_SH), "--state-dir", str(STATE), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _pids_with(*needles: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if all(n in cmdline for n in needles) and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def _bytes_under(directory: Path) -> int:
    total = 0
    for path in directory.rglob("*"):
        try:
            total += path.stat().st_size if path.is_file() else 0
        except OSError:  # a file rolled or removed while walking
            continue
    return total


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class Crash:
    """What the killer thread did, with wall-clock times (ms) to compare with pe's summary."""

    pe_pid: int | None = None
    killed_pid: int | None = None
    kill_ms: float | None = None
    restart_ms: float | None = None
    restarted_ms: float | None = None
    restart: subprocess.CompletedProcess[str] | None = None
    pe_alive_at_kill: bool = False
    written_at_kill: int = 0  # bytes n2's data directory grew by between pe's start and the kill
    error: str | None = None


def _provision() -> subprocess.CompletedProcess[str]:
    """provision.yml from ctl against the cluster's inventory (and its host_vars), as a student would."""
    venv_bin = Path(sys.executable).parent
    env = {**os.environ, "ANSIBLE_CONFIG": str(REPO / "playbooks" / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    env["PATH"] = f"{venv_bin}:{env.get('PATH', '')}"
    playbook = [str(venv_bin / "ansible-playbook"), "-i", str(STATE / "inventory.yml")]
    if not jdk_from_dpkg():  # the nodes share this machine's packages: never install one from a test
        playbook += ["--skip-tags", "openjdk"]
    return subprocess.run(
        ["ip", "netns", "exec", "ctl", *playbook, str(REPO / "playbooks" / "provision.yml")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def _recap(stdout: str) -> dict[str, dict[str, int]]:
    """host -> PLAY RECAP counters."""
    recap = {}
    for line in stdout.split("PLAY RECAP", 1)[-1].splitlines():
        name, _, counters = line.partition(" : ")
        if "ok=" in counters:
            recap[name.strip()] = {k: int(v) for k, v in (c.split("=") for c in counters.split())}
    return recap


def _ssh(node: str, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", "ctl", "ssh", "-F", f"{STATE}/ssh/config", node, command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _our_loop_devices() -> list[str]:
    """Loop devices backed by a file in this test's state directory."""
    listed = subprocess.run(
        ["losetup", "--list", "--noheadings", "--output", "NAME,BACK-FILE"],
        capture_output=True,
        text=True,
        check=False,
    )
    return [ln.split()[0] for ln in listed.stdout.splitlines() if str(STATE) in ln]


@dataclass
class Provisioned:
    """provision.yml twice before the run, the data disk on n1 and what report mode left alone."""

    runs: list[subprocess.CompletedProcess[str]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    disk: str | None = None  # n1's loop device
    disk_skip: str | None = None  # why n1 has no data disk here
    kernel_before: dict[str, str | None] = field(default_factory=dict)
    kernel_after: dict[str, str | None] = field(default_factory=dict)
    n1_data: subprocess.CompletedProcess[str] | None = None  # findmnt and du of n1's data over ssh
    host_view: list[str] = field(default_factory=list)  # the mount point as the host sees it
    loops_left: list[str] = field(default_factory=list)

    def output(self, index: int) -> str:
        run = self.runs[index]
        return f"--- provision run {index + 1} ---\n{run.stdout[-5000:]}\n{run.stderr[-2000:]}"


@dataclass
class Scenario:
    run: Path | None = None
    proc: subprocess.CompletedProcess[str] | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    crash: Crash = field(default_factory=Crash)
    down: subprocess.CompletedProcess[str] | None = None
    left_namespaces: list[str] = field(default_factory=list)
    left_processes: list[int] = field(default_factory=list)
    seconds: float = 0.0
    prov: Provisioned = field(default_factory=Provisioned)
    secrets: list[Finding] = field(default_factory=list)
    hbase_skip: str | None = None  # why lab 10 did not run on Apache HBase here
    hbase_proc: subprocess.CompletedProcess[str] | None = None
    hbase_run: Path | None = None
    hbase_left: list[int] = field(default_factory=list)  # HBase or HDFS JVMs the variant's stop left running

    @property
    def client(self) -> Path:
        assert self.run is not None
        return self.run / VARIANT / "client"

    def output(self) -> str:
        if self.proc is None:
            return "(heaplab did not run)"
        return f"--- stdout ---\n{self.proc.stdout[-6000:]}\n--- stderr ---\n{self.proc.stderr[-3000:]}"

    def hbase_output(self) -> str:
        if self.hbase_proc is None:
            return "(heaplab did not run)"
        p = self.hbase_proc
        return f"--- stdout ---\n{p.stdout[-6000:]}\n--- stderr ---\n{p.stderr[-3000:]}"


def _kill_and_restart(crash: Crash, stop: threading.Event, archive: Path) -> None:
    """Wait for the write phase's pe JVM, SIGKILL n2's region server, start it again over ssh."""
    client_dir = f"{STATE}/nodes/ctl/heaplab/current/client"
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while not stop.is_set() and time.monotonic() < deadline:
        pids = _pids_with("org.heaplab.tools.PerformanceEvaluation", client_dir)
        if pids:
            crash.pe_pid = pids[0]
            break
        time.sleep(0.2)
    else:
        crash.error = "the write phase's pe never started"
        return
    node = STATE / "nodes" / KILLED / "heaplab"
    data = node / "current" / "data"
    start = _bytes_under(data)
    while _bytes_under(data) - start < KILL_AFTER_BYTES:
        if stop.wait(0.1) or not _alive(crash.pe_pid):
            crash.error = f"pe ended before {KILL_AFTER_BYTES} bytes reached {KILLED}: raise the scale's rows"
            return
    crash.written_at_kill = _bytes_under(data) - start
    crash.pe_alive_at_kill = _alive(crash.pe_pid)
    if not crash.pe_alive_at_kill:
        crash.error = "pe ended before the kill: raise the scale's rows"
        return
    pid_file = node / "current" / "logs" / "regionserver.pid"
    crash.killed_pid = int(pid_file.read_text().strip())
    crash.kill_ms = time.time() * 1000
    os.kill(crash.killed_pid, signal.SIGKILL)
    while _alive(crash.killed_pid):
        time.sleep(0.05)
    time.sleep(DOWN_FOR_S)
    version = archive.name.removeprefix("heaplab-engine-").removesuffix("-bin.tar.gz")
    home = node / "engine" / f"heaplab-engine-{version}"
    work = node / "current"
    remote = (
        f"ENGINE_CONF_DIR={work}/conf ENGINE_LOG_DIR={work}/logs ENGINE_PID_DIR={work}/logs "
        f"{home}/bin/engine-daemon start regionserver"
    )
    crash.restart_ms = time.time() * 1000
    crash.restart = subprocess.run(
        ["ip", "netns", "exec", "ctl", "ssh", "-F", f"{STATE}/ssh/config", KILLED, remote],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    crash.restarted_ms = time.time() * 1000


@pytest.fixture(scope="module")
def scenario(engine_archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    started = time.monotonic()
    up = _cluster_sh("up", timeout=600)
    if up.returncode == 2:
        pytest.skip(f"cluster.sh up cannot run here: {up.stderr.strip()}")
    s = Scenario()
    stop = threading.Event()
    killer = None
    try:
        assert up.returncode == 0, f"cluster.sh up failed:\n{up.stdout}\n{up.stderr}"
        _prepare_hosts(s.prov)
        root = _lab_root(tmp_path_factory.mktemp("nsroot"), engine_archive)
        runs = root / "results" / "runs"
        killer = threading.Thread(target=_kill_and_restart, args=(s.crash, stop, engine_archive), daemon=True)
        killer.start()
        s.proc = _heaplab_run_in_ctl(root, LAB, RUN_TIMEOUT_S)
        stop.set()
        killer.join(timeout=200)
        s.run = next(iter(runs.iterdir()), None) if runs.is_dir() else None
        if s.run is not None:
            s.manifest = json.loads((s.run / "run.json").read_text(encoding="utf-8"))
        if s.prov.disk:
            data = DISK_BASE / "current" / "data"
            s.prov.n1_data = _ssh(
                DISK_NODE, f"findmnt -n -o SOURCE,FSTYPE,OPTIONS -T {data} && du -sk {data}"
            )
            s.prov.host_view = sorted(p.name for p in DISK_MOUNT.iterdir()) if DISK_MOUNT.is_dir() else []
        _run_lab10_on_apache_hbase(s, tmp_path_factory.mktemp("hbaseroot"), engine_archive)
        # Everything a run leaves, and what ansible was given (not the cluster's own ssh directory).
        given = (s.run, s.hbase_run, STATE / "inventory.yml", STATE / "host_vars")
        s.secrets = [f for p in given if p is not None and p.exists() for f in find_secrets(p)]
    finally:
        stop.set()
        if killer is not None:
            killer.join(timeout=200)
        s.down = _cluster_sh("down", timeout=300)
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout
        present = {ln.split()[0] for ln in listed.splitlines() if ln.strip()}
        s.left_namespaces = [n for n in NAMESPACES if n in present]
        s.left_processes = _pids_with(str(STATE))
        s.prov.loops_left = _our_loop_devices()
        for device in s.prov.loops_left:  # never leave a loop device behind, even when down failed
            subprocess.run(["losetup", "-d", device], check=False)
        s.seconds = time.monotonic() - started
    return s


def _heaplab_run_in_ctl(root: Path, lab: str, timeout: int, *extra: str) -> subprocess.CompletedProcess[str]:
    """`heaplab run LAB --scale ci` of the checkout ``root`` inside ctl, against the cluster's inventory."""
    cmd = [sys.executable, "-m", "heaplab", "run", lab, "--scale", "ci", *extra]
    cmd += ["--runs-dir", str(root / "results" / "runs"), "--inventory", str(STATE / "inventory.yml")]
    return subprocess.run(
        ["ip", "netns", "exec", "ctl", *cmd],
        capture_output=True,
        text=True,
        env={**os.environ, "HEAPLAB_ROOT": str(root)},
        timeout=timeout,
        check=False,
    )


def _run_lab10_on_apache_hbase(s: Scenario, tmp: Path, engine_archive: Path) -> None:
    """Lab 10's HBase variant on the cluster (HDFS, ZooKeeper, HMaster, region servers), from ctl."""
    root = _lab_root(tmp, engine_archive, lab=HBASE_LAB, spec=_hbase_lab10_spec())
    archive, why = fetched_apache_hbase()
    if archive is None:
        s.hbase_skip = why
        return
    link_apache_hbase(root)
    runs = root / "results" / "runs"
    s.hbase_proc = _heaplab_run_in_ctl(root, HBASE_LAB, HBASE_RUN_TIMEOUT_S, "--report")
    s.hbase_run = next(iter(runs.iterdir()), None) if runs.is_dir() else None
    s.hbase_left = _pids_with(str(STATE), "org.apache.hadoop")  # before cluster.sh down kills everything


def _prepare_hosts(prov: Provisioned) -> None:
    """A data disk for n1 (when a loop device can be had), then provision.yml twice."""
    disk = _cluster_sh("data-disk", DISK_NODE, DISK_MB)
    if disk.returncode == 2:
        prov.disk_skip = f"no data disk on {DISK_NODE}: {disk.stderr.strip()}"
    else:
        assert disk.returncode == 0, f"cluster.sh data-disk failed:\n{disk.stdout}\n{disk.stderr}"
        prov.disk = (STATE / "disks" / f"{DISK_NODE}.loop").read_text().strip()
    prov.kernel_before = kernel_state()
    for _ in range(2):
        began = time.monotonic()
        prov.runs.append(_provision())
        prov.seconds.append(time.monotonic() - began)
    prov.kernel_after = kernel_state()


def _lab_root(tmp: Path, archive: Path, lab: str = LAB, spec: str = SPEC) -> Path:
    """A throw-away checkout: the real playbooks, engine archive and YCSB workloads, one lab."""
    root = tmp / "repo"
    (root / "engine/dist/target").mkdir(parents=True)
    (root / "engine/dist/target" / archive.name).symlink_to(archive)
    (root / "playbooks").symlink_to(REPO / "playbooks")
    shutil.copytree(REPO / "results/published", root / "results/published")
    shutil.copyfile(REPO / "pyproject.toml", root / "pyproject.toml")
    lab_dir = root / "labs" / lab
    lab_dir.mkdir(parents=True)
    (lab_dir / "experiment.yml").write_text(spec, encoding="utf-8")
    return root


def _phase_out(s: Scenario, phase: str) -> str:
    path = s.client / f"{phase}-ctl.out"
    assert path.is_file(), f"no {path.name}\n{s.output()}"
    return path.read_text(encoding="utf-8")


def test_the_run_completes_through_the_crash(scenario: Scenario) -> None:
    s = scenario
    assert s.crash.error is None, f"{s.crash.error}\n{s.output()}"
    assert s.proc is not None and s.proc.returncode == 0, s.output()
    assert s.manifest["status"] == "complete", s.output()
    assert s.manifest["variants"][VARIANT]["status"] == "complete"
    assert s.manifest["target"] == str(STATE / "inventory.yml")


def test_the_region_server_was_killed_while_pe_wrote_and_came_back(scenario: Scenario) -> None:
    s = scenario
    assert s.crash.pe_alive_at_kill and s.crash.killed_pid is not None, s.crash
    assert s.crash.written_at_kill >= KILL_AFTER_BYTES, "n2 held acknowledged writes when it was killed"
    assert s.crash.restart is not None and s.crash.restart.returncode == 0, s.crash.restart
    assert "regionserver running as pid" in s.crash.restart.stdout
    summary = json.loads((s.client / "write-ctl.json").read_text(encoding="utf-8"))
    # The outage lies inside pe's measured window: writes were acknowledged after the restart too.
    assert summary["start_epoch_ms"] < s.crash.kill_ms < s.crash.restarted_ms < summary["end_epoch_ms"], (
        summary,
        s.crash,
    )
    log = (s.run / VARIANT / "server" / KILLED / "server.log").read_text(encoding="utf-8")
    assert log.count("region server serving on ") == 2, (
        "n2 served twice: before the kill and after the restart"
    )


def test_regions_are_spread_over_the_three_servers(scenario: Scenario) -> None:
    out = _phase_out(scenario, "regions")
    for node in ("n1", "n2", "n3"):
        assert f"{node}:" in out, f"no region on {node}:\n{out}"


def test_no_acknowledged_write_is_lost(scenario: Scenario) -> None:
    s = scenario
    summary = json.loads((s.client / "write-ctl.json").read_text(encoding="utf-8"))
    assert summary["rows"] == 3 * 12000
    counted = json.loads(_phase_out(s, "count"))
    assert counted == {"table": "TestTable", "rows": summary["rows"]}


def test_the_master_sees_every_server_online_at_the_end(scenario: Scenario) -> None:
    status = json.loads(_phase_out(scenario, "status"))
    servers = {srv["server"]: srv for srv in status["servers"]}
    assert sorted(servers) == ["n1:16020", "n2:16020", "n3:16020"], status
    assert all(srv["online"] for srv in servers.values()), status
    assert status["master"] == "n1:16000"


def test_every_host_is_recorded_and_every_server_collected(scenario: Scenario) -> None:
    s = scenario
    assert s.run is not None
    roles = {h["name"]: h["role"] for h in s.manifest["hosts"]}
    assert roles == {"ctl": "client", "n1": "master,regionserver", "n2": "regionserver", "n3": "regionserver"}
    hostnames = {h["name"]: h["hostname"] for h in s.manifest["hosts"]}
    assert hostnames["n1"] == "n1" and hostnames["n3"] == "n3", "each node runs under its own hostname"
    variant = s.run / VARIANT
    assert sorted(p.name for p in (variant / "server").iterdir()) == ["n1", "n2", "n3"]
    for node in ("n1", "n2", "n3"):
        assert (variant / "server" / node / "server.log").is_file()
    master = variant / "master" / "n1"
    assert "master serving on n1:16000" in (master / "master.log").read_text(encoding="utf-8")
    site = (master / "engine-site.xml").read_text(encoding="utf-8")
    assert "<name>hbase.cluster.distributed</name>\n    <value>true</value>" in site
    assert "<name>hbase.masters</name>\n    <value>n1:16000</value>" in site


def test_down_leaves_nothing_behind(scenario: Scenario, record_property: Any) -> None:
    s = scenario
    # The duration goes to the report (junit property and -rA output), not into an assertion.
    record_property("namespace_cluster_seconds", round(s.seconds))
    record_property("provision_seconds", [round(x, 1) for x in s.prov.seconds])
    provision = ", ".join(f"{x:.0f} s" for x in s.prov.seconds)
    print(f"namespace cluster scenario: {s.seconds:.0f} s (provision.yml runs: {provision})")
    assert s.down is not None and s.down.returncode == 0, s.down
    assert s.left_namespaces == []
    assert s.left_processes == []
    assert s.prov.loops_left == [], "cluster.sh down detaches the data disk's loop device"
    assert not STATE.exists()
    assert not any(Path("/etc/netns", n).exists() for n in NAMESPACES)


def test_metrics_are_collected_from_every_region_server(scenario: Scenario) -> None:
    paths = report_paths(scenario.client, "metrics")
    assert [p.name for p in paths] == ["metrics-ctl@n1.json", "metrics-ctl@n2.json", "metrics-ctl@n3.json"]
    merged = load_phase_report(paths)  # heaplab's reading of the phase: the three servers summed
    assert merged.heap_max == sum(json.loads(p.read_text())["heap"]["max_bytes"] for p in paths)


def test_provision_prepares_every_host_and_a_second_run_changes_nothing(scenario: Scenario) -> None:
    prov = scenario.prov
    assert len(prov.runs) == 2
    assert prov.runs[0].returncode == 0, prov.output(0)
    assert prov.runs[1].returncode == 0, prov.output(1)
    first, second = _recap(prov.runs[0].stdout), _recap(prov.runs[1].stdout)
    assert sorted(first) == sorted(HOSTS) == sorted(second)
    assert all(counts["failed"] == 0 and counts["unreachable"] == 0 for counts in first.values())
    assert {host: counts["changed"] for host, counts in second.items()} == dict.fromkeys(HOSTS, 0), (
        prov.output(1)
    )
    if prov.disk:
        # Only n1 had a disk to format: the first run formatted and mounted it, the second did not.
        assert first[DISK_NODE]["changed"] > first["n2"]["changed"], prov.output(0)


def test_report_mode_left_the_kernel_alone(scenario: Scenario) -> None:
    prov = scenario.prov
    assert prov.kernel_before and prov.kernel_after == prov.kernel_before
    for path in WRITTEN_BY_APPLY:
        assert prov.kernel_after[path] == prov.kernel_before[path], f"report mode wrote {path}"
    swappiness = int(prov.kernel_before["/proc/sys/vm/swappiness"] or -1)
    for host in scenario.manifest["hosts"]:
        assert host["os_settings"]["vm.swappiness"] == swappiness, host


def test_n1_data_lived_on_its_data_disk(scenario: Scenario) -> None:
    prov = scenario.prov
    if prov.disk_skip:
        pytest.skip(prov.disk_skip)
    assert prov.n1_data is not None and prov.n1_data.returncode == 0, prov.n1_data
    mount_line, du_line = prov.n1_data.stdout.splitlines()[:2]
    source, fstype, options = mount_line.split()
    assert (source, fstype) == (prov.disk, "ext4"), mount_line
    assert "noatime" in options.split(",")
    assert int(du_line.split()[0]) > 0, "the region server's data directory is on the disk and not empty"
    # The mount lived in n1's mount namespace only: the host sees an empty mount point.
    assert prov.host_view == [], prov.host_view
    record = next(h for h in scenario.manifest["hosts"] if h["name"] == DISK_NODE)
    assert record["disk"]["device"] == prov.disk and record["disk"]["mount"] == str(DISK_MOUNT), record[
        "disk"
    ]


def test_no_secret_in_the_run_or_the_inventory(scenario: Scenario) -> None:
    assert scenario.run is not None
    assert scenario.secrets == [], "\n".join(map(str, scenario.secrets))
    assert scenario.manifest["secrets_check"] == {"clean": True, "findings": []}


# --- lab 10 on a real distributed Apache HBase (HDFS, ZooKeeper, HMaster, three region servers) ---


def _hbase(s: Scenario) -> Path:
    if s.hbase_skip:
        pytest.skip(s.hbase_skip)
    assert s.hbase_proc is not None and s.hbase_run is not None, s.hbase_output()
    return s.hbase_run


def test_lab10_runs_on_a_distributed_apache_hbase(scenario: Scenario) -> None:
    s = scenario
    run = _hbase(s)
    assert s.hbase_proc is not None and s.hbase_proc.returncode == 0, s.hbase_output()
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "complete" and manifest["variants"][HBASE_VARIANT]["status"] == "complete"
    conf = (run / HBASE_VARIANT / "conf" / "hbase-site.xml").read_text(encoding="utf-8")
    assert "<name>hbase.cluster.distributed</name><value>true</value>" in conf
    assert "<name>hbase.rootdir</name><value>hdfs://n1:8020/hbase</value>" in conf
    hdfs = (run / HBASE_VARIANT / "conf" / "hdfs-site.xml").read_text(encoding="utf-8")
    assert "<name>dfs.replication</name><value>2</value>" in hdfs


def test_every_ycsb_operation_on_the_hbase_cluster_succeeded(scenario: Scenario) -> None:
    run = _hbase(scenario)
    spec = yaml.safe_load(_hbase_lab10_spec())
    ycsb = [p["name"] for p in spec["phases"] if p["tool"] == "ycsb"]
    for phase in ycsb:
        path = run / HBASE_VARIANT / "client" / f"{phase}-ctl.json"
        assert path.is_file(), (phase, scenario.hbase_output())
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert summary["operations"] > 0 and not summary.get("failed"), (phase, summary.get("failed"))
        assert sum(o["operations"] for o in summary["ops"].values()) == summary["operations"], phase


def test_every_hbase_daemon_log_is_collected(scenario: Scenario) -> None:
    run = _hbase(scenario)
    variant = run / HBASE_VARIANT
    for node in ("n1", "n2", "n3"):  # a DataNode and a region server on each
        names = {p.name for p in (variant / "server" / node).iterdir()}
        # GC logs travel gzipped, as every server's (run_collect)
        assert {
            "regionserver.log",
            "gc-regionserver.log.gz",
            "datanode.log",
            "gc-datanode.log.gz",
        } <= names, (
            node,
            names,
        )
        log = (variant / "server" / node / "regionserver.log").read_text(encoding="utf-8", errors="replace")
        # it registered with HMaster, which gave it a region of the pre-split YCSB table
        assert "Opened usertable," in log, node
    master = {p.name for p in (variant / "master" / "n1").iterdir()}
    assert {"master.log", "namenode.log", "zookeeper.log"} <= master, master


def test_the_variants_stop_left_no_hbase_daemon_running(scenario: Scenario) -> None:
    _hbase(scenario)
    assert scenario.hbase_left == [], "HDFS, ZooKeeper or HBase processes outlived the variant"
