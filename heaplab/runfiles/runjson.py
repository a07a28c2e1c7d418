"""Write run.json, the run directory's manifest (docs/contracts.md section 6).

Format history (the ``format`` field):
  1  lab, title, spec_sha256, scale, scale_params, target, command, git {commit, dirty}, start, end,
     status (running | complete | failed | interrupted), hosts, jdk,
     variants {name: {profile, published, available, why, server_jvm_flags, client_jvm_flags,
                      status (pending | running | complete | failed | interrupted | unavailable),
                      error, log}}
     later added, per variant: site (the variant's own engine-site overrides, filled in; the lab's
     site is in the spec) and vars (the variant's phase parameters, filled in); ``published`` may be a
     mapping experiment -> the article's name.  Readers treat both as optional.
     later added, per variant: gc_logs_gzipped (how many gc-*.log files heaplab.runfiles.rawlogs compressed
     to .gz when the variant ended; absent in older runs, whose logs are plain).
     later added: exercise_sources ({repository path: sha256} of the lab's exercise solution files when
     the run started, heaplab.runfiles.exercise_sources; only for labs with exercises).
     later added, per engine variant that ran: unknown_config_keys (the hbase.*/heaplab.* keys its
     servers named as unknown at start-up, sorted; heaplab.run.config_keys); a variant whose region servers
     ran another switch than its engine-site.xml asks is failed with that one line (heaplab.run.switch_check).
     later added: order (random | fixed), order_seed and variant_order (the order the variants ran,
     heaplab.run.runner.variant_order); aa {variant, twin} on an A/A run (heaplab.lab.aa); in series, auto,
     decision and stopped on a `--repeat auto` series (heaplab.judge.auto_repeat), whose ``of`` is null but on
     its last run. later added, per apache-hbase variant: hbase_version (the release it ran,
     heaplab.lab.schema.HBASE_VERSIONS).

run.json is written once when the run starts (status "running") and replaced at the end.  Every write goes
to a temporary file in the same directory and is renamed over the old one, so a reader (or a Ctrl-C)
never sees a half-written manifest.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

FORMAT = 1
RUN_JSON = "run.json"


def write_json_atomic(path: Path, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` via a temp file + rename (atomic on POSIX)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_run_json(run_dir: Path, manifest: dict[str, Any]) -> Path:
    manifest = {"format": FORMAT, **{k: v for k, v in manifest.items() if k != "format"}}
    path = run_dir / RUN_JSON
    write_json_atomic(path, manifest)
    return path
