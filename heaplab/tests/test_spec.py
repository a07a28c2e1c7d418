from pathlib import Path

import pytest

from heaplab.lab.catalogue import METRICS
from heaplab.lab.schema import SpecError
from heaplab.lab.spec import list_labs, load_spec, parse_spec, resolve_lab
from heaplab.tests.conftest import FIXTURE, REPO
from heaplab.tests.fabricate import lab03_spec


def test_real_lab_specs_validate() -> None:
    specs = list_labs(REPO)
    if not specs:
        pytest.skip("no labs/*/experiment.yml in this checkout yet")
    for path in specs:
        assert load_spec(path).lab == path.parent.name


def test_params_and_phases_are_filled_per_scale() -> None:
    spec = parse_spec(lab03_spec())
    for scale, raw in spec.scales.items():
        params = spec.params(scale)
        assert params["total_rows"] == raw["threads"] * raw["rows"]
        phases = spec.phases_for(params)
        measured = [p for p in phases if p["record"]]
        assert [p["measure"] for p in measured] == [[r["experiment"]] for r in lab03_spec()["reproduces"]]
        assert f"--rows={raw['rows']}" in measured[0]["args"]
        assert measured[0]["args"].endswith(f"randomWrite {raw['threads']}")
        assert all("{" not in p["args"] for p in phases)
        onheap = spec.variants["hbase1-onheap"]
        server = spec.server_jvm_flags(onheap, params)
        assert server[:2] == [f"-Xms{raw['heap']}", f"-Xmx{raw['heap']}"]
        assert spec.client_jvm_flags(onheap, params)[0] == f"-Xmx{raw['client_heap']}"


def test_unknown_scale_lists_valid_ones() -> None:
    spec = parse_spec(lab03_spec())
    with pytest.raises(SpecError, match="valid scales: ci, local, paper"):
        spec.params("huge")


def test_unknown_lab_lists_valid_ones(fake_root: Path) -> None:
    with pytest.raises(SpecError, match="valid labs: 03-offheap-write"):
        resolve_lab(fake_root, "99-nope")


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r["phases"][0].update(args="--rows={nope}"), "unknown parameter"),
        (lambda r: r["phases"][0].update(tool="hammer"), "unknown tool"),
        (lambda r: r["variants"]["hbase2-offheap"].pop("why"), "needs a 'why'"),
        (lambda r: r["claims"][0].update(metric="latency_p42"), "unknown metric"),
        (lambda r: r["claims"][0].update(expect="hbase3 <= hbase1-onheap"), "unknown variant"),
        (lambda r: r["claims"][0].update(expect="hbase2-offheap == 1"), "cannot parse"),
        (lambda r: r["phases"][2].update(measure="get_all_cached"), "does not reproduce"),
        (lambda r: r.pop("phases"), "missing required key 'phases'"),
        (lambda r: r["phases"].append({"name": "meter", "tool": "hiccup", "args": ""}), "runs until stopped"),
        (
            lambda r: r["phases"].append({"name": "meter", "tool": "hiccup", "args": "", "background": True}),
            "runs until stopped",
        ),
    ],
)
def test_bad_specs_are_rejected_with_a_reason(mutate, message: str) -> None:
    raw = lab03_spec()
    mutate(raw)
    with pytest.raises(SpecError, match=message):
        parse_spec(raw)


def test_lab_name_must_match_its_directory(tmp_path: Path) -> None:
    wrong = tmp_path / "labs" / "04-elsewhere"
    wrong.mkdir(parents=True)
    (wrong / "experiment.yml").write_text((FIXTURE / "experiment.yml").read_text())
    with pytest.raises(SpecError, match="does not match its directory"):
        load_spec(wrong / "experiment.yml")


def test_every_metric_a_claim_may_name_is_defined_in_the_docs() -> None:
    """The catalogue (heaplab.lab.catalogue) is what a claim may name; docs/analysis.md defines each one, or
    docs/contracts.md section 7 for the `admin metrics` reports' figures."""
    text = "".join(
        (REPO / "docs" / name).read_text(encoding="utf-8") for name in ("analysis.md", "contracts.md")
    )
    assert [m for m in METRICS if f"`{m}`" not in text] == []


def test_a_variant_heap_replaces_the_scale_heap_and_hiccup_phases_skip_apache_hbase() -> None:
    """Lab 01's Epsilon arm takes its own heap; its hiccup control runs on engine variants only."""
    spec = load_spec(REPO / "labs/01-tail-latency/experiment.yml")
    params = spec.params("local")
    epsilon, g1 = spec.variants["hbase1-onheap-epsilon"], spec.variants["hbase1-onheap"]
    assert spec.server_jvm_flags(epsilon, params)[:2] == [
        f"-Xms{params['epsilon_heap']}",
        f"-Xmx{params['epsilon_heap']}",
    ]
    assert spec.server_jvm_flags(g1, params)[:2] == [f"-Xms{params['heap']}", f"-Xmx{params['heap']}"]
    assert "hiccup" in [p["tool"] for p in spec.phases_for(params, g1)]
    assert "hiccup" not in [p["tool"] for p in spec.phases_for(params, spec.variants["cms-onheap-1.x"])]
