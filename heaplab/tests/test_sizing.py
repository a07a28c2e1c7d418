"""The `local` scale sized from the machine (heaplab.lab.sizing), and every lab sized for 2, 4, 8 and 16
cores."""

from __future__ import annotations

import pytest

from heaplab.lab.schema import with_derived
from heaplab.lab.sizing import Machine, progress, size_bytes, size_local, this_machine
from heaplab.lab.spec import load_spec
from heaplab.tests.conftest import REPO

GB = 1 << 30
LOCAL = {"heap": "2g", "young": "360m", "client_heap": "1g", "threads": 16, "rows": 40000, "mode": "x"}
PAPER = {"heap": "8g", "young": "1440m", "client_heap": "4g", "threads": 64, "rows": 150000, "mode": "y"}


def test_progress_is_geometric_between_the_reference_and_the_article() -> None:
    assert progress(1) == 0 and progress(2) == 0
    assert progress(4) == pytest.approx(0.5)
    assert progress(8) == 1 and progress(64) == 1


def test_two_cores_keep_local_exactly() -> None:
    sized, record = size_local(LOCAL, PAPER, Machine(2, 24 * GB))
    assert sized == LOCAL and record["changed"] == {} and record["t"] == 0


def test_four_cores_go_half_way() -> None:
    sized, record = size_local(LOCAL, PAPER, Machine(4, 32 * GB))
    assert sized["threads"] == 32  # sqrt(16 x 64)
    assert sized["rows"] == round((40000 * 150000) ** 0.5)
    assert size_bytes(sized["heap"]) == 4 * GB
    assert sized["mode"] == "x"  # not a number: local's
    assert record["changed"]["threads"] == [16, 32]


def test_eight_cores_reach_paper() -> None:
    sized, _ = size_local(LOCAL, PAPER, Machine(8, 64 * GB))
    assert sized["threads"] == 64 and sized["rows"] == 150000
    assert size_bytes(sized["heap"]) == 8 * GB


def test_small_memory_shrinks_every_size_by_one_factor() -> None:
    sized, record = size_local(LOCAL, PAPER, Machine(8, 10 * GB))  # 12 GB of heaps > 60% of 10 GB
    total = size_bytes(sized["heap"]) + size_bytes(sized["client_heap"])
    assert total <= 0.6 * 10 * GB + (2 << 20)
    assert record["memory_shrink"] < 1
    ratio = size_bytes(sized["young"]) / size_bytes(sized["heap"])
    assert ratio == pytest.approx(1440 / 8192, rel=0.01)  # the young share kept
    assert sized["threads"] == 64  # threads and rows are not memory


def test_this_machine_reads_cores_and_memory() -> None:
    m = this_machine()
    assert m.cores >= 1 and m.memory_bytes > 256 << 20


@pytest.mark.parametrize(
    "spec_path", sorted((REPO / "labs").glob("*/experiment.yml")), ids=lambda p: p.parent.name
)
@pytest.mark.parametrize("cores", [2, 4, 8, 16])
def test_every_lab_sizes_and_fills(spec_path, cores: int) -> None:
    """Sized parameters still fill every placeholder of every variant (as the runner uses them)."""
    spec = load_spec(spec_path)
    if "local" not in spec.scales or "paper" not in spec.scales:
        pytest.skip("no local and paper scales")
    sized, _ = size_local(spec.scales["local"], spec.scales["paper"], Machine(cores, 16 * GB))
    params = with_derived(sized)
    for v in spec.variants.values():
        spec.phases_for(params, v)
        spec.server_jvm_flags(v, params)
        spec.client_jvm_flags(v, params)


def test_the_epsilon_heap_is_capped_alone_and_never_shrinks_the_other_heaps() -> None:
    """Lab 01's no-GC arm has its own heap: it fits beside the client heap or is capped, alone."""
    local = {"heap": "512m", "client_heap": "512m", "epsilon_heap": "6g", "rows": 10}
    paper = {"heap": "512m", "client_heap": "512m", "epsilon_heap": "6g", "rows": 10}
    roomy, _ = size_local(local, paper, Machine(2, 16 << 30))
    assert roomy == local
    small, record = size_local(local, paper, Machine(2, 8 << 30))
    assert small["heap"] == "512m" and small["client_heap"] == "512m"  # the G1 arm keeps its heap
    assert size_bytes(small["epsilon_heap"]) + (512 << 20) <= 0.6 * (8 << 30)
    assert record["changed"]["epsilon_heap"] == ["6g", small["epsilon_heap"]]
