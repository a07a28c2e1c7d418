"""Did an engine variant's region servers run the paths its configuration asks for?

A lab compares paths (SimpleRpcServer or NettyRpcServer, heap copies or zero copy, ...), so a variant whose
server ran another path than its profile asks measures something else and looks right.  Each region server
names the class every switch chose in its start-up lines (docs/contracts.md section 6)::

    ... INFO  [main] rpc server: SimpleRpcServer, 1 listener, 10 readers ... (hbase.rpc.server.impl) ...
    ... INFO  [main] mvcc: LegacyMvcc (hbase.hregion.mvcc.preassign=false)

For every switch key of docs/ARCHITECTURE.md's table that the variant's effective engine-site.xml sets (the
profile with the overrides on top, as the playbook wrote it: ``<variant>/conf/engine-site.xml``), the class
its value chooses (the engine's rule, repeated in ``_RULES``) must be the class the start-up lines name.
``check_variant`` returns the one-line reason when it is not, else None.  Engine variants only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

SITE = Path("conf") / "engine-site.xml"
SERVER_LOGS = "server/*/server.log"
_STARTING = "starting region server:"
_LINE = re.compile(r"^\S+ INFO +\[main\] (?P<label>[a-z ]+): (?P<rest>.*)$")
# the start-up lines that name a switch's class as their first word (the memstore line: _MEMSTORE)
_ONE_CLASS = {"rpc server", "request buffers", "cell decoding", "responses", "read path", "block cache"}
_ONE_CLASS |= {"mvcc", "write path"}
_FIRST_WORD = re.compile(r"[\w-]+")
_MEMSTORE = re.compile(r"(\w+) \(.*?\) over (\w+)(?: \((on|off)-heap chunks)?")
# a path's name in its start-up line -> its class (the read and write path lines name the path)
_NAMED = {
    "heap-copy": "HeapCopyReadPath",
    "zero-copy": "ZeroCopyReadPath",
    "legacy": "LegacyWritePath",
    "staged": "StagedWritePath",
}
_HBASE_IPC = "org.apache.hadoop.hbase.ipc."
# a class the engine renamed -> its name now: logs of engines before the rename name it the old way
_FORMER_NAMES = {"PooledDirectRequestBuffers": "DirectBufferPool"}


@dataclass(frozen=True)
class Expect:
    """The class ``key=value`` chooses, and the start-up line (its label) that names the chosen class."""

    key: str
    value: str
    line: str
    cls: str


def startup_classes(log_text: str) -> dict[str, list[str]]:
    """The classes the last start-up of a region server log names, per line label ("rpc server", ...).

    The memstore line gives three: "memstore index", "memstore cells" and "memstore chunks" (HeapChunkPool
    or OffheapChunkPool, when the cells live in chunks)."""
    lines = log_text.splitlines()
    starts = [i for i, line in enumerate(lines) if _STARTING in line]
    found: dict[str, list[str]] = {}
    for line in lines[starts[-1] if starts else 0 :]:
        m = _LINE.match(line)
        if not m:
            continue
        label, rest = m["label"], m["rest"]
        if label == "memstore cell storage":
            mem = _MEMSTORE.match(rest)
            if mem:
                found.setdefault("memstore index", []).append(mem[1])
                found.setdefault("memstore cells", []).append(mem[2])
                if mem[3]:
                    chunks = "HeapChunkPool" if mem[3] == "on" else "OffheapChunkPool"
                    found.setdefault("memstore chunks", []).append(chunks)
            continue
        word = _FIRST_WORD.match(rest)
        if label in _ONE_CLASS and word:
            found.setdefault(label, []).append(_NAMED.get(word[0], word[0]))
    return found


def _bool(value: str) -> bool | None:
    v = value.strip().lower()
    return v == "true" if v in ("true", "false") else None


def _rpc_impl(value: str) -> str:
    """hbase.rpc.server.impl as the engine reads it: HBase's package dropped, the 1.x server's old name."""
    name = value.strip().removeprefix(_HBASE_IPC)
    return "SimpleRpcServer" if name == "BlockingRpcServer" else name


def _one(line: str, by_value: dict[str, str], fold: Callable[[str], str] = str.strip):
    """A rule for a key whose value names one class on one line; an unknown value is not checked (the
    engine refuses it at start-up with its own error)."""

    def rule(value: str, _site: dict[str, str]) -> list[tuple[str, str]]:
        cls = by_value.get(fold(value))
        return [(line, cls)] if cls else []

    return rule


def _pool(value: str, site: dict[str, str]) -> list[tuple[str, str]]:
    pool = _bool(value)
    if pool is None:
        return []
    checks = [("responses", "PooledDirectResponseEncoder" if pool else "HeapResponseEncoder")]
    impl = _rpc_impl(site.get("hbase.rpc.server.impl", "NettyRpcServer"))  # the engine's default
    if impl == "SimpleRpcServer":
        checks.append(("request buffers", "DirectBufferPool" if pool else "HeapRequestBuffers"))
    elif impl == "NettyRpcServer":  # requests stay in Netty's own pooled frames, whatever the key
        checks.append(("request buffers", "NettyRequestBuffers"))
    return checks


def _offheap_memstore(value: str, site: dict[str, str]) -> list[tuple[str, str]]:
    try:
        mb = int(value.strip())
    except ValueError:
        return []
    if mb > 0:
        return [("memstore chunks", "OffheapChunkPool")]
    mslab = _bool(site.get("hbase.hregion.memstore.mslab.enabled", "false"))  # the engine's default
    return [("memstore chunks", "HeapChunkPool")] if mslab else []  # plain cells have no chunks


def _bool_rule(line: str, if_true: str, if_false: str):
    def rule(value: str, _site: dict[str, str]) -> list[tuple[str, str]]:
        b = _bool(value)
        return [] if b is None else [(line, if_true if b else if_false)]

    return rule


# The switch keys of docs/ARCHITECTURE.md, in its table's order -> the classes a value chooses.
_RULES: dict[str, Callable[[str, dict[str, str]], list[tuple[str, str]]]] = {
    "hbase.rpc.server.impl": lambda v, _site: [("rpc server", _rpc_impl(v))],
    "hbase.server.allocator.pool.enabled": _pool,
    "heaplab.rpc.cell.decoder": _one(
        "cell decoding", {"copying": "CopyingCellDecoder", "zero-copy": "ZeroCopyCellDecoder"}
    ),
    "heaplab.regionserver.read.path": _one(
        "read path", {"heap-copy": "HeapCopyReadPath", "zero-copy": "ZeroCopyReadPath"}
    ),
    "hbase.bucketcache.ioengine": _one("block cache", {"": "LruBlockCache", "offheap": "CombinedBlockCache"}),
    "hbase.hregion.memstore.mslab.enabled": _bool_rule(
        "memstore cells", "MslabCellStorage", "PlainCellStorage"
    ),
    "hbase.regionserver.offheap.global.memstore.size": _offheap_memstore,
    "hbase.hregion.compacting.memstore.type": _one(
        "memstore index", {"NONE": "SkipListIndex", "BASIC": "CompactingIndex"}, lambda v: v.strip().upper()
    ),
    "hbase.hregion.mvcc.preassign": _bool_rule("mvcc", "PreassignedMvcc", "LegacyMvcc"),
    "heaplab.regionserver.write.path": _one(
        "write path", {"legacy": "LegacyWritePath", "staged": "StagedWritePath"}
    ),
}
SWITCH_KEYS = tuple(_RULES)


def expectations(site: dict[str, str]) -> list[Expect]:
    """What the start-up lines must name for each switch key ``site`` sets."""
    return [
        Expect(key, site[key].strip(), line, cls)
        for key, rule in _RULES.items()
        if key in site
        for line, cls in rule(site[key], site)
    ]


def mismatches(site: dict[str, str], log_text: str, server: str = "the server") -> list[str]:
    """One line per switch the server's start-up lines do not show as the site's value chooses."""
    ran = startup_classes(log_text)
    found = []
    for e in expectations(site):
        classes = ran.get(e.line, [])
        wrong = next((c for c in classes if _FORMER_NAMES.get(c, c) != e.cls), None)
        if wrong:
            found.append(f"{server} ran {wrong} for {e.key}={e.value}, the profile asks {e.cls}")
        elif not classes:
            lines = f"the start-up lines of {server}"
            found.append(f"{lines} name no {e.line} for {e.key}={e.value}, the profile asks {e.cls}")
    return found


def read_site(path: Path) -> dict[str, str]:
    """The properties of an engine-site.xml, names and values trimmed as the engine reads them."""
    root = ElementTree.parse(path).getroot()  # noqa: S314 (the playbook wrote it for this run)
    return {
        (p.findtext("name") or "").strip(): (p.findtext("value") or "").strip() for p in root.iter("property")
    }


def check_variant(variant_dir: Path) -> str | None:
    """Why the variant's region servers did not run what its engine-site.xml asks (one line), or None."""
    site_file = variant_dir / SITE
    logs = sorted(variant_dir.glob(SERVER_LOGS))
    if not site_file.is_file() or not logs:
        missing = SITE if not site_file.is_file() else "server/<host>/server.log"
        return f"no {missing} was collected: which path the server ran cannot be checked"
    site = read_site(site_file)
    found = []
    for log in logs:
        server = f"the server on {log.parent.name}" if len(logs) > 1 else "the server"
        found.extend(mismatches(site, log.read_text(encoding="utf-8", errors="replace"), server))
    if not found:
        return None
    more = f" (and {len(found) - 1} more: see server/<host>/server.log)" if len(found) > 1 else ""
    return found[0] + more
