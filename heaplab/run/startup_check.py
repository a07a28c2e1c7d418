"""What an engine variant's servers said at start-up, checked once its files are collected (``heaplab run``).

Two readings of the collected server logs (docs/contracts.md section 6):
  - the configuration keys the servers did not know (heaplab.run.config_keys) go into run.json's variant as
    ``unknown_config_keys`` and are repeated as a warning: a typo'd key runs the default in silence;
  - a switch the region servers did not run as the variant's engine-site.xml asks (heaplab.run.switch_check)
    fails the variant: its numbers would measure another path than its name says.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from heaplab.run import config_keys, switch_check


def check_variant(variant_dir: Path, entry: dict[str, Any], out: Callable[[str], None]) -> str | None:
    """Records the unknown keys in ``entry`` (run.json's variant); returns why the variant must fail (one
    line), or None when its region servers ran every switch its configuration sets."""
    unknown = config_keys.unknown_keys(variant_dir)
    entry[config_keys.RUN_FIELD] = unknown
    if unknown:
        out(
            f"[{variant_dir.name}] WARNING: the servers do not know these configuration keys "
            f"(a typo runs the default): {', '.join(unknown)}"
        )
    return switch_check.check_variant(variant_dir)
