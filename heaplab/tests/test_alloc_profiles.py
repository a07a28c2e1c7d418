"""Cutting a region server's recording per measured phase (heaplab/run/alloc_profiles.py) with the real
converter of the engine distribution, on a real recording: the engine's hbase1-onheap region server of a
lab 03 run at ci scale (fixtures/alloc/engine-hbase1-onheap-ci.jfr.gz, 21 KB), whose single_put phase ran
from epoch ms 1796167399811 to 1796167401102. Needs `make engine` (the converter) and a java."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from heaplab.analysis.alloc_stages import read_collapsed
from heaplab.run.alloc_profiles import JFR, collapsed_name, cut_variant, phase_window
from heaplab.tests.conftest import REPO

FIXTURES = Path(__file__).parent / "fixtures/alloc"
START, END = 1796167399811, 1796167401102


def _summary(start: float, end: float) -> dict:
    return {
        "format": 1,
        "operations": 8000,
        "rows": 8000,
        "duration_ms": end - start,
        "throughput": 8000 / ((end - start) / 1000),
        "latency_us": {"mean": 100.0},
        "start_epoch_ms": start,
        "end_epoch_ms": end,
    }


def _variant(tmp_path: Path, windows: dict[str, tuple[float, float]]) -> Path:
    vdir = tmp_path / "hbase1-onheap"
    server = vdir / "server/localhost"
    server.mkdir(parents=True)
    (vdir / "client").mkdir()
    with (
        gzip.open(FIXTURES / "engine-hbase1-onheap-ci.jfr.gz", "rb") as src,
        (server / JFR).open("wb") as dst,
    ):
        shutil.copyfileobj(src, dst)
    for phase, (start, end) in windows.items():
        (vdir / "client" / f"{phase}-localhost.json").write_text(json.dumps(_summary(start, end)))
    return vdir


@pytest.fixture(scope="module")
def archive() -> Path:
    found = sorted(REPO.glob("engine/dist/target/heaplab-engine-*-bin.tar.gz"))
    if not found:
        pytest.fail("no engine distribution: `make engine` first")
    return found[-1]


def test_the_window_spans_every_client(tmp_path: Path) -> None:
    client = tmp_path / "client"
    client.mkdir()
    (client / "p-a.json").write_text(json.dumps(_summary(1000.0, 5000.4)))
    (client / "p-b.json").write_text(json.dumps(_summary(900.0, 4000.0)))
    assert phase_window(client, "p") == (900, 5001)
    assert phase_window(client, "q") is None


def test_each_measured_phase_gets_its_collapsed_stacks_and_the_recording_is_gzipped(
    tmp_path: Path, archive: Path
) -> None:
    vdir = _variant(tmp_path, {"single_put": (START, END), "nothing": (START - 600_000, START - 500_000)})
    cut = cut_variant(vdir, ["single_put", "nothing", "no_summary"], archive, None)
    server = vdir / "server/localhost"
    assert cut.files == (
        f"server/localhost/{collapsed_name('single_put')}",
        "server/localhost/" + collapsed_name("nothing"),
    )
    assert cut.notes == ("no_summary: no client summary, so no window to cut",)
    stacks = read_collapsed(server / collapsed_name("single_put"))
    assert any(f.startswith("org.heaplab.rpc.") for s in stacks for f in s.frames)
    assert sum(s.bytes for s in stacks) > 1_000_000  # bytes, not samples: --total
    assert read_collapsed(server / collapsed_name("nothing")) == []  # a window before the recording
    assert not (server / JFR).exists() and (server / f"{JFR}.gz").is_file()


def test_no_recording_means_nothing_to_do(tmp_path: Path, archive: Path) -> None:
    (tmp_path / "v/server/localhost").mkdir(parents=True)
    cut = cut_variant(tmp_path / "v", ["single_put"], archive, None)
    assert cut.files == () and cut.notes == ()


def test_no_java_is_a_note_and_the_recording_is_kept(tmp_path: Path, archive: Path) -> None:
    vdir = _variant(tmp_path, {"single_put": (START, END)})
    cut = cut_variant(vdir, ["single_put"], archive, str(tmp_path / "no-jdk"))
    assert cut.files == ()
    assert cut.notes == ("alloc profiles per phase not cut: no java on this machine",)
    assert (vdir / "server/localhost" / f"{JFR}.gz").is_file()
