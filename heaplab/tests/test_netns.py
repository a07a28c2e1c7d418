"""Whether the server hosts may make a network namespace (heaplab.run.netns), which an Apache HBase 1.x
variant needs: one line naming the host and the way out when one may not; asked through ansible on the local
target and compared with the same probe run here directly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from heaplab.paths import ANSIBLE_CFG
from heaplab.run import netns
from heaplab.tests.conftest import REPO

ANSIBLE = str(Path(sys.executable).with_name("ansible"))
ENV = {**os.environ, "ANSIBLE_CONFIG": str(REPO / ANSIBLE_CFG)}
INVENTORY = REPO / "playbooks/inventories/local/hosts.yml"


def test_every_host_that_may_is_no_reason() -> None:
    assert netns.why_from_answers({"a": {"rc": 0, "stdout": ""}, "b": {"rc": 0}}) is None


def test_a_refusing_host_is_one_line_with_the_way_out() -> None:
    refused = {"rc": 1, "failed": True, "stderr": "unshare: unshare failed: Operation not permitted"}
    why = netns.why_from_answers({"a": {"rc": 0}, "node2": refused})
    assert why is not None and "\n" not in why
    assert "Apache HBase 1.4 runs in a network namespace of its own" in why
    assert "node2: unshare: unshare failed: Operation not permitted" in why and "a:" not in why
    assert why.endswith(netns.HOW)


def test_the_local_target_answers_as_this_machine_does() -> None:
    here = subprocess.run(["sh", "-c", netns.PROBE], capture_output=True, text=True, check=False)
    why = netns.unavailable_why(ANSIBLE, INVENTORY, ENV)
    if here.returncode == 0:
        assert why is None
    else:
        assert why is not None and why.startswith("Apache HBase 1.4 runs in a network namespace")
