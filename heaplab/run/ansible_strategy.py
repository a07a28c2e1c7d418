"""Which ansible strategy `heaplab run` asks for: Mitogen's linear strategy when it is installed (it is a
pinned dependency), without its CPU pinning (ansible_plugins/strategy/heaplab_mitogen_linear.py), else
ansible's own.

Mitogen runs the same tasks in the same order as ansible's `linear` strategy, but each host's modules run
in one Python process kept for the whole play instead of a new one per task (a module run costs about
0.3 CPU-s with ansible's own). Measurements are not affected: the phases are the same commands with the
same environment, on every core.

HEAPLAB_ANSIBLE_STRATEGY=linear runs ansible's own strategy (to rule Mitogen out when something odd
happens); playbooks run by hand (make provision, ansible-playbook) use ansible's own unless asked.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

ENV = "HEAPLAB_ANSIBLE_STRATEGY"
MITOGEN = "heaplab_mitogen_linear"
PLUGINS = Path(__file__).resolve().parent / "ansible_plugins" / "strategy"


def strategy_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The ANSIBLE_* variables that select the strategy: empty for ansible's own."""
    wanted = (os.environ if environ is None else environ).get(ENV, MITOGEN)
    if wanted != MITOGEN or importlib.util.find_spec("ansible_mitogen") is None:
        return {}
    return {"ANSIBLE_STRATEGY_PLUGINS": str(PLUGINS), "ANSIBLE_STRATEGY": MITOGEN}
