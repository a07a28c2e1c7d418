"""What an end-to-end test can say of a claim the pipeline judged on real runs, whatever the machine made
of it: a label of the claim's kind, and with fewer than three runs no verdict beyond `inconclusive`."""

from __future__ import annotations

from typing import Any

from heaplab.judge.verdict import (
    INCONCLUSIVE,
    LARGER,
    LEVELS_BY_KIND,
    MET,
    MIN_RUNS,
    NOT_MEASURABLE,
    PASSED,
    REPRODUCED,
    SMALLER,
)


def judged_ok(judged: dict[str, Any]) -> bool:
    """A claims.json entry that was judged: its kind's label, and an interval only over enough runs."""
    labels = set(LEVELS_BY_KIND[judged["kind"]]) - {NOT_MEASURABLE}
    if judged["verdict"] not in labels or judged["n"] < 1:
        return False
    return judged["n"] >= MIN_RUNS or (judged["verdict"] == INCONCLUSIVE and bool(judged["indicative"]))


# What a fabricated run built to show an article's effect may come out as (on the article's side of no
# effect: its region, or short of it, or beyond it), and what one built against every effect may not.
ARTICLE_SIDE = frozenset({REPRODUCED, SMALLER, LARGER, PASSED, MET})
