"""heaplab.analysis.proc_cpu and heaplab.analysis.server_cpu's /proc source: the samples bin/engine-proc-cpu
takes right before and right after each measured phase on a region server's host, read from
data/proc-cpu/proc-cpu.jsonl (the samples of a real `heaplab run 03-offheap-write --scale ci --variant
hbase1-onheap` on the local target, where the phase's wrapper also measured the client), and the arithmetic
over them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from heaplab.analysis.proc_cpu import (
    SAMPLES,
    PhaseCpu,
    ProcCpuFileError,
    describe,
    phase_cpu,
    read_samples,
    variant_phase_cpu,
)
from heaplab.analysis.server_cpu import proc_cpu_us_per_op

DATA = Path(__file__).parent / "data" / "proc-cpu" / SAMPLES
LINES = DATA.read_text(encoding="utf-8").splitlines()


def _raw(n: int) -> dict:
    return json.loads(LINES[n])


def test_the_committed_samples_are_two_phases_before_and_after() -> None:
    samples = read_samples(DATA)
    assert [(s.phase, s.at) for s in samples] == [
        ("single_put", "before"),
        ("single_put", "after"),
        ("batch_put", "before"),
        ("batch_put", "after"),
    ]
    assert [s.client_cpu_s is not None for s in samples] == [False, True, False, True]


def test_a_phase_is_its_after_sample_minus_its_before_sample() -> None:
    before, after = _raw(0), _raw(1)
    cpu = phase_cpu("localhost", read_samples(DATA), "single_put")
    assert isinstance(cpu, PhaseCpu)
    assert cpu.server_cpu_s == pytest.approx(after["server_cpu_s"] - before["server_cpu_s"])
    assert cpu.client_cpu_s == after["client_cpu_s"]
    assert cpu.seconds == pytest.approx(after["unix_time"] - before["unix_time"])
    # /proc/stat: user nice system idle iowait irq softirq steal; idle and iowait are not busy
    grew = [a - b for a, b in zip(after["host_cpu_ticks"], before["host_cpu_ticks"], strict=True)]
    assert cpu.total_ticks == sum(grew)
    assert cpu.busy_ticks == sum(grew) - grew[3] - grew[4]
    assert cpu.server_share == pytest.approx(cpu.server_cpu_s * 100 / sum(grew))
    assert cpu.client_share == pytest.approx(after["client_cpu_s"] * 100 / sum(grew))
    assert cpu.other_share == pytest.approx(cpu.busy_share - cpu.server_share - cpu.client_share)
    assert 0 < cpu.server_share < 1 and 0 <= cpu.other_share < 1
    # the ticks of two CPUs over the samples' wall time, within a tick's rounding per CPU
    assert cpu.total_ticks == pytest.approx(cpu.seconds * 100 * cpu.cpus, abs=2 * cpu.cpus + 1)
    assert describe(cpu).startswith("localhost busy ") and "server " in describe(cpu)


def test_cpu_per_operation_sums_the_hosts() -> None:
    one = phase_cpu("a", read_samples(DATA), "single_put")
    other = phase_cpu("b", read_samples(DATA), "batch_put")
    assert isinstance(one, PhaseCpu) and isinstance(other, PhaseCpu)
    assert proc_cpu_us_per_op({"a": one}, 8000) == pytest.approx(one.server_cpu_s * 1e6 / 8000)
    both = proc_cpu_us_per_op({"a": one, "b": other}, 8000)
    assert both == pytest.approx((one.server_cpu_s + other.server_cpu_s) * 1e6 / 8000)
    assert proc_cpu_us_per_op({"a": one}, 0) == "no operation completed"
    # a host without figures: the sum would be too small, so there is none
    assert proc_cpu_us_per_op({"a": one, "b": "b: no proc-cpu.jsonl"}, 8000) == "b: no proc-cpu.jsonl"


def _write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / SAMPLES
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_phase_without_its_after_sample_or_with_a_restart_has_no_figures(tmp_path: Path) -> None:
    cut = read_samples(_write(tmp_path, LINES[:1]))
    assert phase_cpu("h", cut, "single_put") == "h: no after sample of phase single_put"
    assert phase_cpu("h", cut, "batch_put") == "h: no before sample of phase batch_put"
    restarted = {**_raw(1), "pid": _raw(1)["pid"] + 1}
    why = phase_cpu("h", read_samples(_write(tmp_path, [LINES[0], json.dumps(restarted)])), "single_put")
    assert isinstance(why, str) and "pid changed" in why


def test_a_sample_without_the_server_says_why(tmp_path: Path) -> None:
    gone = {**_raw(1), "pid": None, "server_cpu_s": None, "error": "no process 4242 (pid file x.pid)"}
    why = phase_cpu("h", read_samples(_write(tmp_path, [LINES[0], json.dumps(gone)])), "single_put")
    assert (
        why == "h: the after sample of phase single_put has no server CPU (no process 4242 (pid file x.pid))"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"at": "during"}, "at is 'during'"),
        ({"server_cpu_s": "2.1"}, "server_cpu_s is not a"),
        ({"host_cpu_ticks": [1, 2]}, "host_cpu_ticks is not a list of at least 4"),
        ({"clk_tck": True}, "clk_tck is not a int"),
        ({"loadavg": [1.0, 2.0]}, "loadavg is not a list of three numbers"),
    ],
)
def test_a_malformed_sample_names_the_file_and_line(tmp_path: Path, change: dict, message: str) -> None:
    path = _write(tmp_path, [LINES[0], json.dumps({**_raw(1), **change})])
    with pytest.raises(ProcCpuFileError, match=f"{SAMPLES}:2: {message}"):
        read_samples(path)
    _write(tmp_path, [LINES[0], "{not json"])
    with pytest.raises(ProcCpuFileError, match=f"{SAMPLES}:2: not JSON"):
        read_samples(path)


def test_a_variant_reads_every_region_server_host(tmp_path: Path) -> None:
    variant = tmp_path / "hbase1-onheap"
    assert variant_phase_cpu(variant, "single_put") is None, "no samples at all: a run made before them"
    for host in ("n1", "n2"):
        (variant / "server" / host).mkdir(parents=True)
    shutil.copyfile(DATA, variant / "server" / "n1" / SAMPLES)
    found = variant_phase_cpu(variant, "single_put")
    assert found is not None and isinstance(found["n1"], PhaseCpu)
    assert found["n2"] == f"n2: no {SAMPLES}"


def test_the_load_average_at_the_phase_end_is_said_where_sampled(tmp_path: Path) -> None:
    """Samples since 2026-12-03 carry /proc/loadavg; the committed ones, older, do not, and say nothing."""
    old = phase_cpu("h", read_samples(DATA), "single_put")
    assert isinstance(old, PhaseCpu) and old.load_1m is None and "load average" not in describe(old)
    loaded = [
        json.dumps({**_raw(0), "loadavg": [0.5, 0.4, 0.3]}),
        json.dumps({**_raw(1), "loadavg": [2.25, 1, 0.5]}),
    ]
    cpu = phase_cpu("h", read_samples(_write(tmp_path, loaded)), "single_put")
    assert isinstance(cpu, PhaseCpu) and cpu.load_1m == 2.25
    assert describe(cpu).endswith(", load average 2.2 at its end")
