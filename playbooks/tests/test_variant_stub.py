"""variant.yml end to end on the local inventory against the contract stub engine (no JVM needed).

The stub (tests/stub_engine) has the real distribution's layout, commands, environment and output
files, so these tests exercise deploy, configuration, start, phases, failures, stop and collection.
"""

import socket

from playbooks.tests.checks import assert_conf, assert_host_record, assert_pe_phase, assert_server_files


def test_variant_collects_everything(stub_archive, variant_run):
    run = variant_run(stub_archive)
    result = run.run()
    assert result.returncode == 0, run.output()

    assert_host_record(run.run_dir, run.host)
    site = assert_conf(run.variant_dir, run.port, run.vars["heaplab_server_jvm_flags"])
    # Profile over defaults, overrides over the profile, the playbook's rootdir and hostname.
    assert "<name>heaplab.stub.profile</name>\n    <value>hbase1-onheap</value>" in site
    assert "<name>hbase.regionserver.handler.count</name>\n    <value>4</value>" in site
    assert "<name>hfile.block.cache.size</name>\n    <value>0.4</value>" in site
    assert f"<value>{run.base_dir}/current/data</value>" in site
    assert "<name>hbase.regionserver.hostname</name>\n    <value>localhost</value>" in site

    server = assert_server_files(run.variant_dir, run.host)
    server_log = (server / "server.log").read_text()
    assert "ENGINE_OPTS=-Xms64m -Xmx64m -XX:+UseG1GC" in server_log, (
        "the server did not start with jvm.options"
    )
    assert "request admin create TestTable" in server_log
    assert "stopping: memstores flushed" in server_log, "the server was not stopped with SIGTERM"

    assert_pe_phase(run.variant_dir, "single_put", run.host, rows=400)
    assert (run.variant_dir / "client" / "create-localhost.out").read_text().strip() == "OK"
    assert run.leftover_processes() == []


def test_second_run_redeploys_nothing_and_starts_fresh(stub_archive, variant_run):
    run = variant_run(stub_archive)
    assert run.run().returncode == 0, run.output()
    marker = run.base_dir / "current" / "data" / "left-by-first-run"
    marker.write_text("x")
    result = run.run()
    assert result.returncode == 0, run.output()
    assert "TASK [engine_deploy : Unpack the engine]" in result.stdout
    unpack = result.stdout.split("TASK [engine_deploy : Unpack the engine]")[1].split("TASK [")[0]
    assert "skipping" in unpack, unpack
    assert not marker.exists(), "the data directory of the previous run was not wiped"


def test_failing_phase_fails_the_play_but_stops_and_collects(stub_archive, variant_run):
    run = variant_run(stub_archive)
    run.vars["heaplab_phases"].append(
        {"name": "broken", "tool": "pe", "args": "--bogusFlag=1 randomWrite 2", "record": True}
    )
    run.vars["heaplab_phases"].append(
        {"name": "never", "tool": "pe", "args": "--rows=10 randomWrite 1", "record": True}
    )
    result = run.run()
    assert result.returncode != 0, run.output()
    assert "ERROR: unknown flag --bogusFlag" in run.flat_stdout(), "the phase's stderr tail is not shown"
    assert "Variant hbase1-onheap failed on localhost at" in run.flat_stdout()

    client = run.variant_dir / "client"
    assert_pe_phase(run.variant_dir, "single_put", run.host, rows=400)
    assert "unknown flag" in (client / "broken-localhost.err").read_text()
    assert not (client / "never-localhost.out").exists(), "phases after the failing one must not run"
    server = assert_server_files(run.variant_dir, run.host)
    assert "stopping: memstores flushed" in (server / "server.log").read_text()
    assert run.leftover_processes() == []


def test_server_that_does_not_start_fails_with_its_log(stub_archive, variant_run):
    run = variant_run(stub_archive)
    with socket.socket() as squatter:
        squatter.bind(("localhost", run.port))
        squatter.listen(1)
        result = run.run()
    assert result.returncode != 0, run.output()
    assert "did not start" in run.flat_stdout()
    assert "cannot bind" in run.flat_stdout(), "the server log's tail is not shown"
    assert "cannot bind" in (run.variant_dir / "server" / run.host / "server.log").read_text()
    assert not (run.variant_dir / "client" / "create-localhost.out").exists(), "no phase may run"
    assert (run.variant_dir / "conf" / "engine-site.xml").exists()
    assert run.leftover_processes() == []


def test_unknown_profile_names_the_available_ones(stub_archive, variant_run):
    run = variant_run(stub_archive)
    run.vars["heaplab_profile"] = "no-such-profile"
    result = run.run()
    assert result.returncode != 0, run.output()
    out = run.flat_stdout()
    assert "Profile 'no-such-profile' is not in" in out
    assert "the distribution has: hbase1-onheap" in out


def test_missing_extra_vars_are_reported(stub_archive, variant_run):
    run = variant_run(stub_archive)
    del run.vars["heaplab_profile"]
    result = run.run()
    assert result.returncode != 0
    assert "needs the extra vars of contracts.md section 5" in run.flat_stdout()
