"""`heaplab run`'s --aa, --repeat auto, --budget, --max-runs, --order and --order-seed: documented in --help,
and a mistake is one `heaplab: error:` line and a non-zero exit before anything runs (no run directory)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from heaplab.cli import main
from heaplab.run import runner

LAB = "03-offheap-write"


def test_help_documents_the_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["run", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for words in (
        "--repeat N|auto",
        "'auto': 3 runs, then one more at a time until every claim is decided",
        "--budget MINUTES --repeat auto: start no run that would end after MINUTES",
        "--max-runs N --repeat auto: at most N runs (default 10, at least 3)",
        "--order {random,fixed}",
        "fixed (the spec's order, for debugging); run.json records variant_order and order_seed",
        "--order-seed N the seed of the series' variant orders",
        "--aa VARIANT an A/A run: only VARIANT, twice in each run (as VARIANT and its twin VARIANT-aa",
        "<lab>-aa-<VARIANT>-<scale>-<UTC>",
    ):
        assert words in text, words


def _error(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["--root", str(root), "run", *args])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("heaplab: error: "), err
    assert not (root / "results/runs").exists()  # refused before any run started
    return code, lines[0].removeprefix("heaplab: error: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("--aa", "nope"),
            "--aa: 03-offheap-write has no variant 'nope'; its variants: hbase1-onheap, hbase2-offheap",
        ),
        (("--aa", "hbase1-onheap", "--variant", "hbase2-offheap"), "--aa runs one variant and its twin"),
        (("--repeat", "auto", "--budget", "-5"), "--budget must be a positive number of minutes, not -5"),
        (("--repeat", "auto", "--budget", "0"), "--budget must be a positive number of minutes, not 0"),
        (("--repeat", "auto", "--max-runs", "2"), "--max-runs must be at least 3"),
        (("--repeat", "twice"), "--repeat takes a number of runs or 'auto', not 'twice'"),
        (("--repeat", "0"), "--repeat must be a positive number of runs, not 0"),
        (("--repeat", "3", "--budget", "30"), "--budget and --max-runs are for --repeat auto"),
        (("--order-seed", "-1"), "--order-seed must be 0 or more, not -1"),
        (("--order", "fixed", "--order-seed", "4"), "--order-seed draws random orders"),
    ],
)
def test_a_mistake_is_one_line(
    fake_root: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, line = _error(fake_root, capsys, LAB, "--scale", "ci", *args)
    assert code == 2 and line.startswith(message), line


def test_aa_needs_one_lab(fake_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, line = _error(fake_root, capsys, "all", "--scale", "ci", "--aa", "hbase1-onheap")
    assert code == 2 and line == "--aa names a variant of one lab: name the lab, not 'all'"


def test_aa_with_an_unavailable_variant(fake_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = fake_root / "labs" / LAB / "experiment.yml"
    raw = yaml.safe_load(spec.read_text(encoding="utf-8"))
    raw["variants"]["hbase2-offheap"].update(available=False, why="waits for the off-heap write path")
    spec.write_text(yaml.safe_dump(raw), encoding="utf-8")
    code, line = _error(fake_root, capsys, LAB, "--scale", "ci", "--aa", "hbase2-offheap")
    assert code == 2 and line == "--aa: hbase2-offheap is unavailable: waits for the off-heap write path"


def test_aa_with_an_apache_hbase_variant_whose_jars_are_not_fetched(
    fake_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = fake_root / "labs" / LAB / "experiment.yml"
    raw = yaml.safe_load(spec.read_text(encoding="utf-8"))
    raw["variants"]["hbase-peer"] = {"server": "apache-hbase", "server_jvm": ["-XX:+UseG1GC"]}
    spec.write_text(yaml.safe_dump(raw), encoding="utf-8")
    code, line = _error(fake_root, capsys, LAB, "--scale", "ci", "--aa", "hbase-peer")
    assert code == 2 and line.startswith("--aa: hbase-peer is unavailable: "), line
    assert "apache-hbase" in line or "fetch" in line, line


def test_aa_refuses_a_twin_name_that_is_taken(fake_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = fake_root / "labs" / LAB / "experiment.yml"
    raw = yaml.safe_load(spec.read_text(encoding="utf-8"))
    raw["variants"]["hbase1-onheap-aa"] = dict(raw["variants"]["hbase1-onheap"])
    spec.write_text(yaml.safe_dump(raw), encoding="utf-8")
    code, line = _error(fake_root, capsys, LAB, "--scale", "ci", "--aa", "hbase1-onheap")
    assert code == 2 and "already has a variant 'hbase1-onheap-aa'" in line


def test_an_aa_selection_says_so_in_the_variants_left_out() -> None:
    entries = {
        "a": {"available": True, "status": "pending"},
        "a-aa": {"available": True, "status": "pending"},
        "b": {"available": True, "status": "pending"},
    }
    runner.mark_unselected(entries, ("a", "a-aa"), "--aa a")
    assert entries["b"]["why"] == "not selected (--aa a)" and entries["a-aa"]["available"]


# --- the order the runner ran: heaplab run in-process on the fake root, each playbook a stand-in ---------


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The variants whose playbook heaplab ran, in order; each "completes" at once without ansible (and the
    runs, all within a second, get a stamp each)."""
    done: list[str] = []
    stamps = iter(range(10, 60))
    monkeypatch.setattr(runner, "utc_stamp", lambda now=None: f"20261129T1000{next(stamps)}Z")

    def run_variant(*, v: Any, entry: dict[str, Any], **_: Any) -> bool:
        done.append(v.name)
        entry["status"] = "complete"
        return True

    monkeypatch.setattr(runner, "run_variant", run_variant)
    return done


def _runs(root: Path) -> list[dict[str, Any]]:
    runs = sorted((root / "results/runs").iterdir())
    return [json.loads((r / "run.json").read_text(encoding="utf-8")) for r in runs]


def test_each_repeat_runs_its_own_order_drawn_from_the_series_seed(
    fake_root: Path, ran: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--root", str(fake_root), "run", LAB, "--scale", "ci", "--repeat", "4", "--order-seed", "5"]
    assert main(args) == 0
    out = capsys.readouterr().out
    names = ["hbase1-onheap", "hbase2-offheap"]
    runs = _runs(fake_root)
    assert [r["series"]["index"] for r in runs] == [1, 2, 3, 4]
    assert ran == [name for r in runs for name in r["variant_order"]]  # the order recorded is the order run
    for r in runs:
        index = r["series"]["index"]
        assert r["order"] == "random" and r["order_seed"] == 5
        assert r["variant_order"] == runner.variant_order(names, 5, index)
        assert f"variant order (random, seed 5, repeat {index}): {', '.join(r['variant_order'])}" in out
    assert len({tuple(r["variant_order"]) for r in runs}) == 2  # seed 5 draws both orders in 4 repeats


def test_without_a_seed_the_series_draws_one_and_records_it(fake_root: Path, ran: list[str]) -> None:
    assert main(["--root", str(fake_root), "run", LAB, "--scale", "ci", "--repeat", "2"]) == 0
    seeds = {r["order_seed"] for r in _runs(fake_root)}
    assert len(seeds) == 1 and isinstance(seeds.pop(), int)


def test_order_fixed_runs_the_specs_order_and_records_no_seed(
    fake_root: Path, ran: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(fake_root), "run", LAB, "--scale", "ci", "--order", "fixed"]) == 0
    (run,) = _runs(fake_root)
    assert run["order"] == "fixed" and run["order_seed"] is None and "series" not in run
    assert run["variant_order"] == ran == ["hbase1-onheap", "hbase2-offheap"]
    assert "variant order (fixed, the spec's): hbase1-onheap, hbase2-offheap" in capsys.readouterr().out


def test_an_aa_run_runs_the_variant_and_its_twin_only(
    fake_root: Path, ran: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--root", str(fake_root), "run", LAB, "--scale", "ci", "--aa", "hbase2-offheap"]) == 0
    (run,) = _runs(fake_root)
    (path,) = (fake_root / "results/runs").iterdir()
    assert path.name.startswith(f"{LAB}-aa-hbase2-offheap-ci-")
    assert run["aa"] == {"variant": "hbase2-offheap", "twin": "hbase2-offheap-aa"}
    assert sorted(ran) == sorted(run["variant_order"]) == ["hbase2-offheap", "hbase2-offheap-aa"]
    assert run["variants"]["hbase1-onheap"]["why"] == "not selected (--aa hbase2-offheap)"
    assert "[hbase1-onheap] skipped, not selected (--aa hbase2-offheap)" in capsys.readouterr().out
