"""class.html: the instructor's view of a graded class (heaplab.course.grade).

One table (submission, score, status, what to review) and, per claim of the lab, a strip plot: one dot per
submission at the quantity its run gave (a ratio of two variants, or one variant's value), red where the
submission has an integrity flag or was rejected; a dashed line at the article's figure (the claim's
threshold) and a solid one at the committed reference run's value. Outliers and flags are what to look at
first: a student controls the machine a run was made on, and spot reruns of a sample are the remedy.
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure

from heaplab.course.graded import Graded
from heaplab.lab.expectation import parse_expectation
from heaplab.runfiles.rundir import load_run, newest_run_of

STYLE = (
    "body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
    "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.review{background:#fde8e8}"
    ".plots{display:flex;flex-wrap:wrap;gap:1em}.plot{border:1px solid #eee}"
    ".empty{width:20em;padding:1em;color:#555}"
)


def _thresholds(graded: list[Graded]) -> dict[str, float]:
    """The article's figure of each claim (its expectation's factor), from the first run's spec."""
    for g in graded:
        if g.run_dir is not None:
            claims = load_run(g.run_dir).spec.claims
            return {c.id: parse_expectation(str(c.expect)).factor for c in claims if c.expect}
    return {}


def _reference(graded: list[Graded], reference_dir: Path | None) -> dict[str, float]:
    """The committed reference run's quantity per claim (its own value, the first of its series)."""
    lab = next((g.lab for g in graded if g.lab), None)
    run = newest_run_of(lab, reference_dir) if lab and reference_dir else None
    if run is None or not (run / "claims.json").is_file():
        return {}
    claims = json.loads((run / "claims.json").read_text(encoding="utf-8")).get("claims", {})
    return {cid: c["quantity"][0] for cid, c in claims.items() if c.get("quantity")}


def strip_plot(claim: str, graded: list[Graded], article: float | None, reference: float | None) -> str:
    """One claim's strip plot as inline SVG."""
    fig = Figure(figsize=(4.2, 2.4))
    FigureCanvasSVG(fig)
    ax = fig.add_subplot()
    points = [(g, g.claims[claim][0]) for g in graded if claim in g.claims and g.claims[claim][0] is not None]
    for i, (g, value) in enumerate(points):
        flagged = bool(g.flags or g.rejected)
        ax.scatter(value, (i % 5 - 2) * 0.08, color="#d62728" if flagged else "#1f77b4", zorder=3)
    if article is not None:
        ax.axvline(article, color="#333", linestyle="--", label=f"article {article:g}")
    if reference is not None:
        ax.axvline(reference, color="#2ca02c", label=f"reference run {reference:.3g}")
    ax.set_yticks([])
    ax.set_ylim(-0.5, 0.5)
    ax.set_title(claim, fontsize=9)
    if article is not None or reference is not None:
        ax.legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    out = io.StringIO()
    fig.savefig(out, format="svg")
    svg = out.getvalue()
    return svg[svg.index("<svg") :]


def _breakdown(g: Graded) -> str:
    """Each question's score, with why it fell short (its failed check) or that it is not marked yet."""
    parts = []
    for q, (score, most) in sorted(g.scores.items()):
        why = f" ({g.why[q]})" if q in g.why else ""
        parts.append(html.escape(f"{q} {score:g}/{most:g}{why}"))
    parts += [html.escape(f"{q} unmarked (0/{p:g} so far)") for q, p in sorted(g.unmarked.items())]
    return "<br>".join(parts)


def _has_values(claim: str, graded: list[Graded]) -> bool:
    return any(claim in g.claims and g.claims[claim][0] is not None for g in graded)


def _why_empty(claim: str, graded: list[Graded]) -> str:
    """Why a claim's panel has no dot: the verdicts its submissions got instead of a value."""
    verdicts = sorted({g.claims[claim][1] for g in graded if claim in g.claims})
    return f"no submission's run gives this claim a value (verdict: {', '.join(verdicts) or 'none'})"


def write_class_html(graded: list[Graded], path: Path, reference_dir: Path | None = None) -> None:
    article, reference = _thresholds(graded), _reference(graded, reference_dir)
    rows = []
    for g in graded:
        score, most = g.total
        status = g.rejected or ("review" if g.flags else "ok")
        css = ' class="review"' if g.rejected or g.flags else ""
        notes = "<br>".join(html.escape(f) for f in g.flags)
        rows.append(
            f"<tr{css}><td>{html.escape(g.name)}</td><td>{html.escape(g.student or '')}</td>"
            f"<td>{score:g} / {most:g}</td><td>{_breakdown(g)}</td><td>{html.escape(status)}</td>"
            f"<td>{notes}</td></tr>"
        )
    claims = sorted({c for g in graded for c in g.claims})
    plots = [
        f'<div class="plot">{strip_plot(c, graded, article.get(c), reference.get(c))}</div>'
        if _has_values(c, graded)
        else f'<div class="plot empty"><b>{html.escape(c)}</b><br>{html.escape(_why_empty(c, graded))}</div>'
        for c in claims
    ]
    lab = next((g.lab for g in graded if g.lab), "?")
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(lab)}: class view</title>"
        f"<style>{STYLE}</style></head><body><h1>{html.escape(lab)}: {len(graded)} submissions</h1>"
        "<table><tr><th>submission</th><th>student</th><th>score</th><th>by question</th><th>status</th>"
        "<th>review</th></tr>"
        + "".join(rows)
        + "</table><h2>Claims: every submission's value</h2><div class='plots'>"
        + "".join(plots)
        + "</div></body></html>\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
