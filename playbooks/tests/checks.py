"""Assertions on a collected variant directory (contracts.md section 5), for the stub and engine runs."""

import json


def assert_host_record(run_dir, host):
    record = json.loads((run_dir / "hosts" / f"{host}.json").read_text())
    assert record["name"] == host
    assert set(record["roles"]) == {"regionserver", "client"}
    assert record["cores"] > 0
    assert record["memory_mb"] > 0
    assert record["cpu_model"] and record["cpu_model"] != "unknown"
    assert record["kernel"]
    assert record["disk"]["mount"] and record["disk"]["device"]
    assert record["jdk"] and record["jdk"] != "not found"
    return record


def assert_conf(variant_dir, port, server_flags):
    site = (variant_dir / "conf" / "engine-site.xml").read_text()
    assert f"<name>hbase.regionserver.port</name>\n    <value>{port}</value>" in site
    assert "<name>hbase.rootdir</name>" in site
    jvm = (variant_dir / "conf" / "jvm.options").read_text().splitlines()
    assert [line for line in jvm if not line.startswith("#")] == server_flags
    return site


def assert_server_files(variant_dir, host, require_events=True):
    """server.log and the GC log are non-empty; every gc-events.jsonl line is a pause record.

    A short real run may see no GC pause at all, so only the stub requires events.
    """
    server = variant_dir / "server" / host
    assert (server / "server.log").stat().st_size > 0
    assert (server / "gc-regionserver.log").stat().st_size > 0
    events = [json.loads(line) for line in (server / "gc-events.jsonl").read_text().splitlines() if line]
    assert events or not require_events, "gc-events.jsonl is empty"
    for event in events:
        assert {"start_epoch_ms", "duration_ms", "collector"} <= event.keys()
    return server


def assert_pe_phase(variant_dir, phase, host, rows):
    client = variant_dir / "client"
    summary = json.loads((client / f"{phase}-{host}.json").read_text())
    assert summary["rows"] == rows
    assert (client / f"{phase}-{host}.hlog").stat().st_size > 0
    assert (client / f"{phase}-{host}.out").stat().st_size > 0
    assert (client / f"gc-{phase}-{host}.log").stat().st_size > 0
    return summary
