"""Every time the docs state comes from the reference series' own clocks (heaplab.runfiles.timings): the
minutes of each series in results/reference/README.md, each handout's **Time:** for one run, and the hours
every lab takes three times (the README, lab 00)."""

from __future__ import annotations

import re

import pytest

from heaplab.lab.spec import list_labs
from heaplab.runfiles.timings import series_times
from heaplab.tests.conftest import REPO

REFERENCE = REPO / "results" / "reference"
TIMES = series_times(REFERENCE)
LABS = [p.parent.name for p in list_labs(REPO)]
# a series row of results/reference/README.md (heaplab.report.series_table):
# | lab | [run](...) ... | commit | release | minutes | phases | of them measured | set-up (N s) | disturbed |
ROW = re.compile(
    r"^\| (?P<lab>\d\d-[a-z0-9-]+) \| \[.*\| (?P<minutes>\d+) \| \d+ \| \d+ \| \d+ \(\d+ s\) \| \d+ \|$", re.M
)
# "**Time:** about 7 minutes a run" or "**Time:** 35 to 42 minutes a run"
TIME = re.compile(r"\*\*Time:\*\* (?:about )?(?P<low>[\d.]+)(?: to (?P<high>[\d.]+))? minutes a run")
SLACK = 0.2  # "about": a run's length varies by this much between runs of a series
# "## Part 2: the experiment (about 9 minutes a run on 2 cores; three runs)"
PART2 = re.compile(r"^## Part 2: the experiment \((?:about )?(?P<low>[\d.]+) minutes a run\b", re.M)
# the Time line's series: "..., 27 for the default three" or "..., 31 for three"
FOR_THREE = re.compile(r"(?P<minutes>\d+) for (?:the default )?three\b")


def test_every_lab_has_a_timed_series() -> None:
    assert set(LABS) <= set(TIMES), set(LABS) - set(TIMES)
    assert all(len(t.runs) >= 3 for t in TIMES.values()), {lab: len(t.runs) for lab, t in TIMES.items()}


def test_the_reference_table_states_each_series_measured_minutes() -> None:
    rows = {
        m["lab"]: int(m["minutes"])
        for m in ROW.finditer((REFERENCE / "README.md").read_text(encoding="utf-8"))
    }
    assert set(rows) == set(TIMES), set(rows) ^ set(TIMES)
    for lab, minutes in rows.items():
        assert abs(minutes - round(TIMES[lab].total)) <= 1, (lab, minutes, round(TIMES[lab].total, 1))


@pytest.mark.parametrize("lab", LABS)
def test_the_handouts_time_for_a_run_is_its_series(lab: str) -> None:
    text = " ".join((REPO / "labs" / lab / "README.md").read_text(encoding="utf-8").split())
    found = TIME.search(text)
    assert found, f"labs/{lab}/README.md has no '**Time:** about N minutes a run'"
    low = float(found["low"])
    high = float(found["high"] or found["low"])
    t = TIMES[lab]
    assert low * (1 - SLACK) <= t.per_run <= high * (1 + SLACK), (
        lab,
        found[0],
        [round(m, 1) for m in t.runs],
    )


# "about 8 hours on 2 cores" (every lab's series) and "(lab 03: about 2 hours)" (one lab's three runs)
HOURS_ALL = re.compile(r"about (?P<hours>[\d.]+) hours on 2 cores")
HOURS_LAB = re.compile(r"\(lab (?P<lab>\d\d): about (?P<hours>[\d.]+) hours?\)")


@pytest.mark.parametrize("page", ["README.md", "labs/00-setup/README.md"])
def test_the_time_for_every_lab_is_the_sum_of_the_series(page: str) -> None:
    text = " ".join((REPO / page).read_text(encoding="utf-8").split())
    stated = [float(m["hours"]) for m in HOURS_ALL.finditer(text)]
    assert stated, f"{page} states no 'about N hours on 2 cores' for every lab"
    hours = sum(t.total for t in TIMES.values()) / 60
    for h in stated:
        assert abs(h - hours) <= hours * 0.1, (page, h, round(hours, 2))
    for m in HOURS_LAB.finditer(text):
        (lab,) = [name for name in TIMES if name.startswith(m["lab"] + "-")]
        assert abs(float(m["hours"]) - TIMES[lab].total / 60) <= TIMES[lab].total / 60 * SLACK, (page, m[0])


@pytest.mark.parametrize("lab", LABS)
def test_the_experiments_heading_and_the_three_runs_are_its_series(lab: str) -> None:
    """Part 2's heading gives the minutes of a run and the Time line those of the three, both from the
    series (a heading without minutes fails; a Time line may leave the three out)."""
    raw = (REPO / "labs" / lab / "README.md").read_text(encoding="utf-8")
    t = TIMES[lab]
    if "## Part 2: the experiment" in raw:
        heading = PART2.search(raw)
        assert heading, f"labs/{lab}/README.md: Part 2's heading gives no 'about N minutes a run'"
        low = float(heading["low"])
        assert low * (1 - SLACK) <= t.per_run <= low * (1 + SLACK), (lab, heading[0], round(t.per_run, 1))
    line = TIME.search(" ".join(raw.split()))
    three = FOR_THREE.search(" ".join(raw.split())[line.start() : line.start() + 400]) if line else None
    if three:
        minutes = float(three["minutes"])
        assert abs(minutes - t.total) <= t.total * SLACK / 2, (lab, three[0], round(t.total, 1))
