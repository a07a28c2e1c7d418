"""notebooks/11-vs-apache-hbase.ipynb executes headless on the committed ci run of lab 11.

data/lab11-ci-run/ is a real `heaplab run 11-vs-apache-hbase --scale ci` (engine and Apache HBase 2.6.4
standalone, 2 threads) with the servers' logs trimmed: the notebook's one table has both variants and
the engine / HBase ratio of every workload.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from heaplab.report.report import write_report
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


def test_report_plots_a_variant_without_interval_logs(tmp_path: Path) -> None:
    """A variant without .hlog (this fixture's HBase run predates hbase-lab pe's interval log): the latency
    figure says so for that variant instead of failing to log-scale an empty plot (it did when a GC pause
    of HBase's fell inside the measured window)."""
    run = tmp_path / "run"
    shutil.copytree(RUN, run)
    for name in ("report.md", "claims.json"):
        (run / name).unlink(missing_ok=True)
    shutil.rmtree(run / "figures", ignore_errors=True)
    summary = json.loads(
        (run / "apache-hbase-2.6/client/single_put-localhost.json").read_text(encoding="utf-8")
    )
    assert summary["hlog"] is None
    events = run / "apache-hbase-2.6/server/localhost/gc-events.jsonl"
    inside = (summary["start_epoch_ms"] + summary["end_epoch_ms"]) / 2
    pause = {
        "start_epoch_ms": inside,
        "uptime_ms": 1.0,
        "collector": "G1 Young Generation",
        "action": "pause young",
        "cause": "test",
        "duration_ms": 5.0,
        "heap_before_bytes": 1,
        "heap_after_bytes": 1,
        "young": True,
    }
    with events.open("a", encoding="utf-8") as f:
        f.write(json.dumps(pause) + "\n")
    write_report(run)
    assert (run / "figures/pe_single_put-latency.png").stat().st_size > 0
    assert "apache-hbase-2.6" in (run / "report.md").read_text(encoding="utf-8")
