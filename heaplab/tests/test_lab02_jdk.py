"""The variant key ``jdk:``: the spec rule, the check of the servers' JDK through ansible, the
flags for generational ZGC per JDK, and the unavailable path through a real ``heaplab run`` (a variant
needing JDK 99: no server starts, run.json says why and how to point heaplab at a newer JDK)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.cli import main
from heaplab.lab.schema import SpecError
from heaplab.lab.spec import parse_spec
from heaplab.paths import ANSIBLE_CFG
from heaplab.run import jdk
from heaplab.tests.conftest import REPO
from heaplab.tests.shared_runs import run_lab_at_ci

ANSIBLE = str(Path(sys.executable).with_name("ansible"))
ENV = {**os.environ, "ANSIBLE_CONFIG": str(REPO / ANSIBLE_CFG), "ANSIBLE_HOST_PATTERN_MISMATCH": "ignore"}
INVENTORY = REPO / "playbooks/inventories/local/hosts.yml"


def spec_with_jdk(value: Any) -> dict[str, Any]:
    return {
        "lab": "99-jdk",
        "title": "t",
        "reproduces": [{"doc": "001", "experiment": "g1_read_100"}],
        "variants": {
            "old": {"profile": "hbase1-onheap", "server_jvm": ["-XX:+UseG1GC"]},
            "future": {"profile": "hbase1-onheap", "server_jvm": ["-XX:+UseZGC"], "jdk": value},
        },
        "scales": {"ci": {"heap": "128m", "rows": 10}},
        "phases": [{"name": "create", "tool": "admin", "args": "create T"}],
    }


@pytest.mark.parametrize(("value", "expected"), [(21, 21), ("25", 25), (8, 8)])
def test_jdk_is_a_feature_version(value: Any, expected: int) -> None:
    spec = parse_spec(spec_with_jdk(value))
    assert spec.variants["future"].jdk == expected
    assert spec.variants["old"].jdk is None


@pytest.mark.parametrize("value", [7, "21.0.2", "latest", True, -1, [21]])
def test_a_bad_jdk_is_one_line_naming_the_variant(value: Any) -> None:
    with pytest.raises(SpecError, match=r"variant future: jdk must be a JDK feature version") as e:
        parse_spec(spec_with_jdk(value))
    assert "\n" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "feature"),
    [
        ('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment', 17),
        ('openjdk version "25" 2025-09-16', 25),
        ('openjdk version "21.0.2" 2024-01-16 LTS', 21),
        ('java version "1.8.0_292"', 8),
        ('openjdk version "23-ea" 2024-09-17', 23),
        ("bash: java: command not found", None),
    ],
)
def test_feature_version_from_java_version_output(text: str, feature: int | None) -> None:
    assert jdk.feature_version(text) == feature


def test_generational_zgc_flag_only_on_jdk_21_and_22() -> None:
    zgc = ["-Xmx1g", "-XX:+UseZGC"]
    assert jdk.generational_zgc(zgc, 21) == [*zgc, "-XX:+ZGenerational"]
    assert jdk.generational_zgc(zgc, 22) == [*zgc, "-XX:+ZGenerational"]
    assert jdk.generational_zgc(zgc, 23) == zgc  # generational by default, the flag deprecated
    assert jdk.generational_zgc(zgc, 25) == zgc
    assert jdk.generational_zgc(zgc, None) == zgc
    assert jdk.generational_zgc(["-XX:+UseG1GC"], 21) == ["-XX:+UseG1GC"]
    explicit = ["-XX:+UseZGC", "-XX:-ZGenerational"]  # the lab's own choice stays
    assert jdk.generational_zgc(explicit, 21) == explicit


def test_too_old_says_which_host_runs_what_and_how_to_point_at_a_newer_jdk() -> None:
    hosts = [jdk.HostJdk("n1", 25, 'openjdk version "25"'), jdk.HostJdk("n2", 17, 'openjdk version "17.0.1"')]
    assert jdk.too_old(17, hosts, None) is None
    why = jdk.too_old(21, hosts, None)
    assert why is not None and "\n" not in why
    assert "needs JDK 21+" in why and 'n2: openjdk version "17.0.1"' in why and "n1" not in why
    assert "--java-home" in why and "heaplab_java_home" in why
    missing = jdk.too_old(21, [jdk.HostJdk("n1", None, "No such file or directory: /x/bin/java")], "/x")
    assert missing is not None and "--java-home /x gives n1: No such file" in missing
    assert jdk.lowest(hosts) == 17 and jdk.lowest([*hosts, jdk.HostJdk("n3", None, "?")]) is None


def test_server_jdks_asks_the_servers_java_through_ansible() -> None:
    """The local inventory's region server runs the java on PATH, or the --java-home one."""
    path_java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=True).stderr
    (host,) = jdk.server_jdks(ANSIBLE, INVENTORY, ENV, None)
    assert host.host == "localhost" and host.feature == jdk.feature_version(path_java)
    assert host.text == path_java.splitlines()[0]
    (missing,) = jdk.server_jdks(ANSIBLE, INVENTORY, ENV, "/nonexistent-jdk")
    assert missing.feature is None and "/nonexistent-jdk/bin/java" in missing.text


def test_java_home_must_be_absolute(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--root", str(REPO), "run", "05-netty-rpc", "--scale", "ci", "--java-home", "jdk"]) == 2
    assert "--java-home must be an absolute path" in capsys.readouterr().err


def test_a_variant_needing_jdk_99_is_unavailable_in_a_real_run(lab_root, tmp_path: Path) -> None:
    """`heaplab run` on the real playbooks: the JDK check runs through ansible, the jdk-99 variant is
    recorded unavailable with the host's JDK and the way out, and no server is started for it."""
    spec = spec_with_jdk(99)
    del spec["variants"]["old"]
    lab = lab_root(yaml.safe_dump(spec), lab="99-jdk")
    runs = tmp_path / "runs"
    finished = run_lab_at_ci(lab, "99-jdk", runs, timeout=120, report=False)
    proc, manifest, run = finished.proc, finished.manifest, finished.run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    entry = manifest["variants"]["future"]
    assert manifest["status"] == "complete"
    assert entry["status"] == "unavailable" and entry["available"] is False
    assert entry["why"].startswith("needs JDK 99+ on the servers") and "localhost: " in entry["why"]
    assert "--java-home" in entry["why"]
    assert "[future] skipped, unavailable: needs JDK 99+" in proc.stdout
    assert not (run / "future").exists(), "no playbook ran for the unavailable variant"
    assert lab.leftover_processes() == []
