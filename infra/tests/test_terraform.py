"""The offline terraform checks: fmt, validate and `terraform test` with a mocked AWS provider.

infra/terraform/check.sh runs them on the AWS module and the student, class and netease-hosts
configurations (the assertions themselves are in each configuration's tests/*.tftest.hcl: instance types,
disks, firewall rules, tags, cost, the inventory it writes, the presets of presets.json). These tests run
it, and show that the checks can fail: a misformatted file fails fmt, a module whose firewall opens the
cluster ports to the internet fails `terraform test`, and so does a presets.json that disagrees with what
terraform plans. Real terraform with the real provider schema from the machine's provider mirror; only
AWS's API is mocked, because an apply cannot run here (no account, no network).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from heaplab.tests.conftest import REPO

TERRAFORM = REPO / "infra" / "terraform"
TF = TERRAFORM / "tf"

pytestmark = pytest.mark.skipif(
    shutil.which("terraform") is None, reason="terraform is not on PATH: the offline terraform checks need it"
)


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], check=False, cwd=REPO, capture_output=True, text=True, timeout=300, env=env
    )


def test_every_configuration_passes_fmt_validate_and_its_tests() -> None:
    r = run(TERRAFORM / "check.sh")
    assert r.returncode == 0, r.stdout + r.stderr
    steps = [line.split(":")[0] for line in r.stdout.splitlines() if line.startswith("check ")]
    configs = ("modules/aws-cluster", "student", "class", "netease-hosts")
    expected = ["check fmt"] + [f"check {c} {s}" for c in configs for s in ("init", "validate", "test")]
    assert steps == expected
    assert r.stdout.rstrip().endswith("all terraform checks passed")
    print(r.stdout)  # the time of each check, shown with pytest -rA


def test_the_roots_commit_a_lock_file_for_the_pinned_provider() -> None:
    tracked = run("git", "ls-files", "infra/terraform").stdout.split()
    for root in ("student", "class", "netease-hosts"):
        assert f"infra/terraform/{root}/.terraform.lock.hcl" in tracked
        lock = (TERRAFORM / root / ".terraform.lock.hcl").read_text()
        assert 'provider "registry.terraform.io/hashicorp/aws"' in lock
        assert 'version     = "5.100.0"' in lock


def _module_copy(tmp_path: Path) -> Path:
    """The modules and the test mocks copied, so a test can break the cluster module, not the repo."""
    modules = tmp_path / "modules"
    shutil.copytree(TERRAFORM / "modules", modules, ignore=shutil.ignore_patterns(".terraform", "*.lock.hcl"))
    shutil.copytree(TERRAFORM / "tests" / "mocks", tmp_path / "tests" / "mocks")
    return modules / "aws-cluster"


def test_fmt_check_fails_on_a_misformatted_file(tmp_path: Path) -> None:
    module = _module_copy(tmp_path)
    outputs = module / "outputs.tf"
    text = outputs.read_text()
    assert "\n  value       = " in text
    outputs.write_text(text.replace("\n  value       = ", "\n  value = ", 1))
    r = run(TF, "fmt", "-check", "-recursive", module)
    assert r.returncode != 0 and "outputs.tf" in r.stdout


def test_terraform_test_fails_when_the_cluster_ports_are_opened_to_the_internet(tmp_path: Path) -> None:
    module = _module_copy(tmp_path)
    security = module / "security.tf"
    text = security.read_text()
    rule = "referenced_security_group_id = aws_security_group.cluster.id"
    assert rule in text
    security.write_text(text.replace(rule, 'cidr_ipv4 = "0.0.0.0/0"'))
    assert run(TF, f"-chdir={module}", "init", "-backend=false", "-input=false").returncode == 0
    r = run(TF, f"-chdir={module}", "test", "-no-color")
    assert r.returncode != 0
    assert "cluster ports are open only to the group itself" in r.stdout + r.stderr


def test_terraform_test_fails_when_presets_json_disagrees_with_what_terraform_plans(tmp_path: Path) -> None:
    """presets.json is what heaplab/lab/presets.py tells students (where a claim becomes measurable, at what
    cost); the preset's terraform test compares it with the plan. A cost in presets.json that terraform
    does not estimate fails it."""
    _module_copy(tmp_path)
    shutil.copytree(TERRAFORM / "tests" / "fixtures", tmp_path / "tests" / "fixtures")
    config = tmp_path / "netease-hosts"
    shutil.copytree(TERRAFORM / "netease-hosts", config, ignore=shutil.ignore_patterns(".terraform"))
    presets = json.loads((TERRAFORM / "presets.json").read_text())
    presets["presets"]["netease-hosts"]["cost_per_hour"] = 9.5
    (tmp_path / "presets.json").write_text(json.dumps(presets))
    assert run(TF, f"-chdir={config}", "init", "-backend=false", "-input=false").returncode == 0
    r = run(TF, f"-chdir={config}", "test", "-no-color")
    assert r.returncode != 0
    assert "presets.json's cost_per_hour is the cost terraform estimates" in r.stdout + r.stderr


def test_write_inventories_says_what_to_do_before_an_apply(tmp_path: Path) -> None:
    """Without a state (no apply yet) the class script names the missing step and writes no file."""
    env = {**os.environ, "TF_DATA_DIR": str(tmp_path / "tfdata")}
    r = run(TERRAFORM / "class" / "write-inventories.sh", tmp_path / "inv", env=env)
    assert r.returncode != 0 and "apply" in r.stderr
    assert list(tmp_path.glob("inv/*.yml")) == []


def test_the_alibaba_cloud_sketch_says_it_is_not_validated() -> None:
    readme = (TERRAFORM / "alicloud" / "README.md").read_text()
    main = (TERRAFORM / "alicloud" / "main.tf").read_text()
    assert "NOT VALIDATED OFFLINE" in readme and "NOT VALIDATED OFFLINE" in main
    assert '"ecs.c6.2xlarge"' in main and '"cloud_essd"' in main


def test_the_inventory_template_writes_what_the_playbooks_example_holds(tmp_path: Path) -> None:
    """terraform's inventory template, filled with the addresses of the playbooks' example
    (playbooks/inventories/terraform/example.yml), gives exactly that example. The playbook tests check
    the example against what the roles need, so what terraform writes and what ansible reads cannot
    drift apart."""
    example = yaml.safe_load((REPO / "playbooks" / "inventories" / "terraform" / "example.yml").read_text())
    hosts = example["all"]["hosts"]
    groups = example["all"]["children"]
    key_file = example["all"]["vars"]["ansible_ssh_private_key_file"]
    fill = {
        "name": "example",
        "output": "ansible_inventory",
        "key_file": key_file,
        "hosts": list(hosts),
        "nodes": {
            h: {"public_ip": v["ansible_host"], "private_ip": v["heaplab_rpc_host"]} for h, v in hosts.items()
        },
        "devices": {h: v["heaplab_data_device"] for h, v in hosts.items()},
        "masters": list(groups["masters"]["hosts"]),
        "regionservers": list(groups["regionservers"]["hosts"]),
        "clients": list(groups["clients"]["hosts"]),
    }
    template = TERRAFORM / "modules" / "aws-cluster" / "templates" / "inventory.yml.tftpl"
    call = f"templatefile({json.dumps(str(template))}, jsondecode({json.dumps(json.dumps(fill))}))"
    expression = f"jsonencode(yamldecode({call}))"
    r = subprocess.run(
        [str(TF), "console"],
        input=expression,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(json.loads(r.stdout)) == example
