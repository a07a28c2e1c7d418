from pathlib import Path

import pytest

from heaplab.published import load_published
from heaplab.spec import METRICS
from heaplab.tests.conftest import PUBLISHED


def test_single_put_has_every_metric_for_both_article_variants() -> None:
    pub = load_published(PUBLISHED)
    for variant in ("onheap-1.x", "offheap-2.x"):
        assert set(pub.metrics("000", "single_put", variant)) == set(METRICS)
    p999 = pub.get("000", "single_put", "onheap-1.x", "latency_p999")
    assert p999 is not None and p999.unit == "ms"


def test_wrong_columns_are_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("doc,experiment,value\n000,x,1\n")
    with pytest.raises(ValueError, match="expected columns"):
        load_published(bad)
