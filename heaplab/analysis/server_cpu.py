"""Server CPU per operation from sources other than the engine pe's own server counters.

Two sources, for any server.  Preferred: the /proc samples every run takes on each region server's host
right before and right after each measured phase (heaplab.analysis.proc_cpu): the server processes' CPU
seconds over the phase, summed over the hosts, per operation the clients completed
(``server_cpu_proc_us_per_op``, given for the engine too, beside its own counter). Otherwise, for a variant
whose client summaries carry no server counters (Apache HBase: its PE reads none), the two ``admin metrics``
reports a lab places around the measured phase.

The engine's pe takes each region server's METRICS report right before its first and right after its last
operation (heaplab.analysis.mechanism: ``server_cpu_us_per_op`` from ``process.cpu_ms``).  HBase's PE cannot,
but ``hbase-lab admin metrics`` reports ``process.cpu_ms`` too (the JVM's process CPU time: every thread, user
and system). When the experiment's measured ``admin metrics`` phase comes after its measured pe phase and its
``baseline`` before it::

    - {name: before_x, tool: admin, args: "metrics"}
    - {name: x, tool: pe, measure: x, args: "..."}
    - {name: after_x, tool: admin, args: "metrics", measure: x, baseline: before_x}

the CPU the servers spent between the two reports, divided by the operations the clients completed, is
the same metric over a slightly wider window: it also holds what the servers did while the pe client
started and stopped (a few seconds of idle chores against the phase's minutes of work) and while the
admin tool connected.  A measured report taken after a forced collection (``admin metrics --gc``) is not
used: the collection's CPU is no operation's.
"""

from __future__ import annotations

from heaplab.analysis.memory import AdminMetrics, number_at
from heaplab.analysis.proc_cpu import PhaseCpu
from heaplab.lab.schema import Phase, Spec

METRIC = "server_cpu_us_per_op"
PROC_METRIC = "server_cpu_proc_us_per_op"  # the same from the /proc samples, every server


def proc_cpu_us_per_op(hosts: dict[str, PhaseCpu | str], ops: int) -> float | str:
    """Σ over the region server hosts of the server's CPU seconds over the phase x 10^6 / ``ops``, or why
    not (one line): a host without figures leaves the metric out, since the sum would be too small."""
    if ops <= 0:
        return "no operation completed"
    if not hosts:
        return "no region server host"
    missing = [why for why in hosts.values() if isinstance(why, str)]
    if missing:
        return "; ".join(missing)
    return sum(h.server_cpu_s for h in hosts.values() if isinstance(h, PhaseCpu)) * 1e6 / ops


def bracketing_phases(spec: Spec, experiment: str) -> tuple[Phase, Phase] | str:
    """The experiment's ``admin metrics`` baseline and measured phases when they bracket its pe phase."""
    measured, report = spec.measured_phase(experiment), spec.memory_phase(experiment)
    if measured is None or report is None or report.baseline is None:
        return f"no `admin metrics` phases with a baseline bracket the phase measuring {experiment}"
    baseline = spec.phase(report.baseline)
    order = [p.name for p in spec.phases]
    if baseline is None or not order.index(baseline.name) < order.index(measured.name) < order.index(
        report.name
    ):
        return f"`admin metrics` phases {report.baseline} and {report.name} do not bracket {measured.name}"
    if report.measures_memory:
        return f"`admin metrics` phase {report.name} forces a collection (--gc) before its report"
    return baseline, report


def cpu_us_per_op(before: AdminMetrics, after: AdminMetrics, ops: int) -> float | str:
    """Δ ``process.cpu_ms`` between the two reports x 1000 / ``ops``, or why not (one line); a field that
    is not a number is heaplab.analysis.memory.MetricsFileError."""
    if ops <= 0:
        return "no operation completed"
    missing = [r.path.name for r in (before, after) if "process" not in r.raw]
    if missing:
        return f"no process.cpu_ms in {', '.join(missing)}"
    grew = number_at(after.raw, "process.cpu_ms", after.path) - number_at(
        before.raw, "process.cpu_ms", before.path
    )
    if grew < 0:
        return f"process.cpu_ms fell between {before.path.name} and {after.path.name} (did a server restart?)"
    return grew * 1000.0 / ops
