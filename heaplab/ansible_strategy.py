"""Which ansible strategy `heaplab run` asks for: Mitogen's linear strategy when it is installed (it is a
pinned dependency), else ansible's own.

Mitogen runs the same tasks in the same order as ansible's `linear` strategy, but each host's modules run
in one Python process kept for the whole play instead of a new one per task. A lab's variant is a few
hundred tasks, so this is about a fifth of a run's CPU outside the JVMs, and a larger share of `make test`.
Measurements are not affected: the phases are the same commands with the same environment.

HEAPLAB_ANSIBLE_STRATEGY=linear runs ansible's own strategy (to rule Mitogen out when something odd
happens); playbooks run by hand (make provision, ansible-playbook) use ansible's own unless asked.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ENV = "HEAPLAB_ANSIBLE_STRATEGY"
MITOGEN = "mitogen_linear"


def strategy_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The ANSIBLE_* variables that select the strategy: empty for ansible's own."""
    wanted = (os.environ if environ is None else environ).get(ENV, MITOGEN)
    if wanted != MITOGEN:
        return {}
    spec = importlib.util.find_spec("ansible_mitogen")
    if spec is None or spec.origin is None:
        return {}
    plugins = Path(spec.origin).parent / "plugins" / "strategy"
    return {"ANSIBLE_STRATEGY_PLUGINS": str(plugins), "ANSIBLE_STRATEGY": MITOGEN}
