"""The performance grade of an exercise (`heaplab course grade-source --performance`): the student's build
against the reference build, on the same machine, in the exercise's JMH benchmark (engine/bench).

engine/exercises.yml gives an exercise a `performance` block when a benchmark isolates its code:

    performance: {benchmark: "EncodingSeekBenchmark.seekToRow", params: {encoding: ROW_INDEX_V1}}

Both builds run it RUNS times, alternating (reference, student, reference, ...), so a machine that slows
down during grading slows both; each keeps its best score. Full marks when the student's best is within
FULL_MARKS_WITHIN of the reference's (CS149's rule: 1.2x), then marks in proportion. A micro-benchmark and
not the lab's experiment: the experiments vary by 20-30% between runs on a shared 2-core machine
(results/reference/README.md), more than the margin the grade allows."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from heaplab.course.edition import EditionError
from heaplab.course.exercise_tests import run_maven
from heaplab.lab.exercises import Exercise, Performance

FULL_MARKS_WITHIN = 1.2
RUNS = 3
BENCH_MAIN = "org.heaplab.bench.BenchMain"


@dataclass(frozen=True)
class PerformanceGrade:
    exercise: str
    benchmark: str
    reference: float  # best score of the reference build (ops per time unit, higher is better)
    student: float
    unit: str

    @property
    def slowdown(self) -> float:
        """How many times slower the student's build is (below 1: faster)."""
        return self.reference / self.student if self.student > 0 else float("inf")

    @property
    def marks(self) -> float:
        """The fraction of the performance marks: 1 within FULL_MARKS_WITHIN, then in proportion."""
        return 1.0 if self.slowdown <= FULL_MARKS_WITHIN else FULL_MARKS_WITHIN / self.slowdown

    def line(self) -> str:
        return (
            f"{self.exercise}: performance {1 / self.slowdown:.2f}x the reference in {self.benchmark} "
            f"(best of {RUNS}: {self.student:,.0f} against {self.reference:,.0f} {self.unit}), "
            f"marks {self.marks:.0%}"
        )


def build_bench(root: Path, timeout_s: float = 1200) -> None:
    """Builds engine/bench (and what it needs) in the checkout at ``root``."""
    command = ["mvn", "-B", "-q", "-f", str(root / "engine" / "pom.xml"), "package", "-DskipTests"]
    run_maven(root, [*command, "-pl", "bench", "-am"], "the benchmarks", timeout_s)


def run_benchmark(
    root: Path, perf: Performance, jmh_args: list[str], timeout_s: float = 600
) -> tuple[float, str]:
    """One JMH run of ``perf`` on the build at ``root``: its score and unit."""
    bench = root / "engine" / "bench" / "target"
    classpath = f"{bench / 'classes'}:{(bench / 'classpath.txt').read_text(encoding='utf-8').strip()}"
    with tempfile.TemporaryDirectory(prefix="heaplab-perf-") as tmp:
        result = Path(tmp) / "jmh.json"
        params = [arg for k, v in perf.params.items() for arg in ("-p", f"{k}={v}")]
        command = ["java", "-cp", classpath, BENCH_MAIN, perf.benchmark, *params, *jmh_args]
        command += ["-rf", "json", "-rff", str(result)]
        env = {
            **os.environ,
            "HEAPLAB_BENCH_WAL_DIR": str(Path(tmp) / "wal"),
        }  # WalAppendBenchmark writes there
        try:
            subprocess.run(command, capture_output=True, text=True, check=True, timeout=timeout_s, env=env)
        except subprocess.TimeoutExpired as e:
            raise EditionError(f"{perf.benchmark} did not finish within {timeout_s:g} s in {root}") from e
        except subprocess.CalledProcessError as e:
            raise EditionError(f"{perf.benchmark} failed in {root}:\n{(e.stdout + e.stderr)[-3000:]}") from e
        runs = json.loads(result.read_text(encoding="utf-8"))
    if len(runs) != 1:
        raise EditionError(f"{perf.benchmark} with {perf.params} matched {len(runs)} benchmarks, not one")
    metric = runs[0]["primaryMetric"]
    return float(metric["score"]), str(metric["scoreUnit"])


def grade_performance(
    reference: Path, student: Path, exercises: list[Exercise], jmh_args: list[str] | None = None
) -> list[PerformanceGrade]:
    """The performance grade of each of ``exercises`` that has a benchmark; both checkouts are built first."""
    timed = [(ex, ex.performance) for ex in exercises if ex.performance is not None]
    if not timed:
        return []
    build_bench(reference)
    build_bench(student)
    grades = []
    for ex, perf in timed:
        best = {reference: 0.0, student: 0.0}
        unit = ""
        for _ in range(RUNS):
            for root in (reference, student):
                score, unit = run_benchmark(root, perf, jmh_args or [])
                best[root] = max(best[root], score)
        grades.append(PerformanceGrade(ex.id, perf.benchmark, best[reference], best[student], unit))
    return grades
