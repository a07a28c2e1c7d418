"""The lab-07 and lab-08 notebooks execute headless (nbclient) against fabricated runs of the real specs,
one series that shows the article's effects and one that does not, and show the tables, ratios and
verdicts; a single run shows its values as indicative, never a verdict (a verdict needs three runs)."""

from __future__ import annotations

from pathlib import Path

import nbformat

from heaplab.tests.conftest import REPO
from heaplab.tests.fabricate import Shape, fabricate_run, mark_series
from heaplab.tests.shared_runs import execute_notebook
from heaplab.tests.test_memory import (
    LAB08_FLAT,
    LAB08_FLAT_FLUSHED,
    LAB08_FLAT_YOUNG_GCS,
    LAB08_SHOWS,
    LAB08_SHOWS_FLUSHED,
    LAB08_SHOWS_YOUNG_GCS,
    lab08_series,
)
from heaplab.tests.test_ratio_claims import FAST, _run, lab07_spec


def _pngs(nb: nbformat.NotebookNode) -> int:
    return sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


def _labels(text: str, labels: tuple[str, ...]) -> set[str]:
    """The verdict labels the notebook's claims table shows (bold), of ``labels``."""
    return {level for level in labels if f"**{level}**" in text}


NB07 = REPO / "notebooks/07-write-pipeline.ipynb"
NB08 = REPO / "notebooks/08-memstore-memory.ipynb"
THREE_RUNS = "(95% t over 3 runs)"
ARTICLE_SIDE = ("reproduced", "smaller than the article", "larger than the article")
AGAINST = ("not reproduced", "no effect", "opposite", "inconclusive")


def test_lab07_notebook_shows_ratios_and_verdicts(tmp_path: Path) -> None:
    run = mark_series([_run(tmp_path, FAST, f"fast-{seed}", seed) for seed in (3, 4, 5)])
    nb, text = execute_notebook(NB07, run)
    assert "### mvcc_preassign" in text and "### staged_write_path" in text
    assert "article, sync-wal (no variant here): throughput_ratio = 1.3 x" in text
    assert "| MVCC pre-assign, SYNC_WAL (article 1.30x) | 1.30x |" in text  # 13 s vs 10 s for the same rows
    assert "| preassign-sync-wal |" in text and "| 1.30x | 1.30x | **reproduced** |" in text
    assert THREE_RUNS in text  # the notebook judged the whole series, not its first run alone
    assert not _labels(text, AGAINST)
    assert _pngs(nb) == 2


def test_lab07_notebook_with_an_unavailable_variant(tmp_path: Path) -> None:
    """The real spec's unavailable variants are recorded, not measured; the notebook says so.  Every
    variant takes as long, in one run: a ratio of 1, shown as indicative and judged `inconclusive` against
    the article's 1.7x and 1.3x alike (a verdict, `no effect` here, needs three runs)."""
    shapes = {v: Shape(duration_s=8) for v in FAST if v != "sync-staged"}
    spec = lab07_spec()
    spec["variants"]["sync-staged"].update(available=False, why="needs the staged write path")
    _, text = execute_notebook(NB07, fabricate_run(tmp_path / "flat", spec, shapes))
    assert "not yet available: needs the staged write path" in text  # the variants' tables
    assert "sync-staged is unavailable here: needs the staged write path" in text  # the claims table
    assert "**not measurable here**" in text
    assert "| preassign-async-wal |" in text and "| 1.70x | 1.00x | **inconclusive** |" in text
    assert "| preassign-sync-wal |" in text and "| 1.30x | 1.00x | **inconclusive** |" in text
    assert "indicative only: a verdict needs 3 runs, this has 1" in text
    assert _labels(text, ARTICLE_SIDE + AGAINST) == {"inconclusive"}


def test_lab08_notebook_shows_memory_per_cell(tmp_path: Path) -> None:
    """A series of three runs shaped as the article (heaplab.tests.test_memory: after the flush as figure 7,
    during the insert as the reference series): the memory table, the report after the flush and every
    claim on the article's side, the checks passed."""
    runs = lab08_series(
        tmp_path, LAB08_SHOWS, "shows", young_gcs=LAB08_SHOWS_YOUNG_GCS, flushed=LAB08_SHOWS_FLUSHED
    )
    nb, text = execute_notebook(NB08, runs[0])
    assert "| heap overhead B/cell |" in text and "article, tcmalloc (no variant here)" in text
    assert "| plain | article (new-delete) |" in text
    # section 3: what each variant holds after the flush (fabricated: 1000 MB of heap left by plain cells)
    assert "| plain | 0 | 0 | 0 | 1000.0 | 0.0 | 1000.0 | 512 | 300 |" in text
    assert "**reproduced**" in text and "**passed**" in text  # the two checks
    assert "**not measurable here**" in text  # tcmalloc: measurable: false
    assert THREE_RUNS in text
    assert _labels(text, ARTICLE_SIDE + AGAINST) == {"reproduced"}
    assert "**failed**" not in text
    assert _pngs(nb) >= 1


def test_lab08_notebook_when_pooling_saves_little(tmp_path: Path) -> None:
    """A flat series (heaplab.tests.test_memory): the pools keep more than plain cells after the flush, the
    flat index saves nothing, the checks fail."""
    runs = lab08_series(
        tmp_path, LAB08_FLAT, "flat", young_gcs=LAB08_FLAT_YOUNG_GCS, flushed=LAB08_FLAT_FLUSHED
    )
    _, text = execute_notebook(NB08, runs[0])
    assert THREE_RUNS in text
    assert _labels(text, ARTICLE_SIDE + AGAINST) == {"not reproduced", "no effect", "opposite"}
    assert "**failed**" in text and "**passed**" not in text
