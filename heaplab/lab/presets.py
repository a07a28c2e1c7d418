"""The clusters the project can provision, and which one a claim's ``needs`` call for.

A claim that needs bigger hosts than a run had (``needs: {cores: 32, memory_gb: 64}``) is `not measurable
here`; ``smallest_preset`` names the cheapest cluster in infra/terraform on which it becomes measurable,
and ``describe`` says it in one line a student reads::

    infra/terraform/netease-hosts (4 x m6i.8xlarge, 32 vCPU / 128 GB, about $11.15/h for 7 nodes),
    scale paper-hosts of 10-ycsb-cluster

The registry is infra/terraform/presets.json, the one source of truth: the preset's terraform reads its
sizes from it, and each configuration's ``terraform test`` asserts that what it plans (instance type,
node counts, estimated cost) agrees with its entry (infra/terraform/README.md, Presets).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The checkout's own: the presets are this source tree's terraform, wherever heaplab is run from.
PRESETS_JSON = Path(__file__).resolve().parents[2] / "infra" / "terraform" / "presets.json"  # in the checkout
# Linux reports a little less memory than an instance type's nominal size (the kernel's own share: e.g.
# about 15.3 GiB of a 16 GiB c6i.2xlarge), and heaplab.judge.claims compares a claim's memory_gb with what the
# hosts report. A preset meets memory_gb only if this share of its nominal memory does.
VISIBLE_MEMORY = 0.95


class PresetError(ValueError):
    """presets.json is missing or malformed; the message is one line."""


@dataclass(frozen=True)
class Preset:
    name: str
    directory: str  # the terraform configuration, relative to the repository: infra/terraform/<dir>
    instance_type: str  # every node's
    region_servers: int
    nodes: int  # masters + region servers + clients
    vcpus: int  # per node
    memory_gb: float  # per node, nominal (GiB)
    cost_per_hour: float  # USD, the whole cluster (terraform's estimated_cost_per_hour)
    scale: str  # the scale to run on it
    lab: str | None  # the lab whose scale that is; None: every lab's

    def meets(self, cores: float, memory_gb: float) -> bool:
        return self.vcpus >= cores and self.memory_gb * VISIBLE_MEMORY >= memory_gb


def _preset(name: str, raw: dict[str, Any], where: Path) -> Preset:
    try:
        return Preset(
            name=name,
            directory=f"infra/terraform/{raw['dir']}",
            instance_type=str(raw["instance_type"]),
            region_servers=int(raw["region_servers"]),
            nodes=int(raw["masters"]) + int(raw["region_servers"]) + int(raw["clients"]),
            vcpus=int(raw["vcpus"]),
            memory_gb=float(raw["memory_gib"]),
            cost_per_hour=float(raw["cost_per_hour"]),
            scale=str(raw["scale"]),
            lab=str(raw["lab"]) if raw.get("lab") is not None else None,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise PresetError(f"{where}: preset {name!r} is malformed ({e!r})") from None


def load_presets(path: Path | None = None) -> dict[str, Preset]:
    """The presets of ``path`` (default: this checkout's infra/terraform/presets.json), by name."""
    path = path if path is not None else PRESETS_JSON
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise PresetError(f"cannot read the presets {path}: {e}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("presets"), dict):
        raise PresetError(f'{path}: expected {{"presets": {{name: {{...}}}}}}')
    return {str(name): _preset(str(name), p, path) for name, p in raw["presets"].items()}


def _presets() -> dict[str, Preset]:
    try:
        return load_presets()
    except PresetError:
        return {}  # an installed copy without the repository's infra/: no preset to name


PRESETS: dict[str, Preset] = _presets()


def smallest_preset(
    cores: float, memory_gb: float, presets: dict[str, Preset] | None = None
) -> Preset | None:
    """The cheapest preset whose every node has at least ``cores`` vCPUs and ``memory_gb`` GB that Linux
    will report (VISIBLE_MEMORY), or None when no preset is that big."""
    fitting = [p for p in (PRESETS if presets is None else presets).values() if p.meets(cores, memory_gb)]
    return min(fitting, key=lambda p: (p.cost_per_hour, p.name), default=None)


def describe(preset: Preset) -> str:
    """One line: where the preset is, its nodes and cost, and the scale to run on it."""
    scale = f"scale {preset.scale}" + (f" of {preset.lab}" if preset.lab else "")
    return (
        f"{preset.directory} ({preset.region_servers} x {preset.instance_type}, {preset.vcpus} vCPU / "
        f"{preset.memory_gb:g} GB, about ${preset.cost_per_hour:.2f}/h for {preset.nodes} nodes), {scale}"
    )
