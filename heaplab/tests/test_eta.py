"""heaplab.run.eta: the estimate a run prints after each variant (arithmetic on the durations so far)."""

from __future__ import annotations

import pytest

from heaplab.run.eta import minutes_left, progress_line


def test_each_remaining_variant_counts_as_its_own_kind_took() -> None:
    done = [("engine ", 180.0), ("apache-hbase 2.6.4", 480.0), ("engine ", 240.0)]
    # two engine variants (mean 210 s) and one HBase 2.6 (480 s) left: 900 s
    assert minutes_left(done, ["engine ", "engine ", "apache-hbase 2.6.4"]) == pytest.approx(15.0)


def test_a_kind_not_run_yet_counts_as_the_mean_of_all() -> None:
    done = [("engine ", 120.0), ("apache-hbase 2.6.4", 360.0)]
    assert minutes_left(done, ["apache-hbase 1.4.14"]) == pytest.approx(4.0)


def test_nothing_to_go_by_before_the_first_variant_ends() -> None:
    assert minutes_left([], ["engine "]) is None


def test_the_line_says_what_it_knows() -> None:
    assert progress_line("hbase1-onheap", 185.2, 400.0, 12.4) == (
        "[hbase1-onheap] done in 3 min 5 s; 7 min so far, about 12 min left"
    )
    assert progress_line("hbase2-offheap", 42.0, 900.0, 0.0) == "[hbase2-offheap] done in 42 s; 15 min so far"
    assert progress_line("x", 10.0, 10.0, None) == "[x] done in 10 s; 0 min so far"
