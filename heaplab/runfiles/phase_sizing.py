"""How the playbook sized a phase by time on each client host: ``client/<phase>-<host>.sizing.json``.

Written by playbooks/roles/engine_workload/tasks/size.yml (playbooks/filter_plugins/heaplab_sizing.py) just
before a phase whose experiment.yml entry has ``sized_by`` and ``measure_s`` (heaplab.lab.phase_time):
``{phase, from, flag, stated, value, rate_rows_per_s, warm_s, levelled, seconds, margin, args, why}``.
A warm-up with ``level_off`` that ran a second time (playbooks/roles/engine_workload/tasks/again.yml) has the
same record, from its own first run, with ``again: true``.
run.json's variant keeps them as ``sized: {phase: {host: record}}`` (heaplab.run.variant_run).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heaplab.runfiles.client_summary import SIZING_SUFFIX as SUFFIX


def read_sizing(client_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """{phase: {host: record}} of every sizing file in a variant's client directory (empty: none)."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(client_dir.glob(f"*{SUFFIX}")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a partial file of a failed variant: the phase's own files say what ran
        if not isinstance(record, dict) or "phase" not in record:
            continue
        host = path.name[: -len(SUFFIX)].removeprefix(f"{record['phase']}-")
        out.setdefault(str(record["phase"]), {})[host] = record
    return out


def sized_args(out_file: Path) -> str | None:
    """The args a phase ran with on one host when it was sized (``<phase>-<host>.out`` -> its sizing file)."""
    path = out_file.with_name(out_file.name.removesuffix(".out") + SUFFIX)
    try:
        return str(json.loads(path.read_text(encoding="utf-8"))["args"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
