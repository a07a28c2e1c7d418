from pathlib import Path

import pytest

from heaplab.lab.catalogue import CLIENT, UNITS, names_of
from heaplab.lab.published import load_published
from heaplab.tests.conftest import PUBLISHED


def test_single_put_has_every_metric_for_both_article_variants() -> None:
    pub = load_published(PUBLISHED)
    for variant in ("onheap-1.x", "offheap-2.x"):
        assert set(pub.metrics("000", "single_put", variant)) == set(names_of(CLIENT))
    p999 = pub.get("000", "single_put", "onheap-1.x", "latency_p999")
    assert p999 is not None and p999.unit == "ms"


def test_wrong_columns_are_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("doc,experiment,value\n000,x,1\n")
    with pytest.raises(ValueError, match="expected columns"):
        load_published(bad)


def test_cell_cache_rows_use_the_memory_metric_name() -> None:
    """The Hypertable article's rows are `resident_after_flush` in MB (its final values: the range server once
    its cell cache was written out and freed), the name heaplab's memory metrics give ours."""
    pub = load_published(PUBLISHED)
    for variant in ("new-delete", "tcmalloc", "pool-map-outside", "pool-map-inside"):
        v = pub.get("004", "cell_cache_memory", variant, "resident_after_flush")
        assert v is not None and v.unit == UNITS["resident_after_flush"] == "MB"
        assert pub.get("004", "cell_cache_memory", variant, "resident_after_insert") is None
