"""Labs 04, 06 and 09 (the read path): their real specs are valid and sized as their comments say, the read
metrics and claims come out of fabricated runs of those specs (one showing the articles' effects, one not),
and their notebooks execute headless against them."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml

from heaplab.analysis import analyse
from heaplab.claims import INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED
from heaplab.memory import MB
from heaplab.spec import load_spec, parse_spec
from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import Shape, admin_metrics, fabricate_run, read_groups
from heaplab.tests.shared_runs import execute_notebook

LABS = ("04-offheap-read", "06-row-index", "09-random-reads")
CELL_BYTES = 260  # a PE cell with a 200-byte value, in a block: 26-byte row, family, qualifier, timestamp


def real_spec(lab: str, *, all_available: bool = True) -> dict[str, Any]:
    raw = copy.deepcopy(yaml.safe_load((REPO / "labs" / lab / "experiment.yml").read_text(encoding="utf-8")))
    if all_available:
        for v in raw["variants"].values():
            v["available"] = True
            v.pop("why", None)
    return raw


@pytest.mark.parametrize("lab", LABS)
def test_spec_is_valid_with_three_scales_and_a_handout(lab: str) -> None:
    spec = load_spec(REPO / "labs" / lab / "experiment.yml")
    assert set(spec.scales) == {"ci", "local", "paper"}
    assert (REPO / "labs" / lab / "README.md").is_file()
    assert (REPO / "notebooks" / f"{lab}.ipynb").is_file()
    for exp in spec.experiments:  # every experiment has a measured read and a counter pair around it
        read, counters = spec.measured_phase(exp), spec.memory_phase(exp)
        assert read is not None and "randomRead" in read.args, exp
        assert counters is not None and not counters.measures_memory and counters.baseline, exp
        names = [p.name for p in spec.phases]
        assert names.index(counters.baseline) < names.index(read.name) < names.index(counters.name)
    for claim in spec.claims:
        assert claim.says, claim.id


def test_lab04_local_tables_fit_or_exceed_the_cache() -> None:
    """The all-cached table fits the cache, the partly cached one does not (about 60% of it fits)."""
    spec = load_spec(REPO / "labs/04-offheap-read/experiment.yml")
    for scale in ("local", "paper"):
        p = spec.params(scale)
        assert (
            p["small_total"] == p["threads"] * p["small_rows"]
            and p["big_total"] == p["threads"] * p["big_rows"]
        )
        assert p["cache_bytes"] == p["cache_mb"] * MB and p["l1_bytes"] == p["l1_mb"] * MB
        assert p["writer_total"] == p["writers"] * p["writer_rows"]
        cache = p["cache_mb"] * MB
        assert p["small_total"] * CELL_BYTES < 0.8 * cache, scale
        assert 0.4 < cache / (p["big_total"] * CELL_BYTES) < 0.8, scale
    # the same cache for every variant; the writer outlasts the mixed read and is stopped by it
    writer = spec.phase("writer")
    assert writer.background and writer.until == "get_mixed" and "--blockEncoding=DIFF" in writer.args
    sites = {n: spec.site_for(spec.params("local"), v) for n, v in spec.variants.items()}
    assert sites["hbase1-onheap"]["heaplab.block.cache.bytes"] == str(100663296)
    assert (
        sites["hbase2-offheap"]["hbase.bucketcache.size"]
        == sites["bucket-heap-copy"]["hbase.bucketcache.size"]
        == "96"
    )
    assert sites["hbase2-offheap"]["heaplab.regionserver.read.path"] == "zero-copy"
    assert sites["bucket-heap-copy"]["heaplab.regionserver.read.path"] == "heap-copy"


def test_lab06_tables_fit_the_cache_and_share_their_size() -> None:
    spec = load_spec(REPO / "labs/06-row-index/experiment.yml")
    for scale in ("local", "paper"):
        p = spec.params(scale)
        sizes = {}
        for name, v in spec.variants.items():
            vp = spec.variant_params(v, p)
            rows = int(vp["n"]) * p["threads"]
            assert int(vp["n_total"]) == rows, name
            sizes[name] = rows * (int(vp["value_size"]) + 46)
        assert max(sizes.values()) < 0.8 * p["cache_bytes"], scale
        assert max(sizes.values()) < 1.6 * min(sizes.values()), scale


def test_lab09_store_files_and_hot_table() -> None:
    spec = load_spec(REPO / "labs/09-random-reads/experiment.yml")
    flushes = {}
    for name, v in spec.variants.items():
        args = [p["args"] for p in spec.phases_for(spec.params("local"), v) if p["tool"] == "admin"]
        flushes[name] = (sum(a == "flush TestTable" for a in args), "compact TestTable" in args)
    assert flushes["files-10"] == (10, False) and flushes["files-5"] == (5, False)
    assert flushes["files-1"] == (10, True)
    for scale in ("local", "paper"):
        p = spec.params(scale)
        assert p["threads"] * p["rows"] * CELL_BYTES > p["files_cache"], scale  # one round exceeds the cache
        assert p["hot_total"] * 640 < 0.25 * p["hot_cache"], (
            scale
        )  # the in-memory quarter holds the hot table
        for n in (1, 16, 40):
            assert n * p[f"hot_{n}"] == p["hot_total"], (scale, n)


# --- fabricated runs of the real specs ------------------------------------------------------------------


def _pair(gets: int, **after: int) -> dict[str, dict[str, Any]]:
    """An `admin metrics` pair (no --gc) whose counters grow by ``gets`` and ``after`` over a warm-up."""
    warm = read_groups(gets, data_hits=gets // 2, data_misses=gets // 2, blocks_read=gets // 2, cpu_ms=1000)
    grown = {
        "gets": 2 * gets,
        "data_hits": gets // 2 + after.get("data_hits", 0),
        "data_misses": gets // 2 + after.get("data_misses", 0),
        "blocks_read": gets // 2 + after.get("blocks_read", 0),
        "cpu_ms": 1000 + after.get("cpu_ms", 0),
        "qc_hits": after.get("qc_hits", 0),
        "qc_misses": after.get("qc_misses", 0),
    }
    return {
        "before": admin_metrics(40 * MB, gc_requested=False, reads=warm),
        "after": admin_metrics(41 * MB, gc_requested=False, reads=read_groups(**grown)),
    }


def _metrics(pairs: dict[str, tuple[str, dict[str, dict[str, Any]]]]) -> dict[str, dict[str, Any]]:
    """{phase name: report} from {experiment label: (before phase, after phase) -> pair}."""
    out = {}
    for before, after, pair in pairs.values():
        out[before], out[after] = pair["before"], pair["after"]
    return out


def lab04_run(tmp: Path, shows: bool) -> Path:
    gets = 4000  # ci: 4 threads x 1000 rows for the small table
    big = 16000

    def shape(variant: str) -> Shape:
        offheap = variant != "hbase1-onheap"
        zero = variant == "hbase2-offheap"
        hit = (0.45 if offheap else 0.6) if shows else 0.6
        pause = 10.0 if (offheap and shows) else 60.0
        fast = 0.6 if (zero and shows) else 1.0  # zero-copy: 1/0.6 = 1.67x the throughput
        mixed = 4 if (not offheap and shows) else 8
        return Shape(
            young_gcs=4,
            gc_pause_ms=pause,
            phases={
                "get_small": Shape(base_us=300, young_gcs=2, gc_pause_ms=pause, duration_s=4),
                "get_big": Shape(base_us=900, young_gcs=6, gc_pause_ms=pause, duration_s=round(10 * fast)),
                "get_mixed": Shape(
                    base_us=1500, young_gcs=8, gc_pause_ms=pause * 3, duration_s=16 // mixed * 2
                ),
            },
            metrics=_metrics(
                {
                    "small": ("before_small", "after_small", _pair(gets, data_hits=gets, cpu_ms=400)),
                    "big": (
                        "before_big",
                        "after_big",
                        _pair(
                            big,
                            data_hits=int(big * hit),
                            data_misses=big - int(big * hit),
                            blocks_read=big - int(big * hit),
                            cpu_ms=int(big * (0.1 if zero else 0.15)),
                        ),
                    ),
                    "mixed": (
                        "before_mixed",
                        "after_mixed",
                        _pair(big, data_hits=big // 2, data_misses=big // 2),
                    ),
                }
            ),
        )

    spec = real_spec("04-offheap-read")
    return fabricate_run(tmp, spec, {v: shape(v) for v in spec["variants"]})


def test_lab04_read_metrics_and_claims(tmp_path: Path) -> None:
    a = analyse(lab04_run(tmp_path / "shows", shows=True))
    big = a.measurements["get_partly_cached"]
    assert big["hbase1-onheap"].values["data_block_hit_ratio"] == pytest.approx(0.6)
    assert big["hbase2-offheap"].values["data_block_hit_ratio"] == pytest.approx(0.45)
    assert big["hbase2-offheap"].values["disk_reads_per_get"] == pytest.approx(0.55)
    assert big["hbase2-offheap"].values["cpu_us_per_get"] == pytest.approx(100)
    assert a.measurements["offheap_read_path"]["bucket-heap-copy"].values["cpu_us_per_get"] == pytest.approx(
        150
    )
    verdicts = {r.claim.id: r for r in a.claims}
    assert verdicts["bucket-wastes-space"].verdict == REPRODUCED
    assert verdicts["e2e-read-path-throughput"].verdict == REPRODUCED
    assert verdicts["e2e-read-path-throughput"].article_ratio == pytest.approx(1.30)
    assert verdicts["partly-cached-young-pauses"].verdict == REPRODUCED

    flat = {r.claim.id: r.verdict for r in analyse(lab04_run(tmp_path / "flat", shows=False)).claims}
    assert flat["bucket-wastes-space"] == NOT_REPRODUCED
    assert flat["e2e-read-path-throughput"] == NOT_REPRODUCED


def test_lab04_notebook(tmp_path: Path) -> None:
    nb, text = execute_notebook(
        REPO / "notebooks/04-offheap-read.ipynb", lab04_run(tmp_path / "run", shows=True)
    )
    assert "### get_partly_cached" in text and "### offheap_read_path" in text
    assert "| data-block hit ratio | disk reads/get | CPU us/get |" in text
    assert "article, offheap (no variant here): throughput_ratio = 1.3 x" in text
    assert "| bucket-wastes-space |" in text and "**reproduced**" in text
    assert sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])) == 2


def lab06_run(tmp: Path, shows: bool) -> Path:
    spec = real_spec("06-row-index")
    shapes = {}
    for name in spec["variants"]:
        enc, size = name.rsplit("-", 1)
        gain = {"none": 1.0, "diff": 1.3, "row-index": 0.7}[enc] if (shows and size in ("16", "64")) else 1.0
        gets = 4 * parse_spec(spec).params("ci")[f"rows_{size}"]
        shapes[name] = Shape(
            young_gcs=1,
            duration_s=max(2, round(6 * gain)),
            metrics={
                "before": _pair(gets)["before"],
                "after": _pair(gets, data_hits=gets, cpu_ms=int(gets * 0.05 * gain))["after"],
            },
        )
    return fabricate_run(tmp, spec, shapes)


def test_lab06_claims_and_notebook(tmp_path: Path) -> None:
    run = lab06_run(tmp_path / "shows", shows=True)
    a = analyse(run)
    assert a.measurements["row_index_encoding"]["row-index-16"].values["data_block_hit_ratio"] == 1.0
    verdicts = {r.claim.id: r for r in a.claims}
    assert verdicts["row-index-small-kv-throughput"].verdict == REPRODUCED
    assert verdicts["row-index-small-kv-throughput"].article_ratio == pytest.approx(1.10)
    assert verdicts["row-index-small-kv-cpu"].verdict == REPRODUCED
    assert verdicts["row-index-large-kv-no-gain"].verdict == REPRODUCED
    flat = {r.claim.id: r.verdict for r in analyse(lab06_run(tmp_path / "flat", shows=False)).claims}
    assert flat["row-index-small-kv-throughput"] == NOT_REPRODUCED
    nb, text = execute_notebook(REPO / "notebooks/06-row-index.ipynb", run)
    assert "### row_index_encoding_1000" in text and "| value size | NONE TPS |" in text
    assert "article, row-index-v1 (no variant here): throughput_ratio = 1.1 x" in text
    assert sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])) == 1


def lab09_run(tmp: Path, shows: bool, unavailable: tuple[str, ...] = ()) -> Path:
    spec = real_spec("09-random-reads")
    for name in unavailable:
        spec["variants"][name].update(available=False, why="needs the row query cache")
    files = {"files-10": 10, "files-5": 5, "files-1": 1}
    readers = {"hot-1": 1, "hot-16": 16, "hot-40": 40, "query-cache": 16}
    shapes = {}
    for name in spec["variants"]:
        if name in unavailable:
            continue
        n = files.get(name, 1) if shows else 3
        read_files = _pair(
            2000, blocks_read=int(2000 * 0.9 * n), data_misses=int(2000 * 0.9 * n), cpu_ms=200 * n
        )
        qc = name == "query-cache"
        hot = _pair(
            1600,
            data_hits=0 if qc else 1600,
            qc_hits=1250 if qc else 0,
            qc_misses=350 if qc else 0,
            cpu_ms=40 if qc else 80,
        )
        hot_s = {1: 12, 16: 4, 40: 3}[readers.get(name, 16)] if shows else 6
        shapes[name] = Shape(
            young_gcs=2,
            phases={
                "read_files": Shape(young_gcs=2, duration_s=2 + n if shows else 6),
                "read_hot": Shape(young_gcs=1, duration_s=hot_s - (1 if qc and shows else 0)),
            },
            metrics=_metrics(
                {
                    "files": ("before_files", "after_files", read_files),
                    "hot": ("before_hot", "after_hot", hot),
                }
            ),
        )
    return fabricate_run(tmp, spec, shapes)


def test_lab09_claims_and_notebook(tmp_path: Path) -> None:
    run = lab09_run(tmp_path / "shows", shows=True)
    a = analyse(run)
    files = a.measurements["store_files_random_read"]
    assert files["files-10"].values["disk_reads_per_get"] == pytest.approx(9.0)
    assert files["files-1"].values["disk_reads_per_get"] == pytest.approx(0.9)
    qc = a.measurements["query_cache"]["query-cache"].values
    assert qc["query_cache_hit_ratio"] == pytest.approx(1250 / 1600)
    verdicts = {r.claim.id: r.verdict for r in a.claims}
    assert set(verdicts.values()) == {REPRODUCED}, verdicts
    nb, text = execute_notebook(REPO / "notebooks/09-random-reads.ipynb", run)
    assert "| files-5 | article (per-range-4.4-files) |" in text and "8.80" in text
    assert "| hot-16 | article (16-processes) | 12700 |" in text
    assert sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", [])) == 1


def test_lab09_flat_run_and_an_unavailable_variant(tmp_path: Path) -> None:
    run = lab09_run(tmp_path / "flat", shows=False, unavailable=("query-cache",))
    verdicts = {r.claim.id: r for r in analyse(run).claims}
    assert verdicts["reads-grow-with-files"].verdict == NOT_REPRODUCED
    assert verdicts["query-cache-hits"].verdict == INCONCLUSIVE
    assert "not yet available: needs the row query cache" in verdicts["query-cache-hits"].why
    _, text = execute_notebook(REPO / "notebooks/09-random-reads.ipynb", run)
    assert "not yet available: needs the row query cache" in text and "**not reproduced**" in text


def test_notebooks_are_clean() -> None:
    """Committed without outputs, with a parameters cell (the tests inject run_dir after it)."""
    for lab in LABS:
        nb = nbformat.read(REPO / "notebooks" / f"{lab}.ipynb", as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), lab
        assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), lab
