"""HeapLab: run the tail-latency labs, load their runs, and compare them with the articles.

The public API, for notebooks and scripts::

    import heaplab
    a = heaplab.analyse("results/reference/03-offheap-write-ci-fixture")
    print(a.table_markdown("single_put"))
    fig = heaplab.latency_figure(a.run, "single_put", a.measurements["single_put"])

The notebooks import only what this module presents; the modules it presents whole (``heaplab.sweep``,
``heaplab.gc_stats``) are the thread sweeps' tables and figures and the GC pause statistics.

Each name is imported when first used (PEP 562), not when the package is: ``import heaplab.<module>``
(every command, every ansible task that loads heaplab's filter plugins) then costs that module alone, not
matplotlib and every analysis module (about 0.6 CPU-s each time).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# the modules presented whole, and every other name -> the module that defines it
_MODULES = {"gc_stats": "heaplab.analysis.gc_stats", "sweep": "heaplab.report.sweep"}
_EXPORTS = {
    "load_variant_gc": "heaplab.analysis.gc_stats",
    "pause_stats": "heaplab.analysis.gc_stats",
    "young_timeline": "heaplab.analysis.gc_stats",
    "Measurement": "heaplab.analysis.metrics",
    "measure": "heaplab.analysis.metrics",
    "measure_all": "heaplab.analysis.metrics",
    "SteadyState": "heaplab.analysis.steady",
    "steady_state": "heaplab.analysis.steady",
    "latency_timeline": "heaplab.analysis.timeline",
    "ClaimResult": "heaplab.judge.claim_results",
    "judge_all": "heaplab.judge.claims",
    "to_markdown": "heaplab.judge.comparison",
    "Analysis": "heaplab.judge.run_analysis",
    "analyse": "heaplab.judge.run_analysis",
    "FAILED": "heaplab.judge.verdict",
    "INCONCLUSIVE": "heaplab.judge.verdict",
    "LARGER": "heaplab.judge.verdict",
    "LEVELS_BY_KIND": "heaplab.judge.verdict",
    "MET": "heaplab.judge.verdict",
    "NO_EFFECT": "heaplab.judge.verdict",
    "NOT_MEASURABLE": "heaplab.judge.verdict",
    "NOT_MET": "heaplab.judge.verdict",
    "NOT_REPRODUCED": "heaplab.judge.verdict",
    "OPPOSITE": "heaplab.judge.verdict",
    "PASSED": "heaplab.judge.verdict",
    "REPRODUCED": "heaplab.judge.verdict",
    "SMALLER": "heaplab.judge.verdict",
    "UNITS": "heaplab.lab.catalogue",
    "Expectation": "heaplab.lab.expectation",
    "parse_expectation": "heaplab.lab.expectation",
    "Published": "heaplab.lab.published",
    "load_published": "heaplab.lab.published",
    "Spec": "heaplab.lab.schema",
    "SpecError": "heaplab.lab.schema",
    "load_spec": "heaplab.lab.spec",
    "intervals_of": "heaplab.report.figures",
    "latency_figure": "heaplab.report.figures",
    "memory_figure": "heaplab.report.figures",
    "save_png": "heaplab.report.figures",
    "timeline_figure": "heaplab.report.figures",
    "to_png": "heaplab.report.figures",
    "write_report": "heaplab.report.report",
    "ClientSummary": "heaplab.runfiles.client_summary",
    "load_client_summary": "heaplab.runfiles.client_summary",
    "load_phase_summaries": "heaplab.runfiles.client_summary",
    "GcEvent": "heaplab.runfiles.gc_events",
    "YoungGcStats": "heaplab.runfiles.gc_events",
    "load_gc_events": "heaplab.runfiles.gc_events",
    "young_gc_stats": "heaplab.runfiles.gc_events",
    "US_PER_MS": "heaplab.runfiles.hlog",
    "Interval": "heaplab.runfiles.hlog",
    "read_intervals": "heaplab.runfiles.hlog",
    "read_total": "heaplab.runfiles.hlog",
    "PredictionError": "heaplab.runfiles.predictions",
    "prediction": "heaplab.runfiles.predictions",
    "Run": "heaplab.runfiles.rundir",
    "RunError": "heaplab.runfiles.rundir",
    "find_lab_run": "heaplab.runfiles.rundir",
    "load_run": "heaplab.runfiles.rundir",
}


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
    else:
        raise AttributeError(f"module 'heaplab' has no attribute {name!r}")
    globals()[name] = value  # once: later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULES, *_EXPORTS])


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
