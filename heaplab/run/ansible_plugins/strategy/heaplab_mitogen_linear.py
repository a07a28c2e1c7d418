"""Mitogen's linear strategy without its CPU pinning (heaplab/run/ansible_strategy.py says why Mitogen).

Mitogen pins its processes to CPUs, and the processes a task starts inherit a mask: on a 2-core machine
every command a task ran (the lab's region server and client JVMs) was confined to one core, and a run
of the local target got slower, not faster. Mitogen's own "no affinity" policy (the one it uses where
the OS has none) leaves every process on every core; it reads the policy at each use, so setting it here,
before the strategy starts its processes, is enough.
"""

import ansible_mitogen.affinity

ansible_mitogen.affinity.policy = ansible_mitogen.affinity.Policy()

from ansible_mitogen.plugins.strategy.mitogen_linear import StrategyModule  # noqa: E402

__all__ = ["StrategyModule"]
