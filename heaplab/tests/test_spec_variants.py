"""Per-variant engine-site overrides and phase parameters, ``admin metrics`` phases, and the one-line
errors for bad variant overrides."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from heaplab.lab.schema import SpecError
from heaplab.lab.spec import parse_spec
from heaplab.report.report import write_report
from heaplab.run.runner import _variant_entry
from heaplab.run.variant_run import ansible_vars
from heaplab.tests.conftest import PUBLISHED
from heaplab.tests.fabricate import Shape, fabricate_run

ARCHIVE = Path("/tmp/heaplab-engine-0.1.0-bin.tar.gz")


def two_variant_spec() -> dict[str, Any]:
    """A lab-07-like spec: a table durability per variant, an MVCC key per variant, one metrics pair."""
    return {
        "lab": "99-test",
        "title": "t",
        "reproduces": [
            {"doc": "002", "experiment": "mvcc_preassign"},
            {"doc": "004", "experiment": "cell_cache_memory", "variants": ["legacy"]},
        ],
        "variants": {
            "legacy": {
                "profile": "hbase1-onheap",
                "site": {"hbase.hregion.mvcc.preassign": False, "hbase.regionserver.handler.count": 10},
                "vars": {"durability": "SYNC_WAL", "offheap": "{mb}"},
                "server_jvm": ["-XX:MaxDirectMemorySize={offheap}m"],
            },
            "preassign": {
                "profile": "hbase1-onheap",
                "published": {"mvcc_preassign": "sync-wal"},
                "site": {"hbase.hregion.mvcc.preassign": "true", "heaplab.x": "{mb}"},
                "vars": {"durability": "ASYNC_WAL", "offheap": "0"},
            },
        },
        "scales": {"ci": {"threads": 2, "rows": 10, "regions": 2, "mb": 64}},
        "site": {"hbase.regionserver.handler.count": "30", "hfile.block.cache.size": 0.4},
        "phases": [
            {
                "name": "create",
                "tool": "admin",
                "args": "create T --presplit={regions} --durability={durability}",
            },
            {"name": "before", "tool": "admin", "args": "metrics --gc"},
            {
                "name": "put",
                "tool": "pe",
                "args": "--rows={rows} randomWrite {threads}",
                "measure": "mvcc_preassign",
            },
            {
                "name": "after",
                "tool": "admin",
                "args": "metrics --gc",
                "measure": ["cell_cache_memory"],
                "baseline": "before",
            },
        ],
        "claims": [
            {
                "id": "r",
                "experiment": "mvcc_preassign",
                "metric": "throughput",
                "expect": "preassign >= 1.3 * legacy",
                "article_ratio": "sync-wal",
            }
        ],
    }


def test_variant_site_sits_on_top_of_the_lab_site() -> None:
    spec = parse_spec(two_variant_spec())
    params = spec.params("ci")
    legacy, preassign = spec.variants["legacy"], spec.variants["preassign"]
    site = ansible_vars(spec, legacy, params, ARCHIVE, Path("/tmp/run"))["heaplab_site"]
    assert site == {
        "hbase.regionserver.handler.count": "10",  # the variant's value wins
        "hfile.block.cache.size": "0.4",
        "hbase.hregion.mvcc.preassign": "false",  # YAML false is written as engine-site.xml's false
    }
    assert spec.site_for(params, preassign)["heaplab.x"] == "64"  # placeholders from the scale
    assert spec.site_for(params) == {
        "hbase.regionserver.handler.count": "30",
        "hfile.block.cache.size": "0.4",
    }


def test_variant_vars_fill_phase_args_and_flags() -> None:
    spec = parse_spec(two_variant_spec())
    params = spec.params("ci")
    for name, durability in (("legacy", "SYNC_WAL"), ("preassign", "ASYNC_WAL")):
        phases = ansible_vars(spec, spec.variants[name], params, ARCHIVE, Path("/tmp/run"))["heaplab_phases"]
        assert phases[0] == {
            "name": "create",
            "tool": "admin",
            "args": f"create T --presplit=2 --durability={durability}",
            "record": False,
        }
        # The playbook's argument spec allows exactly these keys.
        assert all(set(p) == {"name", "tool", "args", "record"} for p in phases)
        assert [p["record"] for p in phases] == [False, False, True, True]
    # a var may use the scale's parameters
    assert spec.server_jvm_flags(spec.variants["legacy"], params) == ["-XX:MaxDirectMemorySize=64m"]


def test_run_json_records_the_variant_site_and_vars() -> None:
    spec = parse_spec(two_variant_spec())
    entry = _variant_entry(spec, spec.variants["legacy"], spec.params("ci"))
    assert entry["site"] == {
        "hbase.hregion.mvcc.preassign": "false",
        "hbase.regionserver.handler.count": "10",
    }
    assert entry["vars"] == {"durability": "SYNC_WAL", "offheap": "64"}
    assert entry["published"] is None
    assert _variant_entry(spec, spec.variants["preassign"], spec.params("ci"))["published"] == {
        "mvcc_preassign": "sync-wal"
    }


def test_metrics_phases_and_experiment_variants() -> None:
    spec = parse_spec(two_variant_spec())
    assert spec.measured_phase("mvcc_preassign").name == "put"
    assert spec.memory_phase("mvcc_preassign") is None
    assert spec.measured_phase("cell_cache_memory") is None
    memory = spec.memory_phase("cell_cache_memory")
    assert memory.name == "after" and memory.baseline == "before" and memory.is_metrics
    assert spec.variants_of("cell_cache_memory") == ["legacy"]
    assert spec.variants_of("mvcc_preassign") == ["legacy", "preassign"]
    assert spec.variants["preassign"].published_for("mvcc_preassign") == "sync-wal"
    assert spec.variants["preassign"].published_for("cell_cache_memory") is None


def _set(path: str, value: Any):
    def mutate(raw: dict[str, Any]) -> None:
        *parents, last = path.split("/")
        node: Any = raw
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if value is _DELETE:
            del node[last]
        else:
            node[int(last) if isinstance(node, list) else last] = value

    return mutate


_DELETE = object()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (_set("variants/legacy/sites", {}), r"variant legacy: unknown key\(s\) sites; valid: profile, "),
        (
            _set("variants/legacy/site/hbase.x", [1, 2]),
            r"variant legacy: site.hbase.x: must be a string, number",
        ),
        (_set("variants/legacy/site", ["a"]), r"variant legacy: site: expected a mapping"),
        (_set("variants/legacy/vars/threads", "8"), r"variant legacy: vars threads would hide the scale"),
        (
            _set("variants/preassign/vars", {}),
            r"phase create \(variant preassign\): unknown parameter\(s\) durab",
        ),
        (_set("variants/legacy/vars/offheap", "{nope}"), r"variant legacy: vars.offheap: unknown parameter"),
        (_set("variants/legacy/site/k", "{nope}"), r"variant legacy: site.k: unknown parameter"),
        (_set("variants/legacy/published", {"nope": "x"}), r"published names experiment\(s\) nope"),
        (_set("variants/legacy/published", ["x"]), r"published must be the article's variant name"),
        (_set("phases/2/measure", ["mvcc_preassign", "zzz"]), r"phase put: measures 'zzz', which the lab"),
        (_set("phases/0/measure", "mvcc_preassign"), r"phase create: an admin phase can measure only as"),
        (_set("phases/3/baseline", "put"), r"phase after: baseline 'put' is not an earlier `admin metrics`"),
        (
            _set("phases/2/baseline", "before"),
            r"phase put: only an `admin metrics` phase can have a baseline",
        ),
        (
            _set("phases/1/measure", "cell_cache_memory"),
            r"cell_cache_memory is measured by several admin metrics",
        ),
        (
            _set("claims/0/expect", "preassign >= 1000"),
            r"claim r: article_ratio needs an expectation between two",
        ),
        (
            _set("reproduces/1/variants", ["ghost"]),
            r"reproduces cell_cache_memory: unknown variant\(s\) ghost",
        ),
        (
            _set("reproduces/0/variants", ["legacy"]),
            r"claim r: variant\(s\) preassign not compared in mvcc_preassign",
        ),
    ],
)
def test_bad_variant_overrides_are_one_line_errors(mutate, message: str) -> None:
    raw = copy.deepcopy(two_variant_spec())
    mutate(raw)
    with pytest.raises(SpecError, match=message) as err:
        parse_spec(raw)
    assert "\n" not in str(err.value)


def test_report_lists_each_variants_overrides(tmp_path: Path) -> None:
    raw = two_variant_spec()
    run = fabricate_run(tmp_path / "r", raw, {"legacy": Shape(), "preassign": Shape()})
    text = write_report(run, PUBLISHED).read_text(encoding="utf-8")
    row = next(x for x in text.splitlines() if x.startswith("| legacy | hbase1-onheap |"))
    assert "hbase.hregion.mvcc.preassign=false, hbase.regionserver.handler.count=10" in row
