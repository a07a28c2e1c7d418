"""The configuration keys an engine variant's servers did not know, from their start-up WARN line.

At start-up the engine's region server and master name the ``hbase.*`` and ``heaplab.*`` keys of their
engine-site.xml that no part of the engine reads (the engine's KnownKeys), in one line::

    ...Z WARN  [main] unknown configuration keys (not read by the engine): hbase.rpc.server.iml

A typo'd switch key runs the switch's default without an error, so run.json records the keys per variant
(``unknown_config_keys``, docs/contracts.md section 6) and ``heaplab run`` repeats them as a warning.
"""

from __future__ import annotations

import re
from pathlib import Path

RUN_FIELD = "unknown_config_keys"
_WARN = re.compile(r" WARN +\[[^]]*\] unknown configuration keys \(not read by the engine\): (.+)$")
# the logs the playbooks collect per variant (docs/contracts.md section 5)
_LOGS = ("server/*/server.log", "master/*/master.log")


def from_log(text: str) -> list[str]:
    """The keys of every such WARN line in one server log, in order, each once."""
    keys: list[str] = []
    for line in text.splitlines():
        m = _WARN.search(line)
        if m:
            keys.extend(k for k in (x.strip() for x in m.group(1).split(",")) if k and k not in keys)
    return keys


def unknown_keys(variant_dir: Path) -> list[str]:
    """The keys any of the variant's engine servers (region servers, master) did not know, sorted."""
    found: set[str] = set()
    for pattern in _LOGS:
        for log in variant_dir.glob(pattern):
            found.update(from_log(log.read_text(encoding="utf-8", errors="replace")))
    return sorted(found)
