"""Everything the report and the notebooks derive from a run: metrics, the article's values, verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from heaplab.analysis.metrics import Measurement, measure_all
from heaplab.judge import comparison
from heaplab.judge.claim_results import ClaimResult
from heaplab.judge.claims import judge_all
from heaplab.lab.published import Published, load_published
from heaplab.paths import PUBLISHED_CSV, find_root
from heaplab.runfiles.rundir import Run
from heaplab.runfiles.series import runs_to_judge


@dataclass(frozen=True)
class Analysis:
    run: Run
    published: Published
    measurements: dict[str, dict[str, Measurement]]  # {experiment: {variant: Measurement}}
    claims: list[ClaimResult]
    runs: list[Run] = field(default_factory=list)  # every run the claims were judged over, ``run`` first

    def table(self, experiment: str) -> list[comparison.Row]:
        return comparison.rows(self.run, experiment, self.measurements[experiment], self.published)

    def table_markdown(self, experiment: str) -> str:
        return comparison.to_markdown(self.table(experiment), comparison.columns(self.run, experiment))

    def unmapped_article_rows(self, experiment: str) -> list[tuple[str, str]]:
        """The article's rows that no variant of this lab maps to (e.g. a ratio, an allocator we lack)."""
        return comparison.unmapped_article_rows(self.run, experiment, self.published)


def find_published(run_dir: Path) -> Path:
    """The published CSV of the checkout holding the run (or of the current checkout)."""
    for parent in run_dir.resolve().parents:
        if (parent / PUBLISHED_CSV).is_file():
            return parent / PUBLISHED_CSV
    return find_root() / PUBLISHED_CSV


def analyse(
    run_dir: str | Path, published_csv: Path | None = None, with_runs: list[Path] | None = None
) -> Analysis:
    """The run's metrics, and its claims judged over it and ``with_runs`` (default: its series)."""
    runs = runs_to_judge(Path(run_dir), list(with_runs or []))
    run = runs[0]
    published = load_published(published_csv or find_published(run.path))
    measured, claims = judge_runs(runs, published)
    return Analysis(run, published, measured[0], claims, runs)


def judge_runs(
    runs: list[Run], published: Published
) -> tuple[list[dict[str, dict[str, Measurement]]], list[ClaimResult]]:
    """Each run's metrics, and the claims of the first run's spec judged over all of them (the report's
    judgement; `heaplab run --repeat auto` judges its series so, heaplab.judge.auto_repeat)."""
    measured = [measure_all(r) for r in runs]
    return measured, judge_all(runs, measured, published)
