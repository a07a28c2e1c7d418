"""``heaplab run LAB --repeat auto``: repeat a lab until its claims are decided, the budget is spent or the
cap is reached.

The series runs MIN_RUNS runs first (an interval needs them).  From then on, when each run's last variant
has ended and before its run.json is closed, the claims are judged over the series' complete runs and this
one (heaplab.judge.run_analysis.judge_runs, as the report judges them) and ``next_step`` decides: stop when
every claim is decided, when the cap is reached, or when one more run (as long as the mean run so far) would
go past the budget; else run again. The decision is printed (one line) and recorded in that run's ``series``
(docs/contracts.md, run.json): ``decision`` {continue, reason, undecided}; the last run also has ``stopped``
(the reason) and ``of`` (the number of runs), which the earlier runs leave null.

"Decided" is a predicate on a claim's result, passed in; by default
heaplab.judge.claim_results.ClaimResult.decided (the interval no longer overlaps both the article's region and
the no-effect region; a claim not measurable here is decided).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from heaplab.judge.claim_results import ClaimResult
from heaplab.judge.run_analysis import find_published, judge_runs
from heaplab.lab.published import load_published
from heaplab.runfiles.rundir import Run, RunError, load_run

MIN_RUNS = 3
DEFAULT_BUDGET_MIN = 60.0
DEFAULT_CAP = 10
SHOWN_IDS = 6  # undecided claims named in the progress line; the rest are counted

Decided = Callable[[Any], bool]


def default_decided(result: ClaimResult) -> bool:
    """A claim is decided when more runs would not change what it can say (ClaimResult.decided)."""
    return result.decided


def _minutes(seconds: float) -> str:
    return f"{max(seconds, 0) / 60:.0f}"


def _ids(ids: Sequence[str]) -> str:
    shown = ", ".join(ids[:SHOWN_IDS])
    return shown + (f", and {len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else "")


def undecided(results: Sequence[Any], decided: Decided = default_decided) -> list[str]:
    """The ids of the claims not yet decided."""
    return [r.claim.id for r in results if not decided(r)]


def next_step(
    results: Sequence[Any],
    runs_done: int,
    elapsed_s: float,
    budget_s: float,
    cap: int,
    *,
    decided: Decided = default_decided,
    min_runs: int = MIN_RUNS,
) -> tuple[bool, str]:
    """Whether to run once more after ``runs_done`` runs that took ``elapsed_s`` in all, and a line saying
    why.  ``results``: the claims judged over those runs (ignored before ``min_runs``)."""
    if runs_done < min_runs:
        return True, f"{runs_done} of the first {min_runs} runs done; running run {runs_done + 1}"
    left = budget_s - elapsed_s
    budget = f"{_minutes(left)} min left of {_minutes(budget_s)}"
    open_ids = undecided(results, decided)
    if not results:
        head = f"{runs_done} runs: no claim to judge"
    elif open_ids:
        head = f"{runs_done} runs: {len(open_ids)} of {len(results)} claims undecided ({_ids(open_ids)})"
    else:
        head = f"{runs_done} runs: every one of the {len(results)} claims decided"
    if not open_ids:
        return False, f"{head}; stopping"
    if runs_done >= cap:
        return False, f"{head}; stopping at the cap of {cap} runs"
    per_run = elapsed_s / runs_done
    if per_run > left:
        more = f"one more run (about {_minutes(per_run)} min) would pass the budget ({budget})"
        return False, f"{head}; stopping: {more}"
    return True, f"{head}; running run {runs_done + 1} of at most {cap}, about {budget}"


@dataclass(frozen=True)
class Limits:
    """`--budget` (in seconds) and `--max-runs` of `--repeat auto`."""

    budget_s: float = DEFAULT_BUDGET_MIN * 60
    cap: int = DEFAULT_CAP


class AutoSeries:
    """The decisions of one `--repeat auto` series, its clock started when it is made: ``before_close`` is
    heaplab.run.runner's hook (RunOptions.before_close) of each of its runs."""

    def __init__(
        self,
        limits: Limits,
        out: Callable[[str], None] = print,
        decided: Decided = default_decided,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self.out = out
        self.decided = decided
        self.clock = clock
        self.started = clock()
        self.earlier: list[Run] = []  # the series' complete runs before this one
        self.go_on = True  # run again (False once a decision stopped the series)

    def record(self) -> dict[str, Any]:
        """run.json's series ``auto``: the series' limits."""
        return {"min": MIN_RUNS, "cap": self.limits.cap, "budget_min": self.limits.budget_s / 60}

    def before_close(self, run: Run) -> dict[str, Any]:
        """Judge the series with ``run`` (ending), decide, print the decision; return run.json's new
        ``series``."""
        series = run.series or {}
        runs_done = int(series.get("index") or len(self.earlier) + 1)
        results: list[ClaimResult] = []
        open_ids: list[str] = []
        try:
            if runs_done >= MIN_RUNS:
                results = self.judge(run)
                open_ids = undecided(results, self.decided)
            elapsed = self.clock() - self.started
            budget, cap = self.limits.budget_s, self.limits.cap
            go_on, reason = next_step(results, runs_done, elapsed, budget, cap, decided=self.decided)
        except (RunError, ValueError, OSError) as e:  # a run of the series cannot be read or judged
            go_on, reason = False, f"{runs_done} runs: stopping, the claims cannot be judged: {e}"
        self.out(reason)
        self.go_on = go_on
        series["decision"] = {"continue": go_on, "reason": reason, "undecided": open_ids}
        if not go_on:
            series.update(of=runs_done, stopped=reason)
        return {"series": series}

    def judge(self, run: Run) -> list[ClaimResult]:
        """The claims over the series' complete runs so far and ``run``, first run first."""
        published = load_published(find_published(run.path))
        return judge_runs([*self.earlier, run], published)[1]

    def ended(self, run_dir: Any) -> None:
        """A run of the series ended: a complete one is judged with the later ones."""
        try:
            run = load_run(run_dir)
        except RunError:
            return
        if run.status == "complete":
            self.earlier.append(run)
