"""heaplab.lab.presets: the clusters infra/terraform provisions, and the one a claim's `needs` call for.

The registry (infra/terraform/presets.json) must agree with the terraform: here with the variables as
written (the module's prices and allowed types, the student configuration's defaults, the preset
configuration reading its sizes from the registry); infra/tests/test_terraform.py runs each
configuration's `terraform test`, which compares the registry with what terraform plans.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from heaplab.lab.presets import (
    PRESETS,
    PRESETS_JSON,
    VISIBLE_MEMORY,
    Preset,
    PresetError,
    describe,
    load_presets,
    smallest_preset,
)
from heaplab.lab.spec import load_spec, resolve_lab
from heaplab.tests.conftest import REPO

TERRAFORM = REPO / "infra" / "terraform"


def _preset(name: str, vcpus: int, memory_gb: float, cost: float) -> Preset:
    return Preset(name, f"infra/terraform/{name}", "x.large", 2, 4, vcpus, memory_gb, cost, "paper", None)


def test_the_registry_is_the_checkouts_presets_json() -> None:
    assert PRESETS_JSON == TERRAFORM / "presets.json"
    assert load_presets() == PRESETS
    assert set(PRESETS) >= {"student", "netease-hosts"}


def test_the_articles_32_core_hosts_are_the_netease_preset() -> None:
    """Lab 10's latency claims need {cores: 32, memory_gb: 64}: the preset that has them."""
    preset = smallest_preset(32, 64)
    assert preset is not None and preset.name == "netease-hosts"
    assert (preset.instance_type, preset.region_servers, preset.vcpus, preset.memory_gb) == (
        "m6i.8xlarge",
        4,
        32,
        128,
    )
    assert preset.nodes == 7 and preset.lab == "10-ycsb-cluster"
    assert describe(preset) == (
        "infra/terraform/netease-hosts (4 x m6i.8xlarge, 32 vCPU / 128 GB, about $11.15/h for 7 nodes), "
        "scale paper-hosts of 10-ycsb-cluster"
    )


def test_a_claim_needing_4_cores_gets_the_cheaper_8_core_cluster() -> None:
    preset = smallest_preset(4, 0)
    assert preset is not None and preset.name == "student"
    assert describe(preset) == (
        "infra/terraform/student (3 x c6i.2xlarge, 8 vCPU / 16 GB, about $1.77/h for 5 nodes), scale paper"
    )


def test_needs_beyond_every_preset_name_none() -> None:
    assert smallest_preset(64, 0) is None
    assert smallest_preset(8, 512) is None


def test_the_cheapest_fitting_preset_wins_and_memory_is_what_linux_reports() -> None:
    presets = {
        "big": _preset("big", 32, 128, 10.0),
        "mid": _preset("mid", 16, 64, 4.0),
        "small": _preset("small", 8, 16, 1.0),
    }
    assert smallest_preset(8, 8, presets) == presets["small"]
    assert smallest_preset(9, 8, presets) == presets["mid"]
    # a 16 GiB node reports about 15.3 GiB: a claim that needs 16 GB is not measurable on it
    assert smallest_preset(8, 16, presets) == presets["mid"]
    assert smallest_preset(8, 16 * VISIBLE_MEMORY, presets) == presets["small"]


def test_a_malformed_registry_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "presets.json"
    bad.write_text(json.dumps({"presets": {"x": {"dir": "x"}}}))
    with pytest.raises(PresetError, match="preset 'x' is malformed"):
        load_presets(bad)
    with pytest.raises(PresetError, match="cannot read"):
        load_presets(tmp_path / "missing.json")


def _raw() -> dict:
    return json.loads(PRESETS_JSON.read_text())


def _module_prices() -> dict[str, float]:
    text = (TERRAFORM / "modules" / "aws-cluster" / "variables.tf").read_text()
    block = text[text.index('variable "price_per_hour"') :]
    block = block[: block.index("\n}\n")]
    return {t: float(p) for t, p in re.findall(r'"([a-z0-9]+\.[0-9]*x?large)"\s*=\s*([0-9.]+)', block)}


def _default(tf: Path, variable: str) -> str:
    text = tf.read_text()
    block = text[text.index(f'variable "{variable}"') :]
    block = block[: block.index("\n}\n")]
    found = re.search(r"^\s*default\s*=\s*\"?([^\"\n]+)\"?\s*$", block, re.M)
    assert found, f"{tf}: variable {variable} has no default"
    return found.group(1)


def test_every_preset_costs_what_the_modules_prices_say() -> None:
    """cost_per_hour = nodes x (price + GiB of gp3 x its price per GiB-month / 730 h), the module's
    estimated_cost_per_hour, with the module's own price of the type."""
    raw = _raw()
    prices = _module_prices()
    module = TERRAFORM / "modules" / "aws-cluster" / "variables.tf"
    assert float(_default(module, "gp3_price_per_gb_month")) == raw["gp3_price_per_gb_month"]
    allowed = module.read_text().split('variable "instance_type"')[1].split("error_message")[0]
    for name, p in raw["presets"].items():
        assert f'"{p["instance_type"]}"' in allowed, f"{name}: the module refuses {p['instance_type']}"
        assert prices[p["instance_type"]] == p["price_per_hour"], name
        gib = p["root_volume_size_gb"] + p["data_volume_size_gb"]
        nodes = p["masters"] + p["region_servers"] + p["clients"]
        cost = nodes * (p["price_per_hour"] + gib * raw["gp3_price_per_gb_month"] / 730)
        assert p["cost_per_hour"] == pytest.approx(cost, abs=0.0005), name
        assert PRESETS[name].cost_per_hour == p["cost_per_hour"]
        assert (TERRAFORM / p["dir"] / "main.tf").is_file(), name


def test_the_student_preset_is_the_student_configurations_defaults() -> None:
    p = _raw()["presets"]["student"]
    student = TERRAFORM / "student" / "variables.tf"
    module = TERRAFORM / "modules" / "aws-cluster" / "variables.tf"
    assert _default(student, "instance_type") == p["instance_type"]
    assert int(_default(student, "region_servers")) == p["region_servers"]
    assert int(_default(student, "clients")) == p["clients"]
    assert _default(student, "data_disk") == "ebs"
    assert int(_default(student, "data_volume_size_gb")) == p["data_volume_size_gb"]
    assert int(_default(module, "root_volume_size_gb")) == p["root_volume_size_gb"]
    assert p["masters"] == 1  # the module always makes one master


def test_the_netease_configuration_takes_its_sizes_from_the_registry() -> None:
    main = (TERRAFORM / "netease-hosts" / "main.tf").read_text()
    assert 'jsondecode(file("${path.module}/../presets.json")).presets["netease-hosts"]' in main
    for key in ("region_servers", "clients", "instance_type", "data_volume_size_gb", "root_volume_size_gb"):
        assert f"= local.preset.{key}" in main, key
    assert not re.search(r'variable "(instance_type|region_servers|clients)"', main)


def test_each_presets_scale_is_a_scale_of_its_labs() -> None:
    """The scale a preset names is one its lab can run (every lab's, for a preset of no lab)."""
    labs = sorted(p.parent.name for p in (REPO / "labs").glob("*/experiment.yml"))
    for preset in PRESETS.values():
        for lab in [preset.lab] if preset.lab else labs:
            spec = load_spec(resolve_lab(REPO, lab))
            assert preset.scale in spec.scales, f"{preset.name}: {lab} has no scale {preset.scale!r}"
