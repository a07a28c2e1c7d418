"""run.json's fields as the later stages read them: typed properties of a loaded Run, not the raw dict."""

from __future__ import annotations

import json
from pathlib import Path

from heaplab.runfiles.rundir import Run, load_run
from heaplab.tests.conftest import REPO

FIXTURE = REPO / "results" / "reference" / "03-offheap-write-ci-fixture"


def test_a_committed_run_reads_through_its_fields() -> None:
    run = load_run(FIXTURE)
    raw = json.loads((FIXTURE / "run.json").read_text(encoding="utf-8"))
    assert run.started == raw["start"]
    assert run.status == raw["status"] == "complete"
    assert run.scale_params == raw["scale_params"] and run.scale_params["threads"] > 0
    assert run.aa is None and run.predictions == {}
    assert [h["name"] for h in run.hosts] == [h["name"] for h in raw["hosts"]]


def test_fields_a_run_may_lack_or_carry_malformed(tmp_path: Path) -> None:
    spec = load_run(FIXTURE).spec
    bare = Run(tmp_path, {"lab": "x", "scale": "ci", "start": "2026-12-02T00:00:00Z"}, spec)
    assert (bare.status, bare.aa, bare.series, bare.scale_params, bare.predictions, bare.hosts) == (
        None,
        None,
        None,
        {},
        {},
        [],
    )
    odd = Run(tmp_path, {"aa": "a", "series": [1], "hosts": ["h", {"name": "n"}]}, spec)
    assert odd.aa is None and odd.series is None and odd.hosts == [{"name": "n"}]
    aa = Run(tmp_path, {"aa": {"variant": "a", "twin": "a-aa"}, "series": {"id": "s", "index": 1}}, spec)
    assert aa.aa == {"variant": "a", "twin": "a-aa"} and aa.series == {"id": "s", "index": 1}
