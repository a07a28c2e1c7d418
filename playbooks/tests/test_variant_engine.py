"""variant.yml end to end on the local inventory against the real engine distribution.

Skips (saying why) when engine/dist/target/heaplab-engine-*-bin.tar.gz has not been built.

Two plays share one base directory and are read by several tests each (module-scoped fixtures):
the first runs a variant that succeeds, the second reuses its deployed engine and working
directory and runs a phase that fails. The other tests run plays that fail before any phase.
"""

import re
import socket
import time

import pytest

from playbooks.tests.checks import (
    assert_conf,
    assert_host_record,
    assert_pe_phase,
    assert_server_files,
    dist_files,
    site_properties,
)
from playbooks.tests.support import VariantRun, kill_processes_mentioning

UNPACK = "engine_deploy : Unpack the engine"
STOPPING = "INFO  [shutdown] stopping: finishing in-flight calls, flushing memstores, closing the WAL"
STOPPED = "INFO  [shutdown] stopped"
# Values the playbook owns (rootdir, hostname) must beat the variant's overrides.
SITE_ROOTDIR = "/nonexistent/rootdir-from-heaplab_site"
SITE_HOSTNAME = "hostname-from-heaplab-site.invalid"


def data_files(base_dir):
    data = base_dir / "current" / "data"
    return sorted(str(path.relative_to(data)) for path in data.rglob("*") if path.is_file())


@pytest.fixture(scope="module")
def first_run(engine_dist, tmp_path_factory):
    """A variant that succeeds: the admin create and a tiny pe phase, overrides on top of the profile."""
    run = VariantRun(tmp_path_factory.mktemp("first"), engine_dist)
    run.vars["heaplab_site"].update(
        {"hbase.rootdir": SITE_ROOTDIR, "hbase.regionserver.hostname": SITE_HOSTNAME}
    )
    try:
        run.run()
        # What the stop left in the working directory; the second run wipes it.
        run.data_after = data_files(run.base_dir)
        run.pid_file_after = (run.base_dir / "current" / "logs" / "regionserver.pid").exists()
        run.processes_after = run.leftover_processes()
        yield run
    finally:
        kill_processes_mentioning(str(run.base_dir))


@pytest.fixture(scope="module")
def second_run(first_run, tmp_path_factory):
    """A second variant in the first one's base directory; its third phase fails."""
    assert first_run.result.returncode == 0, first_run.output()
    marker = first_run.base_dir / "current" / "data" / "left-by-first-run"
    marker.write_text("x")
    run = VariantRun(tmp_path_factory.mktemp("second"), first_run.archive, base_dir=first_run.base_dir)
    run.vars["heaplab_phases"] = [
        {"name": "create", "tool": "admin", "args": "create TestTable", "record": False},
        {"name": "small_put", "tool": "pe", "args": "--nomapred --rows=20 randomWrite 1", "record": True},
        {"name": "broken", "tool": "pe", "args": "--bogusFlag=1 randomWrite 2", "record": True},
        {"name": "never", "tool": "pe", "args": "--nomapred --rows=10 randomWrite 1", "record": True},
    ]
    try:
        run.run()
        run.marker_survived = marker.exists()
        run.data_after = data_files(run.base_dir)
        run.processes_after = run.leftover_processes()
        yield run
    finally:
        kill_processes_mentioning(str(run.base_dir))


def server_log_lines(run):
    return (run.variant_dir / "server" / run.host / "server.log").read_text().splitlines()


def assert_stopped_cleanly(run):
    """engine-daemon stop sent SIGTERM: the server logged its shutdown and flushed the memstore."""
    lines = server_log_lines(run)
    stopping = [i for i, line in enumerate(lines) if line.endswith(STOPPING)]
    assert stopping, f"the server did not log a SIGTERM shutdown:\n{lines[-10:]}"
    assert lines[-1].endswith(STOPPED), f"the server's last line is not its stop:\n{lines[-10:]}"
    # The rows written were far below the flush size: only the shutdown flush writes a store file,
    # and a closed WAL is removed. A killed server would leave the WAL and no store file.
    assert [f for f in run.data_after if re.fullmatch(r"data/TestTable/[^/]+/info0/[^/]+\.sf", f)], (
        run.data_after
    )
    assert not [f for f in run.data_after if f.startswith("WALs/")], run.data_after
    assert run.processes_after == [], "a server process outlived the play"


def test_variant_succeeds_and_collects_everything(first_run):
    run = first_run
    assert run.result.returncode == 0, run.output()
    record = assert_host_record(run.run_dir, run.host)
    assert record["jdk"].split()[0] in {"openjdk", "java"}
    assert_conf(run.variant_dir, run.port, run.vars["heaplab_server_jvm_flags"])
    assert_server_files(run.variant_dir, run.host)
    created = (run.variant_dir / "client" / "create-localhost.out").read_text()
    assert created.startswith("created table TestTable"), created
    summary = assert_pe_phase(run.variant_dir, "single_put", run.host, rows=400)
    assert summary["command"] == "randomWrite"
    assert summary["threads"] == 2
    assert "changed" in run.task_output(UNPACK), "the first run did not unpack the engine"


def test_configuration_merges_defaults_profile_overrides_then_owned_keys(first_run, engine_dist):
    """engine-site.xml = distribution defaults < profile < heaplab_site < rootdir and hostname."""
    conf = dist_files(engine_dist, "*/conf/engine-site.xml")
    profile = dist_files(engine_dist, "*/conf/profiles/hbase1-onheap.xml")
    defaults = site_properties(conf["conf/engine-site.xml"])
    profile = site_properties(profile["conf/profiles/hbase1-onheap.xml"])
    overrides = {name: str(value) for name, value in first_run.vars["heaplab_site"].items()}
    owned = {
        "hbase.rootdir": f"{first_run.base_dir}/current/data",
        "hbase.regionserver.hostname": "localhost",
    }
    site = site_properties((first_run.variant_dir / "conf" / "engine-site.xml").read_text())
    assert site == defaults | profile | overrides | owned
    # The parts of that merge the distribution's files let one see:
    assert site["hbase.ipc.max.request.size"] == defaults["hbase.ipc.max.request.size"]  # defaults only
    assert site["hbase.rpc.server.impl"] == "SimpleRpcServer"  # the profile only (HBase 1.x's server)
    assert profile["hbase.regionserver.handler.count"] == "30"
    assert site["hbase.regionserver.handler.count"] == "4"  # the override beats the profile
    assert site["hbase.rootdir"] != SITE_ROOTDIR
    assert site["hbase.regionserver.hostname"] != SITE_HOSTNAME


def test_server_runs_with_the_merged_configuration(first_run):
    lines = "\n".join(server_log_lines(first_run))
    assert f"data {first_run.base_dir}/current/data, pid" in lines
    assert f"region server serving on localhost:{first_run.port} with 4 handlers (SimpleRpcServer)" in lines


def test_jvm_flags_reach_the_server_and_the_client(first_run):
    # -Xms64m -Xmx128m -XX:+UseG1GC for the server (the distribution's own jvm.options says 1g).
    server_gc = (first_run.variant_dir / "server" / first_run.host / "gc-regionserver.log").read_text()
    assert "[info][gc] Using G1" in server_gc
    assert "Heap Initial Capacity: 64M" in server_gc
    assert "Heap Max Capacity: 128M" in server_gc
    client_gc = (first_run.variant_dir / "client" / "gc-single_put-localhost.log").read_text()
    assert "Heap Max Capacity: 128M" in client_gc


def test_server_is_stopped_with_sigterm(first_run):
    assert first_run.result.returncode == 0, first_run.output()
    assert_stopped_cleanly(first_run)
    assert not first_run.pid_file_after, "engine-daemon stop left the pid file"


def test_second_run_skips_the_unpack_and_wipes_the_previous_data(second_run):
    unpack = second_run.task_output(UNPACK)
    assert unpack is not None, second_run.output()
    assert "skipping" in unpack, unpack
    assert not second_run.marker_survived, "the data directory of the previous run was not wiped"


def test_failing_phase_fails_the_play_with_its_stderr_tail(second_run):
    run = second_run
    assert run.result.returncode != 0, run.output()
    out = run.flat_stdout()
    assert "Phase broken on localhost exited 2:" in out, run.output()
    assert "ERROR: unknown flag --bogusFlag" in out, "the phase's stderr tail is not shown"
    assert "Variant hbase1-onheap failed on localhost at" in out
    client = run.variant_dir / "client"
    assert (client / "broken-localhost.err").read_text().startswith("ERROR: unknown flag --bogusFlag")
    assert run.task_output("engine_workload : Run phase never") is None, "a phase after the failure ran"
    assert not (client / "never-localhost.out").exists(), "phases after the failing one must not run"


def test_failing_phase_still_stops_the_server_and_collects(second_run):
    run = second_run
    assert_stopped_cleanly(run)
    assert_server_files(run.variant_dir, run.host)
    assert (run.variant_dir / "conf" / "engine-site.xml").exists()
    assert (run.variant_dir / "client" / "create-localhost.out").read_text().startswith("created table")
    assert_pe_phase(run.variant_dir, "small_put", run.host, rows=20)


def test_server_that_cannot_start_fails_with_its_log(engine_dist, variant_run):
    run = variant_run(engine_dist)
    # A listening squatter that accepts and never answers: engine-daemon must not mistake it for the
    # server (it waits for its own server's "serving" log line, not for the port to answer).
    with socket.socket() as squatter:
        squatter.bind(("localhost", run.port))
        squatter.listen(8)
        started = time.monotonic()
        result = run.run()
        took = time.monotonic() - started
    assert took < 120, f"a failed start took {took:.0f} s"
    assert result.returncode != 0, run.output()
    out = run.flat_stdout()
    in_use = f"ERROR: port {run.port} on localhost is already in use"
    assert "The region server on localhost did not start" in out, run.output()
    # The playbook's own server.log section (engine-daemon's message quotes the log too).
    shown = out.split(f"server.log ({run.base_dir}/current/logs/server.log):", 1)
    assert len(shown) == 2, run.output()
    assert in_use in shown[1].split("TASK [", 1)[0], "the server log's tail is not shown"
    server_log = (run.variant_dir / "server" / run.host / "server.log").read_text()
    assert in_use in server_log
    assert STOPPING not in server_log
    assert run.task_output("engine_workload : Run phase create") is None, "no phase may run"
    assert not (run.variant_dir / "client" / "create-localhost.out").exists(), "no phase may run"
    assert (run.variant_dir / "conf" / "engine-site.xml").exists()
    assert not (run.base_dir / "current" / "logs" / "regionserver.pid").exists()
    assert run.leftover_processes() == []


def test_unknown_profile_names_the_available_ones(engine_dist, variant_run):
    run = variant_run(engine_dist)
    run.vars["heaplab_profile"] = "no-such-profile"
    result = run.run()
    assert result.returncode != 0, run.output()
    profiles = dist_files(engine_dist, "*/conf/profiles/*.xml")
    shipped = sorted(name.rsplit("/", 1)[1].removesuffix(".xml") for name in profiles)
    assert shipped, "the distribution ships no profile"
    out = run.flat_stdout()
    assert "Profile 'no-such-profile' is not in" in out, run.output()
    assert f"the distribution has: {', '.join(shipped)}" in out
    assert not (run.variant_dir / "conf" / "engine-site.xml").exists()


def test_missing_extra_vars_are_reported(engine_dist, variant_run):
    run = variant_run(engine_dist)
    del run.vars["heaplab_profile"]
    result = run.run()
    assert result.returncode != 0
    assert "needs the extra vars of contracts.md section 5" in run.flat_stdout(), run.output()
