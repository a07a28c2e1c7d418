"""Latency over time with GC pauses marked: one panel per measured variant.

Drawn with matplotlib's Agg canvas on a standalone Figure (no pyplot state), so it works headless in CI,
in ``heaplab report`` and in notebooks alike.
"""

from __future__ import annotations

import io
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

from heaplab.analysis.metrics import Measurement
from heaplab.analysis.timeline import latency_timeline
from heaplab.runfiles.hlog import Interval, read_intervals
from heaplab.runfiles.rundir import Run


def intervals_of(m: Measurement) -> list[Interval]:
    """All client hosts' intervals of the measured phase, in time order."""
    out: list[Interval] = []
    for s in m.summaries:
        if s.hlog is not None and s.hlog.is_file():
            out.extend(read_intervals(s.hlog))
    return sorted(out, key=lambda i: i.start_epoch_ms)


def _rows_figure(rows: int) -> Figure:
    """A figure of ``rows`` stacked panels (one, for a figure that only says why it is empty)."""
    fig = Figure(figsize=(10, 3.2 * max(rows, 1)), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _say(fig: Figure, text: str) -> Figure:
    """An empty figure that says why it has no panel."""
    ax = fig.add_subplot()
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.set_axis_off()
    return fig


def latency_figure(run: Run, experiment: str, measured: dict[str, Measurement]) -> Figure:
    shown = [m for m in measured.values() if not m.problem and m.window_ms]
    fig = _rows_figure(len(shown))
    if not shown:
        return _say(fig, f"no measured variant for {experiment}")
    axes = fig.subplots(len(shown), 1, squeeze=False, sharex=True)[:, 0]
    for ax, m in zip(axes, shown, strict=True):
        assert m.window_ms is not None
        # a phase cut to its steady state is drawn whole, its warm-up left of the cut (analysis.steady)
        span = m.phase_window_ms if m.steady is not None and m.phase_window_ms else m.window_ms
        t0 = span[0]
        iv = intervals_of(m)
        if not iv:  # e.g. an Apache HBase run from before hbase-lab pe wrote one: nothing to plot per second
            ax.text(
                0.5,
                0.5,
                f"{m.variant}: no HdrHistogram interval log for {experiment}",
                ha="center",
                va="center",
            )
            ax.set_axis_off()
            continue
        xs = [((i.start_epoch_ms + i.end_epoch_ms) / 2 - t0) / 1000.0 for i in iv]  # interval midpoints
        ax.plot(xs, [max(i.p99_ms, 1e-3) for i in iv], marker=".", label="p99 per interval")
        ax.plot(xs, [max(i.max_ms, 1e-3) for i in iv], marker=".", label="max per interval")
        # one collection per kind of pause: a lab's run holds thousands of young pauses, and an axvline each
        # took most of a notebook's time to draw
        pauses: dict[bool, list[float]] = {True: [], False: []}
        for e in run.gc_events(m.variant):
            if span[0] <= e.start_epoch_ms <= span[1]:
                pauses[e.young].append((e.start_epoch_ms - t0) / 1000.0)
        kinds = ((True, "young GC pause", "tab:green"), (False, "other GC pause", "tab:red"))
        for young, label, color in kinds:
            if pauses[young]:
                x_data_y_axes = ax.get_xaxis_transform()  # a line spans the panel's full height, as axvline's
                style = {"colors": color, "alpha": 0.5, "linewidth": 1, "label": label}
                ax.vlines(pauses[young], 0, 1, transform=x_data_y_axes, **style)
        if m.steady is not None:
            ax.axvline(m.steady.cut_s, color="black", linestyle="--", linewidth=1, label="steady state from")
            rate = ax.twinx()  # why the cut is there: the operations per second level off
            rate.plot(
                xs,
                [i.count / max((i.end_epoch_ms - i.start_epoch_ms) / 1000.0, 1e-3) for i in iv],
                color="grey",
                alpha=0.6,
                linewidth=1,
            )
            rate.set_ylabel("operations/s (grey)")
            rate.set_ylim(bottom=0)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(0, max((span[1] - t0) / 1000.0, 1.0))
        ax.set_ylabel("latency (ms)")
        ax.set_title(f"{run.lab} {experiment}: {m.variant} ({run.scale})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(loc="upper right", fontsize="small")
    axes[-1].set_xlabel("seconds since the measured phase started")
    return fig


def to_png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def save_png(fig: Figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(to_png(fig))
    return path


def memory_figure(run: Run, experiment: str, measured: dict[str, Measurement]) -> Figure:
    """Bytes per cell after the insert, one stacked bar per measured variant: the cell data kept on the heap,
    the heap beyond it (objects, nodes, index, slack) and what the memstore holds off heap."""
    shown = [m for m in measured.values() if not m.problem and "cells" in m.values and m.values["cells"] > 0]
    fig = Figure(figsize=(10, 4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    if not shown or not all("heap_bytes_per_cell" in m.values for m in shown):
        ax.text(0.5, 0.5, f"no memory measurement for {experiment}", ha="center", va="center")
        ax.set_axis_off()
        return fig
    names = [m.variant for m in shown]
    overhead = [m.values["heap_overhead_per_cell"] for m in shown]
    heap_data = [m.values["heap_bytes_per_cell"] - o for m, o in zip(shown, overhead, strict=True)]
    off_heap = [m.values["bytes_per_cell"] - m.values["heap_bytes_per_cell"] for m in shown]
    ax.bar(names, heap_data, label="cell data on the heap", color="tab:blue")
    ax.bar(
        names,
        overhead,
        bottom=heap_data,
        label="heap beyond the data (objects, nodes, index)",
        color="tab:red",
    )
    tops = [d + o for d, o in zip(heap_data, overhead, strict=True)]
    ax.bar(names, off_heap, bottom=tops, label="off heap (direct chunks)", color="tab:gray", alpha=0.6)
    ax.set_ylabel("bytes per cell")
    ax.set_title(f"{run.lab} {experiment}: memory per cell after the insert ({run.scale})")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    return fig


def timeline_figure(run: Run, experiment: str, variants: list[str]) -> Figure:
    """Per variant: p50/p99/p99.9/max latency per second (all client hosts merged) and every server's GC
    pauses as bars (right axis, ms) at the second they started (heaplab/analysis/timeline.py)."""
    timelines = [tl for v in variants if (tl := latency_timeline(run, v, experiment)) is not None and tl.rows]
    fig = _rows_figure(len(timelines))
    if not timelines:
        return _say(fig, f"no latency timeline for {experiment}")
    axes = fig.subplots(len(timelines), 1, squeeze=False)[:, 0]
    for ax, tl in zip(axes, timelines, strict=True):
        xs = [r.t_s + 0.5 for r in tl.rows]  # the middle of each 1-s interval
        for attr, label, style in (
            ("p50_ms", "p50", "-"),
            ("p99_ms", "p99", "-"),
            ("p999_ms", "p99.9", "-"),
            ("max_ms", "max", ":"),
        ):
            ax.plot(xs, [max(getattr(r, attr), 1e-3) for r in tl.rows], style, marker=".", label=label)
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_ylabel("latency per second (ms)")
        span = max((tl.end_epoch_ms - tl.start_epoch_ms) / 1000.0, xs[-1] + 0.5, 1.0)
        ax.set_xlim(0, span)
        gc_ax = ax.twinx()
        starts = [(p.start_epoch_ms - tl.start_epoch_ms) / 1000.0 for p in tl.pauses]
        colors = ["tab:red" if p.kind == "full" else "tab:gray" for p in tl.pauses]
        gc_ax.bar(
            starts,
            [p.duration_ms for p in tl.pauses],
            width=max(span / 200, 0.05),
            align="edge",
            color=colors,
            alpha=0.45,
            label="GC pause (ms, right axis; red: full)",
        )
        gc_ax.set_ylabel("GC pause (ms)")
        gc_ax.set_ylim(0, max([p.duration_ms for p in tl.pauses] + [1.0]) * 3)  # bars in the lower third
        ax.set_title(f"{run.lab} {experiment}: {tl.variant} ({run.scale})")
        ax.grid(True, which="both", alpha=0.3)
        lines, labels = ax.get_legend_handles_labels()
        bars, bar_labels = gc_ax.get_legend_handles_labels()
        ax.legend(
            lines + bars,
            labels + bar_labels,
            loc="upper center",
            bbox_to_anchor=(0.5, -0.2),
            ncols=5,
            fontsize="small",
        )
        ax.set_xlabel("seconds since the measured phase started")
    return fig
