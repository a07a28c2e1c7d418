"""HeapLab: run the tail-latency labs, load their runs, and compare them with the articles.

The public API, for notebooks and scripts::

    import heaplab
    a = heaplab.analyse("results/reference/03-offheap-write-ci-fixture")
    print(a.table_markdown("single_put"))
    fig = heaplab.latency_figure(a.run, "single_put", a.measurements["single_put"])
"""

from heaplab.analysis.metrics import Measurement, measure, measure_all
from heaplab.analysis.steady import SteadyState, steady_state
from heaplab.judge.claims import ClaimResult, judge_all
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
from heaplab.lab.expectation import Expectation, parse_expectation
from heaplab.lab.published import Published, load_published
from heaplab.lab.spec import Spec, SpecError, load_spec
from heaplab.report.figures import latency_figure, memory_figure, save_png, to_png
from heaplab.report.report import write_report
from heaplab.runfiles.client_summary import ClientSummary, load_client_summary, load_phase_summaries
from heaplab.runfiles.gc_events import GcEvent, YoungGcStats, load_gc_events, young_gc_stats
from heaplab.runfiles.hlog import Interval, read_intervals, read_total
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
