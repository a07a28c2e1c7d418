"""HeapLab: run the tail-latency labs, load their runs, and compare them with the articles.

The public API, for notebooks and scripts::

    import heaplab
    a = heaplab.analyse("results/reference/03-offheap-write-ci-fixture")
    print(a.table_markdown("single_put"))
    fig = heaplab.latency_figure(a.run, "single_put", a.measurements["single_put"])
"""

from heaplab.analysis import Analysis, analyse
from heaplab.claims import ClaimResult, judge_all
from heaplab.client_summary import ClientSummary, load_client_summary, load_phase_summaries
from heaplab.comparison import to_markdown
from heaplab.expectation import Expectation, parse_expectation
from heaplab.figures import latency_figure, memory_figure, save_png, to_png
from heaplab.gc_events import GcEvent, YoungGcStats, load_gc_events, young_gc_stats
from heaplab.hlog import Interval, read_intervals, read_total
from heaplab.metrics import Measurement, measure, measure_all
from heaplab.predictions import PredictionError, prediction
from heaplab.published import Published, load_published
from heaplab.report import write_report
from heaplab.rundir import Run, RunError, find_lab_run, load_run
from heaplab.spec import Spec, SpecError, load_spec
from heaplab.steady import SteadyState, steady_state
from heaplab.verdict import (
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
    "judge_all",
    "latency_figure",
    "load_client_summary",
    "load_gc_events",
    "load_phase_summaries",
    "load_published",
    "load_run",
    "load_spec",
    "measure",
    "measure_all",
    "memory_figure",
    "parse_expectation",
    "prediction",
    "read_intervals",
    "read_total",
    "save_png",
    "steady_state",
    "to_markdown",
    "to_png",
    "write_report",
    "young_gc_stats",
]
