"""The namespace cluster's inventory: the committed copy is what cluster.sh writes, with the groups the
playbooks need. Runs anywhere (no root): `cluster.sh inventory` creates nothing."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from playbooks.tests.support import PLAYBOOKS, REPO

CLUSTER_SH = REPO / "infra" / "netns" / "cluster.sh"
COMMITTED = PLAYBOOKS / "inventories" / "namespaces" / "hosts.yml"
DEFAULT_STATE = "/tmp/heaplab-netns"  # noqa: S108 - cluster.sh's default, only printed here
OTHER_STATE = "/srv/hl-x"


def _cluster_sh(state_dir, *args):
    return subprocess.run(
        [str(CLUSTER_SH), "--state-dir", state_dir, *args], capture_output=True, text=True, check=False
    )


def test_committed_inventory_is_what_cluster_sh_writes():
    assert COMMITTED.read_text(encoding="utf-8") == _cluster_sh(DEFAULT_STATE, "inventory").stdout, (
        "regenerate it: infra/netns/cluster.sh inventory > playbooks/inventories/namespaces/hosts.yml"
    )


def test_inventory_groups_and_per_node_directories():
    inv = yaml.safe_load(_cluster_sh(OTHER_STATE, "inventory").stdout)["all"]
    children = inv["children"]
    assert list(children["masters"]["hosts"]) == ["n1"]
    assert list(children["regionservers"]["hosts"]) == ["n1", "n2", "n3"]
    assert list(children["clients"]["hosts"]) == ["ctl"]
    hosts = inv["hosts"]
    assert hosts["ctl"]["ansible_connection"] == "local"
    assert [hosts[n]["ansible_host"] for n in ("n1", "n2", "n3")] == [
        "10.77.0.11",
        "10.77.0.12",
        "10.77.0.13",
    ]
    # The filesystem is shared: every host needs its own base directory.
    base_dirs = [h["heaplab_base_dir"] for h in hosts.values()]
    assert len(set(base_dirs)) == len(base_dirs)
    assert all(d.startswith(f"{OTHER_STATE}/nodes/") for d in base_dirs)
    assert inv["vars"]["ansible_ssh_args"] == f"-F {OTHER_STATE}/ssh/config"


def test_bad_state_dir_is_one_line_exit_2():
    for bad in ("relative/dir", "/srv/" + "x" * 80):
        proc = _cluster_sh(bad, "inventory")
        assert proc.returncode == 2
        assert proc.stderr.startswith("ERROR: --state-dir")
        assert proc.stderr.count("\n") == 1


def test_without_root_up_says_why_and_exits_2():
    """The namespace function test skips on exit 2; a user without root gets one line saying why."""
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root and no setpriv to drop privileges")
        prefix = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    else:
        prefix = []
    proc = subprocess.run(
        [*prefix, str(CLUSTER_SH), "--state-dir", OTHER_STATE, "up"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("cluster.sh: cannot run here: needs root (")
    assert proc.stderr.count("\n") == 1
    assert not Path(OTHER_STATE).exists()


def test_data_disk_refuses_bad_arguments_and_a_missing_cluster():
    """data-disk: one line, exit 2 for a bad node or size, exit 1 without a cluster; no loop made."""
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("cluster.sh data-disk needs root and losetup")
    state = "/tmp/hl-x-none"  # noqa: S108 - never created: every call below stops before making anything
    before = subprocess.run(["losetup", "-a"], capture_output=True, text=True, check=False).stdout
    for args, code, start in (
        (("n9",), 2, "ERROR: data-disk: unknown node 'n9'"),
        (("n1", "5"), 2, "ERROR: data-disk: size must be a number of MB >= 16"),
        (("n1",), 1, f"ERROR: no cluster in {state}"),
    ):
        proc = _cluster_sh(state, "data-disk", *args)
        if proc.returncode == 2 and proc.stderr.startswith("cluster.sh: cannot run here"):
            pytest.skip(proc.stderr.strip())
        assert (proc.returncode, proc.stderr.count("\n")) == (code, 1), proc.stderr
        assert proc.stderr.startswith(start), proc.stderr
    assert not Path(state).exists()
    assert subprocess.run(["losetup", "-a"], capture_output=True, text=True, check=False).stdout == before
