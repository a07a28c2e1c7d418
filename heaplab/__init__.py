"""HeapLab: run the tail-latency labs, load their runs, and compare them with the articles.

The public API, for notebooks and scripts::

    import heaplab
    a = heaplab.analyse("results/reference/03-offheap-write-ci-fixture")
    print(a.table_markdown("single_put"))
    fig = heaplab.latency_figure(a.run, "single_put", a.measurements["single_put"])

The notebooks import only what this module presents; the modules it presents whole (``heaplab.sweep``,
``heaplab.gc_stats``) are the thread sweeps' tables and figures and the GC pause statistics.
"""

from heaplab.analysis import gc_stats
from heaplab.analysis.gc_stats import load_variant_gc, pause_stats, young_timeline
from heaplab.analysis.metrics import Measurement, measure, measure_all
from heaplab.analysis.steady import SteadyState, steady_state
from heaplab.analysis.timeline import latency_timeline
from heaplab.judge.claim_results import ClaimResult
from heaplab.judge.claims import judge_all
from heaplab.judge.comparison import to_markdown
from heaplab.judge.run_analysis import Analysis, analyse
from heaplab.judge.verdict import (
    FAILED,
    INCONCLUSIVE,
    LARGER,
    LEVELS_BY_KIND,
    MET,
    NO_EFFECT,
    NOT_MEASURABLE,
    NOT_MET,
    NOT_REPRODUCED,
    OPPOSITE,
    PASSED,
    REPRODUCED,
    SMALLER,
)
from heaplab.lab.catalogue import UNITS
from heaplab.lab.expectation import Expectation, parse_expectation
from heaplab.lab.published import Published, load_published
from heaplab.lab.schema import Spec, SpecError
from heaplab.lab.spec import load_spec
from heaplab.report import sweep
from heaplab.report.figures import (
    intervals_of,
    latency_figure,
    memory_figure,
    save_png,
    timeline_figure,
    to_png,
)
from heaplab.report.report import write_report
from heaplab.runfiles.client_summary import ClientSummary, load_client_summary, load_phase_summaries
from heaplab.runfiles.gc_events import GcEvent, YoungGcStats, load_gc_events, young_gc_stats
from heaplab.runfiles.hlog import US_PER_MS, Interval, read_intervals, read_total
from heaplab.runfiles.predictions import PredictionError, prediction
from heaplab.runfiles.rundir import Run, RunError, find_lab_run, load_run

__version__ = "0.1.0"

__all__ = [
    "FAILED",
    "INCONCLUSIVE",
    "LARGER",
    "LEVELS_BY_KIND",
    "MET",
    "NOT_MEASURABLE",
    "NOT_MET",
    "NOT_REPRODUCED",
    "NO_EFFECT",
    "OPPOSITE",
    "PASSED",
    "REPRODUCED",
    "SMALLER",
    "UNITS",
    "US_PER_MS",
    "Analysis",
    "ClaimResult",
    "ClientSummary",
    "Expectation",
    "GcEvent",
    "Interval",
    "Measurement",
    "PredictionError",
    "Published",
    "Run",
    "RunError",
    "Spec",
    "SpecError",
    "SteadyState",
    "YoungGcStats",
    "analyse",
    "find_lab_run",
    "gc_stats",
    "intervals_of",
    "judge_all",
    "latency_figure",
    "latency_timeline",
    "load_client_summary",
    "load_gc_events",
    "load_phase_summaries",
    "load_published",
    "load_run",
    "load_spec",
    "load_variant_gc",
    "measure",
    "measure_all",
    "memory_figure",
    "parse_expectation",
    "pause_stats",
    "prediction",
    "read_intervals",
    "read_total",
    "save_png",
    "steady_state",
    "sweep",
    "timeline_figure",
    "to_markdown",
    "to_png",
    "write_report",
    "young_gc_stats",
    "young_timeline",
]
