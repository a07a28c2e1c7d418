"""Errors the servers logged during a run, from each variant's ``server/<host>/server.log``.

A server that hit an error may have measured something else than the variant says: a block cache whose
eviction thread died stops caching, and its hit ratio, disk reads and latencies are those of a frozen
cache. The report lists such errors per variant so that nobody reads a verdict without seeing them.

What counts as an error line:
  engine (java.util.logging)  ``SEVERE: ...``
  engine (its server log)     ``<time> ERROR [thread] ...`` (a full disk under hbase.rootdir, a failed close)
  Apache HBase (log4j)        `` ERROR `` or `` FATAL `` before the region server starts stopping (HBase
                              logs a ZooKeeper error while it shuts down after the measurements; noise),
                              but for the ZooKeeper lines HBase 1.4 logs about nothing (_BENIGN and
                              _BENIGN_CAUSED)
  any JVM                     ``Exception in thread "..."``: an uncaught exception ended a thread
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from heaplab.runfiles.rundir import Run

SERVER_LOG = "server.log"
_ENGINE_ERROR = re.compile(r"^SEVERE: |^Exception in thread ")
_LOG4J_ERROR = re.compile(r"^\S+ \S+ (ERROR|FATAL) +\[[^]]*\] ")  # date time LEVEL [thread] logger: message
_SERVER_LOG_ERROR = re.compile(r"^\S+ ERROR \[[^]]*\] ")  # engine ServerLog: time ERROR [thread] message
_HBASE_STOPPING = ("***** STOPPING region server", "Shutdown hook starting")
# ERROR lines that say nothing about the measurements: the ZooKeeper 3.4 inside HBase 1.4's standalone server
# logs this at every start (its MiniZooKeeperCluster starts the server without a shutdown handler).
_BENIGN = ("server.ZooKeeperServer: ZKShutdownHandler is not registered",)
# (ERROR line, the exception on the next line): its ZooKeeper 3.4 answers the close of a client's session
# after the client has closed the socket (a pe client ending its phase), and logs the cancelled key at
# ERROR (ZOOKEEPER-1237); the same line with another exception still counts.
_BENIGN_CAUSED = (("server.NIOServerCnxn: Unexpected Exception:", "java.nio.channels.CancelledKeyException"),)
_DIGITS = re.compile(r"\d+")
SHOWN = 3  # distinct messages shown per variant


@dataclass
class ServerErrors:
    """The error lines of one variant's servers: how many, and the distinct messages in first-seen order."""

    count: int = 0
    messages: list[str] = field(
        default_factory=list
    )  # "host: message (the next line if it names the exception)"

    def add(self, message: str) -> None:
        self.count += 1
        # the same error at another offset or time is the same message
        if _DIGITS.sub("N", message) not in (_DIGITS.sub("N", m) for m in self.messages):
            self.messages.append(message)


def scan_log(path: Path, host: str, into: ServerErrors) -> None:
    """Adds the error lines of one server log to ``into``."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for i, line in enumerate(lines):
        if any(marker in line for marker in _HBASE_STOPPING):
            return
        log4j = _LOG4J_ERROR.match(line) or _SERVER_LOG_ERROR.match(line)
        if (not log4j and not _ENGINE_ERROR.match(line)) or any(b in line for b in _BENIGN):
            continue
        message = line[log4j.end() :] if log4j else line
        following = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if any(error in line and following.startswith(cause) for error, cause in _BENIGN_CAUSED):
            continue
        if line.startswith("SEVERE: ") and following and not following.startswith("at "):
            message = f"{message} ({following})"  # java.util.logging puts the exception on the next line
        into.add(f"{host}: {message.strip()}")


def scan(run: Run) -> dict[str, ServerErrors]:
    """The variants whose servers logged errors, in the spec's order; variants without errors are left out."""
    found: dict[str, ServerErrors] = {}
    for name in run.spec.variants:
        errors = ServerErrors()
        for host in run.server_hosts(name):
            log = run.variant_dir(name) / "server" / host / SERVER_LOG
            if log.is_file():
                scan_log(log, host, errors)
        if errors.count:
            found[name] = errors
    return found


def summary(found: dict[str, ServerErrors]) -> str:
    """One line for the report's header and the end of ``heaplab run``: "none", or the count per variant."""
    if not found:
        return "none"
    per_variant = ", ".join(f"{name} ({e.count})" for name, e in found.items())
    return f"{sum(e.count for e in found.values())} error lines, in {per_variant}"


def report_lines(found: dict[str, ServerErrors]) -> list[str]:
    """The report's Server errors section; nothing when no server logged an error."""
    if not found:
        return []
    lines = [
        "",
        "## Server errors",
        "",
        "These servers logged errors while the variant ran. Their numbers may not measure what the variant",
        "describes (a cache whose eviction failed, a handler that died): read the server log",
        "(`<variant>/server/<host>/server.log`) before trusting a verdict that uses them.",
        "",
        "| variant | error lines | first distinct messages |",
        "|---|---:|---|",
    ]
    for name, e in found.items():
        shown = "; ".join(m.replace("|", "\\|") for m in e.messages[:SHOWN])
        more = f" (+{len(e.messages) - SHOWN} more)" if len(e.messages) > SHOWN else ""
        lines.append(f"| {name} | {e.count} | {shown}{more} |")
    return lines
