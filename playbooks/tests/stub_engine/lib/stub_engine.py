"""Contract stub of the HeapLab engine (docs/contracts.md sections 1-4), for the playbook tests.

Implements what the playbooks rely on, without a JVM: `regionserver` (a TCP server on
hbase.regionserver.hostname:port that logs server.log, gc-regionserver.log and gc-events.jsonl and
stops cleanly on SIGTERM), `admin` and `pe` (which need the server, write the --report files and
print a summary), errors as one `ERROR:` line with exit 2 (usage) or 1 (runtime).
"""

import json
import os
import re
import signal
import socket
import sys
import time
from pathlib import Path

LOG_DIR = Path(os.environ.get("ENGINE_LOG_DIR", "."))
CONF_DIR = Path(os.environ.get("ENGINE_CONF_DIR", "."))
PE_FLAGS = {
    "nomapred",
    "oneCon",
    "valueSize",
    "rows",
    "autoFlush",
    "presplit",
    "multiPut",
    "table",
    "compress",
    "report",
}
PE_COMMANDS = {
    "sequentialWrite": "SequentialWriteTest",
    "randomWrite": "RandomWriteTest",
    "randomRead": "RandomReadTest",
}


def fail(message, code):
    print(f"ERROR: {message}", file=sys.stderr)
    sys.exit(code)


def site():
    # The playbook writes one <name> and one <value> per <property>; a regex reads that back.
    text = (CONF_DIR / "engine-site.xml").read_text(encoding="utf-8")
    pairs = re.findall(r"<name>(.*?)</name>\s*<value>(.*?)</value>", text, re.DOTALL)
    return {name.strip(): value for name, value in pairs}


def address():
    conf = site()
    return conf.get("hbase.regionserver.hostname", "localhost"), int(
        conf.get("hbase.regionserver.port", "16020")
    )


def gc_log(command, line):
    with (LOG_DIR / f"gc-{command}.log").open("a", encoding="utf-8") as out:
        out.write(f"[{time.time():.3f}s][info][gc] {line}\n")


def call(request):
    try:
        with socket.create_connection(address(), timeout=5) as conn:
            conn.sendall((request + "\n").encode())
            return conn.makefile().readline().strip()
    except OSError as err:
        fail(f"server not running at {address()}: {err}", 1)
        return None


def regionserver():
    conf = site()
    log = (LOG_DIR / "server.log").open("a", encoding="utf-8", buffering=1)  # open until the process exits
    log.write(f"starting; ENGINE_OPTS={os.environ.get('ENGINE_OPTS', '')}\n")
    log.write("site " + json.dumps(conf, sort_keys=True) + "\n")
    Path(conf.get("hbase.rootdir", "data")).mkdir(parents=True, exist_ok=True)
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        server.bind(address())
    except OSError as err:
        log.write(f"ERROR: cannot bind {address()}: {err}\n")
        sys.exit(1)
    server.listen(16)
    gc_log("regionserver", "Using G1")
    events = Path(conf.get("heaplab.gc.events.file") or LOG_DIR / "gc-events.jsonl")

    def stop(_signum, _frame):
        log.write("stopping: memstores flushed, WAL closed\n")
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    log.write(f"listening on {address()}\n")
    start = time.time()
    while True:
        conn, _ = server.accept()
        with conn:
            request = conn.makefile().readline().strip()
            log.write(f"request {request}\n")
            with events.open("a", encoding="utf-8") as out:
                out.write(
                    json.dumps(
                        {
                            "start_epoch_ms": int(time.time() * 1000),
                            "uptime_ms": int((time.time() - start) * 1000),
                            "collector": "G1 Young Generation",
                            "action": "end of minor GC",
                            "cause": "G1 Evacuation Pause",
                            "duration_ms": 1,
                            "heap_before_bytes": 2048,
                            "heap_after_bytes": 1024,
                            "young": True,
                        }
                    )
                    + "\n"
                )
            gc_log("regionserver", "Pause Young (Normal) (G1 Evacuation Pause) 2M->1M(8M) 1.000ms")
            conn.sendall(b"OK\n")


def admin(args):
    if not args or args[0] not in {"create", "drop", "flush", "compact", "regions", "status"}:
        fail(f"unknown admin command {args[:1]}", 2)
    gc_log("admin", "Using G1")
    print(call("admin " + " ".join(args)))


def pe(args):
    flags, positional = {}, []
    for arg in args:
        if arg.startswith("--"):
            name, _, value = arg[2:].partition("=")
            if name not in PE_FLAGS:
                fail(f"unknown flag --{name}", 2)
            flags[name] = value
        else:
            positional.append(arg)
    if len(positional) != 2 or positional[0] not in PE_COMMANDS or not positional[1].isdigit():
        fail("usage: pe [flags] <sequentialWrite|randomWrite|randomRead> <nclients>", 2)
    command, threads = positional[0], int(positional[1])
    rows_per_thread = int(flags.get("rows", "1024"))
    gc_log("pe", "Using G1")
    start = time.time()
    call(f"pe {command} {threads}")
    end = time.time()
    rows = rows_per_thread * threads
    duration_ms = max((end - start) * 1000, 0.001)
    summary = {
        "format": 1,
        "tool": "pe",
        "command": command,
        "args": " ".join(args),
        "test": PE_COMMANDS[command],
        "threads": threads,
        "rows_per_thread": rows_per_thread,
        "value_size": int(flags.get("valueSize", "1000")),
        "batch_size": int(flags.get("multiPut", "1") or 1),
        "operations": rows,
        "rows": rows,
        "duration_ms": duration_ms,
        "throughput": rows / duration_ms * 1000,
        "latency_us": dict.fromkeys(("mean", "min", "p50", "p75", "p95", "p99", "p999", "p9999", "max"), 10),
        "start_epoch_ms": int(start * 1000),
        "end_epoch_ms": int(end * 1000),
    }
    if "report" in flags:
        prefix = Path(flags["report"])
        summary["hlog"] = prefix.name + ".hlog"
        prefix.with_name(prefix.name + ".json").write_text(json.dumps(summary), encoding="utf-8")
        header = '"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"'
        prefix.with_name(prefix.name + ".hlog").write_text(
            f"#[StartTime: {start:.3f}]\n{header}\n", encoding="utf-8"
        )
    print(f"Finished class {PE_COMMANDS[command]} in {int(duration_ms)}ms at offset 0 for {rows} rows")
    print("Summary of timings (microseconds): mean=10, 99th=10, 99.9th=10")


def ping():
    with socket.create_connection(address(), timeout=1) as conn:
        conn.sendall(b"ping\n")
        conn.makefile().readline()


def main(argv):
    if not argv:
        fail("usage: engine regionserver|admin|pe [args]", 2)
    command, args = argv[0], argv[1:]
    if command == "regionserver":
        regionserver()
    elif command == "admin":
        admin(args)
    elif command == "pe":
        pe(args)
    elif command == "ping":
        ping()
    else:
        fail(f"unknown command {command}", 2)


if __name__ == "__main__":
    main(sys.argv[1:])
