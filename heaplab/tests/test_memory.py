"""Memory metrics from `admin metrics` reports, the lab-08 claims on them (both verdicts), and report.md's
memory table beside the Hypertable article's rows."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.analysis.memory import MB, MetricsFileError, flushed_values, load_admin_metrics, memory_values
from heaplab.analysis.metrics import flushed_phase
from heaplab.judge.run_analysis import analyse
from heaplab.judge.verdict import (
    FAILED,
    INCONCLUSIVE,
    NO_EFFECT,
    NOT_MEASURABLE,
    NOT_REPRODUCED,
    OPPOSITE,
    PASSED,
    REPRODUCED,
)
from heaplab.lab.spec import parse_spec
from heaplab.report.report import write_report
from heaplab.tests.conftest import PUBLISHED, REPO
from heaplab.tests.fabricate import Shape, admin_metrics, fabricate_run

LAB08 = REPO / "labs/08-memstore-memory/experiment.yml"
BASE_HEAP = 40 * MB
VALUE_BYTES = 152  # a PE cell with a 100-byte value, serialized


def lab08_spec() -> dict[str, Any]:
    raw = copy.deepcopy(yaml.safe_load(LAB08.read_text(encoding="utf-8")))
    for v in raw["variants"].values():
        v["available"] = True
    return raw


def _write(tmp_path: Path, report: dict[str, Any]) -> Path:
    path = tmp_path / "after-localhost.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_contract_report_is_read(tmp_path: Path) -> None:
    """The contract's example object (every group present), as `admin metrics --report` writes it."""
    report = admin_metrics(90 * MB, direct_used=3 * MB, data_bytes=15 * MB, cells=100_000, onheap_chunks=8)
    m = load_admin_metrics(_write(tmp_path, report))
    assert (m.heap_used, m.direct_used, m.memstore_data, m.cells) == (90 * MB, 3 * MB, 15 * MB, 100_000)
    assert m.gc_requested and m.onheap_chunks == 8 and m.offheap_chunks == 0 and m.index == "CSLM"
    assert m.onheap_data_share == 1.0


def test_retained_and_per_cell_values(tmp_path: Path) -> None:
    cells = 100_000
    base = load_admin_metrics(_write(tmp_path, admin_metrics(BASE_HEAP, direct_used=MB)))
    # plain cells: data on the heap plus 90 bytes of objects per cell
    plain = admin_metrics(
        BASE_HEAP + cells * (VALUE_BYTES + 90), direct_used=MB, data_bytes=cells * VALUE_BYTES, cells=cells
    )
    v = memory_values(load_admin_metrics(_write(tmp_path, plain)), base)
    assert v["heap_retained"] == pytest.approx(cells * (VALUE_BYTES + 90) / MB)
    assert v["direct_retained"] == 0
    assert v["resident_after_insert"] == pytest.approx(v["heap_retained"])
    assert v["heap_bytes_per_cell"] == pytest.approx(VALUE_BYTES + 90)
    assert v["heap_overhead_per_cell"] == pytest.approx(90)
    assert v["cells"] == cells
    # off-heap chunks from a pool reserved at start-up: direct memory used does not grow, the chunks count
    off = admin_metrics(
        BASE_HEAP + cells * 70, direct_used=MB, data_bytes=cells * VALUE_BYTES, cells=cells, offheap_chunks=8
    )
    v = memory_values(load_admin_metrics(_write(tmp_path, off)), base)
    assert v["heap_overhead_per_cell"] == pytest.approx(70)  # no cell data on the heap
    assert v["direct_retained"] == pytest.approx(16)  # 8 chunks x 2 MB
    assert v["resident_after_insert"] == pytest.approx(cells * 70 / MB + 16)


@pytest.mark.parametrize(
    ("report", "message"),
    [
        ({"format": 1, "command": "status"}, "not an `admin metrics` report"),
        ({**admin_metrics(1), "heap": {}}, "missing heap.used_bytes"),
        (
            {**admin_metrics(1), "memstore": {"data_bytes": "x", "cells": 1}},
            "memstore.data_bytes is not a number",
        ),
    ],
)
def test_bad_reports_name_the_problem(tmp_path: Path, report: dict[str, Any], message: str) -> None:
    with pytest.raises(MetricsFileError, match=message):
        load_admin_metrics(_write(tmp_path, report))


def _flushed(retained_mb: float, rss_mb: float = 300) -> dict[str, Any]:
    """The `after_flush` report: no cell left, ``retained_mb`` more heap than at the baseline, the RSS."""
    report = admin_metrics(BASE_HEAP + int(retained_mb * MB))
    report["heap"]["committed_bytes"] = 512 * MB
    return {**report, "process": {"cpu_ms": 900, "rss_bytes": int(rss_mb * MB)}}


def _variant_shape(
    cells: int, heap_per_cell: float, *, data_on_heap: bool, offheap_chunks: int = 0, flushed_mb: float = 2
) -> Shape:
    data = cells * VALUE_BYTES
    heap = int(cells * heap_per_cell + (data if data_on_heap else 0))
    chunks = {"onheap_chunks": (data // (2 * MB) + 1) if data_on_heap and heap_per_cell < 100 else 0}
    return Shape(
        metrics={
            "before": admin_metrics(BASE_HEAP),
            "after": admin_metrics(
                BASE_HEAP + heap, data_bytes=data, cells=cells, offheap_chunks=offheap_chunks, **chunks
            ),
            "after_flush": _flushed(flushed_mb),
        }
    )


def _lab08_run(
    tmp_path: Path,
    per_cell: dict[str, float],
    name: str,
    young_gcs: dict[str, int] | None = None,
    flushed: dict[str, float] | None = None,
    seed: int = 3,
) -> Path:
    """``per_cell``: heap overhead bytes per cell of each variant; ``young_gcs``: young GCs in the insert
    of some variants (default Shape's 6); ``flushed``: MB each variant retains after the flush (default 2)."""
    cells = 20_000
    kept = {v: {"flushed_mb": mb} for v, mb in (flushed or {}).items()}
    shapes = {
        "plain": _variant_shape(cells, per_cell["plain"], data_on_heap=True, **kept.get("plain", {})),
        "mslab-skiplist": _variant_shape(
            cells, per_cell["mslab-skiplist"], data_on_heap=True, **kept.get("mslab-skiplist", {})
        ),
        "mslab-chunkmap": _variant_shape(
            cells, per_cell["mslab-chunkmap"], data_on_heap=True, **kept.get("mslab-chunkmap", {})
        ),
        "offheap-skiplist": _variant_shape(
            cells, per_cell["offheap-skiplist"], data_on_heap=False, offheap_chunks=2
        ),
        "offheap-chunkmap": _variant_shape(
            cells, per_cell["offheap-chunkmap"], data_on_heap=False, offheap_chunks=3
        ),
    }
    for variant, count in (young_gcs or {}).items():
        shapes[variant].young_gcs = count
    return fabricate_run(tmp_path / name, lab08_spec(), shapes, seed=seed)


def lab08_series(tmp_path: Path, per_cell: dict[str, float], name: str, **shape: Any) -> list[Path]:
    """Three runs of one series (run.json ``series``, as `heaplab run --repeat 3` writes it) side by side
    under ``tmp_path/name``: a verdict needs three runs (heaplab.judge.verdict.MIN_RUNS)."""
    runs = [_lab08_run(tmp_path / name, per_cell, f"run-{i}", seed=2 + i, **shape) for i in (1, 2, 3)]
    for i, run in enumerate(runs, 1):
        manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
        manifest["series"] = {"id": f"{name}-x3", "index": i, "of": 3}
        (run / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return runs


def _verdicts(runs: list[Path]) -> dict[str, Any]:
    return {r.claim.id: r for r in analyse(runs[0], PUBLISHED).claims}


# Heap overhead bytes per cell of each variant, as the reference series measured them (test_notebook_labs
# runs the lab-08 notebook on these series too): plain 80 B beside its 152 bytes of cell data, MSLAB 62,
# the flat index 15, the off-heap skip list 68 with no data on the heap, the off-heap flat index 0.4.
LAB08_SHOWS = {
    "plain": 80,
    "mslab-skiplist": 62,
    "mslab-chunkmap": 15,
    "offheap-skiplist": 68,
    "offheap-chunkmap": 0.4,
}
LAB08_SHOWS_YOUNG_GCS = {"mslab-skiplist": 12, "offheap-skiplist": 12}  # enough events for a count
LAB08_FLAT = {
    "plain": 30,  # resident 182 B/cell
    "mslab-skiplist": 80,  # 232 B/cell
    "mslab-chunkmap": 78,  # 230 B/cell; overhead 0.975x mslab-skiplist: inside no effect (1 +-5%)
    "offheap-skiplist": 30,  # heap 30 B/cell: 0.13x mslab-skiplist's 232
    "offheap-chunkmap": 45,
}
LAB08_FLAT_YOUNG_GCS = {"mslab-skiplist": 30, "offheap-skiplist": 12}  # 0.4x
# MB retained after the flush: shaped as figure 7's end (plain keeps the most, the pool with the map almost
# nothing: 1000 -> 145 -> 4.7, the article's 0.145x and 0.0047x), and as a Java heap with HBase 2's chunk
# pool (plain gives everything back, the pools keep their chunks).
LAB08_SHOWS_FLUSHED = {"plain": 1000, "mslab-skiplist": 145, "mslab-chunkmap": 4.7}
LAB08_FLAT_FLUSHED = {"plain": 2, "mslab-skiplist": 8, "mslab-chunkmap": 8.2}


def test_lab08_claims_reproduced(tmp_path: Path) -> None:
    """A series of three runs shaped as the article's figure 7 after the flush (each ratio the article's:
    0.0047x, 0.145x, 0.032x) and as the reference series during the insert (the flat index keeps 167 of
    plain's 232 bytes a cell: 0.72x, inside 0.71x +-15%; overhead 15 / 62 = 0.24x, at most 0.5x); the
    bounds hold: plain's overhead 80 >= 40, the off-heap skip list keeps 68 / 214 = 0.32x >= 0.25x of the
    on-heap MSLAB heap per cell and as many young GCs, the off-heap chunk map 0.4 <= 8 bytes a cell."""
    runs = lab08_series(
        tmp_path, LAB08_SHOWS, "shows", young_gcs=LAB08_SHOWS_YOUNG_GCS, flushed=LAB08_SHOWS_FLUSHED
    )
    assert {k: r.verdict for k, r in _verdicts(runs).items()} == {
        "pool-cells-and-map": REPRODUCED,
        "pool-cells-only": REPRODUCED,
        "pool-map-inside": REPRODUCED,
        "tcmalloc": NOT_MEASURABLE,  # declared measurable: false (no malloc to swap in a JVM)
        "pool-during-insert": REPRODUCED,
        "value-overhead-40b": PASSED,  # a check
        "chunkmap-drops-node-overhead": REPRODUCED,
        "offheap-memstore-little-gain": REPRODUCED,
        "offheap-skiplist-index-stays": PASSED,  # a check
        "offheap-chunkmap-drops": REPRODUCED,
    }


def test_lab08_claims_when_pooling_saves_nothing(tmp_path: Path) -> None:
    """A flat series: after the flush the pools keep 4x what plain cells keep (HBase 2's chunk pool holds
    the flushed chunks; a compacting heap gives plain cells back): the opposite of the article; the two
    pools the same: no effect; during the insert the pool with the map keeps 1.26x plain; plain cells cost
    30 bytes of objects, the off-heap skip list keeps 0.13x of the on-heap MSLAB heap per cell and 0.4x of
    its young GCs, the flat index off heap keeps 45 bytes a cell."""
    per_cell = LAB08_FLAT
    runs = lab08_series(
        tmp_path, per_cell, "flat", young_gcs=LAB08_FLAT_YOUNG_GCS, flushed=LAB08_FLAT_FLUSHED
    )
    results = _verdicts(runs)
    assert {k: r.verdict for k, r in results.items()} == {
        "pool-cells-and-map": OPPOSITE,
        "pool-cells-only": OPPOSITE,
        "pool-map-inside": NO_EFFECT,
        "tcmalloc": NOT_MEASURABLE,
        "pool-during-insert": OPPOSITE,
        "value-overhead-40b": FAILED,
        "chunkmap-drops-node-overhead": NO_EFFECT,
        "offheap-memstore-little-gain": NOT_REPRODUCED,
        "offheap-skiplist-index-stays": FAILED,
        "offheap-chunkmap-drops": NOT_REPRODUCED,
    }
    pool = results["pool-cells-and-map"]
    assert pool.measured == {"mslab-chunkmap": pytest.approx(8.2), "plain": pytest.approx(2)}
    assert pool.ratio == pytest.approx(4.1)
    assert pool.article == {"mslab-chunkmap": 30, "plain": 6400}  # the article's MB (figure 7)
    during = results["pool-during-insert"]
    resident = {v: 20_000 * (per_cell[v] + VALUE_BYTES) / MB for v in ("mslab-chunkmap", "plain")}
    assert during.measured == {v: pytest.approx(x) for v, x in resident.items()}
    assert during.ratio == pytest.approx(230 / 182)
    overhead = results["chunkmap-drops-node-overhead"]
    assert overhead.measured == {"mslab-chunkmap": pytest.approx(78), "mslab-skiplist": pytest.approx(80)}
    assert overhead.article == {"mslab-chunkmap": None, "mslab-skiplist": None}  # no bytes per cell there


def test_missing_metrics_report_is_inconclusive(tmp_path: Path) -> None:
    runs = lab08_series(
        tmp_path, LAB08_SHOWS, "missing", young_gcs=LAB08_SHOWS_YOUNG_GCS, flushed=LAB08_SHOWS_FLUSHED
    )
    (runs[0] / "plain/client/after-localhost.json").unlink()
    results = _verdicts(runs)
    assert results["pool-cells-and-map"].verdict == INCONCLUSIVE  # two runs left
    assert "no admin metrics report after-<host>.json" in results["pool-cells-and-map"].why
    assert results["offheap-chunkmap-drops"].verdict == REPRODUCED


def test_heap_below_the_baseline_is_judged(tmp_path: Path) -> None:
    """With the flat index off heap the heap keeps almost nothing: after the insert it can be a little below
    the baseline (a local run: -0.69 B/cell). offheap-chunkmap-drops bounds the value, so a negative one is
    judged as it is."""
    per_cell = {**LAB08_SHOWS, "offheap-chunkmap": -0.7}
    runs = lab08_series(tmp_path, per_cell, "below", flushed=LAB08_SHOWS_FLUSHED)
    drops = _verdicts(runs)["offheap-chunkmap-drops"]
    assert drops.verdict == REPRODUCED
    assert drops.measured == {"offheap-chunkmap": pytest.approx(-0.7, abs=0.01)}


def test_missing_report_after_the_flush_leaves_the_insert_metrics(tmp_path: Path) -> None:
    """Without the report after the flush the claims on it leave that run out, saying what is missing,
    while the same variant's metrics of the insert are still judged on every run."""
    runs = lab08_series(
        tmp_path, LAB08_SHOWS, "noflush", young_gcs=LAB08_SHOWS_YOUNG_GCS, flushed=LAB08_SHOWS_FLUSHED
    )
    (runs[0] / "plain/client/after_flush-localhost.json").unlink()
    results = _verdicts(runs)
    for claim in ("pool-cells-and-map", "pool-cells-only"):
        assert results[claim].verdict == INCONCLUSIVE  # two runs left
        assert "plain has no resident_after_flush" in results[claim].why
    assert results["pool-map-inside"].verdict == REPRODUCED  # the two pools' reports are there
    assert results["value-overhead-40b"].verdict == PASSED  # plain's insert still measured
    assert results["pool-during-insert"].verdict == REPRODUCED


def test_flushed_phase_is_the_metrics_after_a_flush() -> None:
    """heaplab finds the report after the flush by the phases' order: the first `admin metrics --gc` after
    an `admin flush` that follows the measured memory phase (lab 08: after_flush, against before)."""
    spec = parse_spec(lab08_spec())
    memory = spec.memory_phase("cell_cache_memory")
    assert memory is not None and memory.name == "after"
    flushed = flushed_phase(spec, memory)
    assert flushed is not None and (flushed.name, flushed.baseline) == ("after_flush", "before")
    raw = lab08_spec()
    raw["phases"] = [p for p in raw["phases"] if p["name"] != "flush"]  # no flush: no such report
    spec = parse_spec(raw)
    memory = spec.memory_phase("cell_cache_memory")
    assert memory is not None and flushed_phase(spec, memory) is None


def test_flushed_values(tmp_path: Path) -> None:
    """retained after the flush = heap and direct growth since the baseline, plus off-heap chunks still
    taken; the committed heap and the RSS as the report gives them, the RSS left out when absent."""
    base = load_admin_metrics(_write(tmp_path, admin_metrics(BASE_HEAP, direct_used=MB)))
    flushed = {**_flushed(6), "direct": {"used_bytes": 3 * MB, "buffers": 1}}
    flushed["memstore"]["chunks"]["offheap_in_use"] = 1  # a chunk a scanner still held, 2 MB
    v = flushed_values(load_admin_metrics(_write(tmp_path, flushed)), base)
    assert v == {
        "resident_after_flush": pytest.approx(6 + 2 + 2),
        "heap_committed_after_flush": 512,
        "rss_after_flush": 300,
    }
    del flushed["process"]
    v = flushed_values(load_admin_metrics(_write(tmp_path, flushed)), None)
    assert v == {"heap_committed_after_flush": 512}  # no baseline: no retained memory


def test_report_shows_memory_beside_the_article(tmp_path: Path) -> None:
    run = _lab08_run(
        tmp_path,
        {
            "plain": 90,
            "mslab-skiplist": 40,
            "mslab-chunkmap": 20,
            "offheap-skiplist": 38,
            "offheap-chunkmap": 4,
        },
        "report",
    )
    text = write_report(run, PUBLISHED).read_text(encoding="utf-8")
    section = text.split("\n## cell_cache_memory ", 1)[1].split("\n## ", 1)[0]
    assert "| retained after insert (MB) |" in section and "| heap overhead B/cell |" in section
    assert "| 99.9% |" in section  # the insert phase's client metrics too
    article = next(x for x in section.splitlines() if x.startswith("| plain | article (new-delete) |"))
    assert "| 6400 |" in article
    measured = next(x for x in section.splitlines() if x.startswith("| plain | this run (ci) |"))
    assert f"| {20_000} |" in measured and "| 90 |" in measured  # cells, heap overhead per cell
    assert "- article, tcmalloc (no variant here): resident_after_flush = 4400 MB" in section
    assert "| retained after flush (MB) |" in section and "| RSS after flush (MB) |" in section
    header = next(x for x in section.splitlines() if x.startswith("| variant | source |"))
    column = header.split(" | ").index("retained after flush (MB)")
    assert article.split(" | ")[column] == "6400" and measured.split(" | ")[column] == "2.00"
    claims = json.loads((run / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert claims["pool-cells-and-map"]["ratio"] == pytest.approx(1.0)  # 2 MB left by each after the flush
    # resident after the insert: the overhead plus the 152-byte cell, both on the heap
    assert claims["pool-during-insert"]["ratio"] == pytest.approx((20 + VALUE_BYTES) / (90 + VALUE_BYTES))
    assert "](figures/cell_cache_memory-memory.png)" in section
    assert (run / "figures/cell_cache_memory-memory.png").read_bytes()[:4] == b"\x89PNG"


DATA = Path(__file__).parent / "data"


def test_real_engine_reports() -> None:
    """Reports the engine wrote in a ci run of lab 08 (heaplab/tests/data, copied from the run's client/):
    plain cells keep everything on the heap; offheap-chunkmap keeps almost nothing there and its data in
    64 KB direct chunks from the pool it reserved at start-up."""
    plain = memory_values(
        load_admin_metrics(DATA / "admin-metrics-plain-after.json"),
        load_admin_metrics(DATA / "admin-metrics-plain-before.json"),
    )
    before = load_admin_metrics(DATA / "admin-metrics-offheap-chunkmap-before.json")
    after = load_admin_metrics(DATA / "admin-metrics-offheap-chunkmap-after.json")
    assert before.cells == 0 and after.cells == 40_000 and after.index == "CHUNK_MAP"
    assert after.gc_requested and after.offheap_chunks == 100 and after.onheap_chunks == 0
    assert after.chunk_bytes is None  # not reported yet: the spec's chunk size is used
    off = memory_values(after, before, chunk_bytes=65536)
    assert plain["cells"] == off["cells"] == 40_000
    assert plain["memstore_data"] == pytest.approx(off["memstore_data"]) == pytest.approx(6_080_000 / MB)
    # plain: the data and its objects on the heap, a little over the engine's 80-byte estimate per cell
    assert 60 < plain["heap_overhead_per_cell"] < 120
    assert plain["heap_bytes_per_cell"] == pytest.approx(plain["heap_overhead_per_cell"] + 152)
    # offheap-chunkmap: direct = growth of direct memory + 100 chunks of 64 KB
    growth = (after.direct_used - before.direct_used) / MB
    assert off["direct_retained"] == pytest.approx(growth + 100 * 65536 / MB)
    assert off["heap_bytes_per_cell"] < 0.5 * plain["heap_bytes_per_cell"]
    assert off["heap_overhead_per_cell"] == pytest.approx(off["heap_bytes_per_cell"])  # no data on the heap
