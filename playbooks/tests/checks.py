"""Assertions on a collected variant directory (contracts.md section 5)."""

import fnmatch
import json
import tarfile
from pathlib import Path
from xml.parsers import expat


def assert_host_record(run_dir, host):
    record = json.loads((run_dir / "hosts" / f"{host}.json").read_text())
    assert record["name"] == host
    assert set(record["roles"]) == {"regionserver", "client"}
    assert record["cores"] > 0
    assert record["memory_mb"] > 0
    assert record["cpu_model"] and record["cpu_model"] != "unknown"
    assert record["kernel"]
    # The DMI product name (the instance type on EC2), as the kernel exposes it; "NA" where it has none.
    dmi = Path("/sys/devices/virtual/dmi/id/product_name")
    assert record["machine"] == (dmi.read_text().strip() if dmi.is_file() else "NA")
    assert record["disk"]["mount"] and record["disk"]["device"]
    assert record["jdk"] and record["jdk"] != "not found"
    # The OS settings the run ran with (os_settings role's reader): the local host's own kernel values.
    settings = record["os_settings"]
    assert settings["vm.swappiness"] == int(Path("/proc/sys/vm/swappiness").read_text())
    paranoid = int(Path("/proc/sys/kernel/perf_event_paranoid").read_text())
    assert settings["kernel.perf_event_paranoid"] == paranoid
    assert isinstance(settings["nofile.soft"], int) or settings["nofile.soft"] == "unlimited"
    return record


def site_properties(text):
    """name -> value of the <property> elements of an engine-site.xml (comments ignored)."""
    properties, current, path = {}, {}, []
    parser = expat.ParserCreate()

    def start(tag, _attrs):
        path.append(tag)
        if tag == "property":
            current.clear()

    def end(tag):
        path.pop()
        if tag == "property":
            properties[current.get("name", "").strip()] = current.get("value", "")

    def data(chunk):
        if path and path[-1] in {"name", "value"}:
            current[path[-1]] = current.get(path[-1], "") + chunk

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    parser.Parse(text, True)
    return properties


def dist_files(archive, pattern):
    """name -> text of the files of the distribution archive whose path matches pattern (fnmatch)."""
    with tarfile.open(archive) as tar:
        return {
            member.name.split("/", 1)[1]: tar.extractfile(member).read().decode()
            for member in tar.getmembers()
            if member.isfile() and fnmatch.fnmatch(member.name, pattern)
        }


def assert_conf(variant_dir, port, server_flags):
    site = site_properties((variant_dir / "conf" / "engine-site.xml").read_text())
    assert site["hbase.regionserver.port"] == str(port)
    assert "hbase.rootdir" in site
    jvm = (variant_dir / "conf" / "jvm.options").read_text().splitlines()
    assert [line for line in jvm if not line.startswith("#")] == server_flags
    return site


def assert_server_files(variant_dir, host):
    """server.log and the GC log are non-empty; every gc-events.jsonl line is a pause record.

    A short run may see no GC pause at all, so gc-events.jsonl may be empty.
    """
    server = variant_dir / "server" / host
    assert (server / "server.log").stat().st_size > 0
    assert (server / "gc-regionserver.log").stat().st_size > 0
    events = [json.loads(line) for line in (server / "gc-events.jsonl").read_text().splitlines() if line]
    for event in events:
        assert {"start_epoch_ms", "duration_ms", "collector"} <= event.keys()
        assert event["duration_ms"] >= 0
    return server


def assert_pe_phase(variant_dir, phase, host, rows):
    client = variant_dir / "client"
    summary = json.loads((client / f"{phase}-{host}.json").read_text())
    assert summary["rows"] == rows
    assert (client / f"{phase}-{host}.hlog").stat().st_size > 0
    assert (client / f"{phase}-{host}.out").stat().st_size > 0
    assert (client / f"gc-{phase}-{host}.log").stat().st_size > 0
    return summary
