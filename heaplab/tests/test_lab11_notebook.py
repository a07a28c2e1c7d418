"""notebooks/11-vs-apache-hbase.ipynb executes headless on the committed ci run of lab 11.

data/lab11-ci-run/ is a real `heaplab run 11-vs-apache-hbase --scale ci` (engine and Apache HBase 2.6.4
standalone, 2 threads) with the servers' logs trimmed: the notebook's one table has both variants and
the engine / HBase ratio of every workload.
"""

from __future__ import annotations

from pathlib import Path

from heaplab.tests.conftest import REPO
from heaplab.tests.shared_runs import execute_notebook

RUN = Path(__file__).parent / "data" / "lab11-ci-run"
NOTEBOOK = REPO / "notebooks" / "11-vs-apache-hbase.ipynb"


def test_notebook_shows_both_servers_and_their_ratio() -> None:
    _, text = execute_notebook(NOTEBOOK, RUN)
    assert "TPS engine / HBase" in text
    for exp in ("pe_single_put", "pe_batch_put", "pe_random_read", "pe_scan"):
        assert f"| {exp} |" in text, exp
    assert "apache-hbase-2.6" in text and "engine-hbase2-offheap" in text
