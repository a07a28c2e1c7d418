"""heaplab/run/profiles.py: --profile events, the mode files, run.json's profiler entry, report.md's section.

data/profiles/profile-regionserver-lock.html is a real flame graph (async-profiler 4.4's agent, its
jfr-converter, a region server under pe) kept as a small fixture for the HTML reader.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from heaplab import cli
from heaplab.run.profiles import (
    ProfileError,
    flame_graphs,
    frame_names,
    is_flame_graph,
    parse_events,
    read_mode,
    report_lines,
    variant_profile,
)

DATA = Path(__file__).parent / "data" / "profiles"
PERF = (
    "perf_events: perf events permitted (kernel.perf_event_paranoid=2: user-space frames, no kernel frames)"
)
CTIMER = "ctimer: perf events not permitted (kernel.perf_event_paranoid=3): cpu samples come from CPU timers"


def test_events_are_checked_and_deduplicated() -> None:
    assert parse_events("cpu,alloc") == ["cpu", "alloc"]
    assert parse_events(" lock , cpu,lock") == ["lock", "cpu"]
    with pytest.raises(
        ProfileError, match=r"^--profile: unknown event 'wall'; valid events: cpu, alloc, lock$"
    ):
        parse_events("cpu,wall")
    with pytest.raises(ProfileError, match="needs at least one event"):
        parse_events(",")


def test_cli_refuses_an_unknown_event_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(
        ["--root", "/nonexistent", "run", "03-offheap-write", "--scale", "ci", "--profile", "cpu,heap"]
    )
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert err.splitlines() == [
        "heaplab: error: --profile: unknown event 'heap'; valid events: cpu, alloc, lock"
    ]


def test_mode_file_is_one_line_mode_and_why(tmp_path: Path) -> None:
    p = tmp_path / "profile-regionserver.mode"
    p.write_text(PERF + "\n", encoding="utf-8")
    assert read_mode(p) == ("perf_events", PERF.split(": ", 1)[1])
    p.write_text("garbage\n", encoding="utf-8")
    assert read_mode(p)[0] == "unknown"


def _variant(tmp_path: Path, server_modes: dict[str, str], client_mode: str | None = None) -> Path:
    v = tmp_path / "v"
    for host, line in server_modes.items():
        d = v / "server" / host
        d.mkdir(parents=True)
        (d / "profile-regionserver.mode").write_text(line + "\n", encoding="utf-8")
        for event in ("cpu", "alloc"):
            shutil.copyfile(DATA / "profile-regionserver-lock.html", d / f"profile-regionserver-{event}.html")
    (v / "client").mkdir(parents=True)
    if client_mode:
        (v / "client" / "profile-single_put-c1.mode").write_text(client_mode + "\n", encoding="utf-8")
        shutil.copyfile(
            DATA / "profile-regionserver-lock.html", v / "client" / "profile-single_put-c1-cpu.html"
        )
    (v / "client" / "single_put-c1.json").write_text("{}", encoding="utf-8")  # not a flame graph
    return v


def test_variant_profile_takes_the_servers_mode(tmp_path: Path) -> None:
    v = _variant(tmp_path, {"h1": PERF, "h2": PERF}, client_mode=CTIMER)
    p = variant_profile(v, ["cpu", "alloc"])
    assert p["events"] == ["cpu", "alloc"]
    assert p["mode"] == "perf_events"
    assert p["note"].startswith("perf events permitted")
    assert p["files"] == [
        "server/h1/profile-regionserver-alloc.html",
        "server/h1/profile-regionserver-cpu.html",
        "server/h2/profile-regionserver-alloc.html",
        "server/h2/profile-regionserver-cpu.html",
        "client/profile-single_put-c1-cpu.html",
    ]


def test_variant_profile_says_mixed_and_missing(tmp_path: Path) -> None:
    mixed = variant_profile(_variant(tmp_path / "a", {"h1": PERF, "h2": CTIMER}), ["cpu"])
    assert mixed["mode"] == "mixed"
    assert "server/h1/profile-regionserver.mode: perf_events" in mixed["note"]
    assert "server/h2/profile-regionserver.mode: ctimer" in mixed["note"]
    empty = tmp_path / "b"
    empty.mkdir()
    assert variant_profile(empty, ["lock"])["mode"] == "missing"


def test_flame_graphs_name_their_event(tmp_path: Path) -> None:
    v = _variant(tmp_path, {"h1": PERF}, client_mode=PERF)
    assert ("client/profile-single_put-c1-cpu.html", "cpu") in flame_graphs(v)
    assert all(event in ("cpu", "alloc", "lock") for _, event in flame_graphs(v))


def test_real_flame_graph_is_read() -> None:
    html = DATA / "profile-regionserver-lock.html"
    assert is_flame_graph(html)
    names = frame_names(html)
    assert names[0] == "all"
    # the prefix-compressed pool decodes into whole JVM names, the engine's among them
    assert any(n.startswith("org/heaplab/") for n in names), names[:20]
    assert "java/lang/Thread.run" in names


def test_not_a_flame_graph(tmp_path: Path) -> None:
    p = tmp_path / "x.html"
    p.write_text("<!DOCTYPE html><html>hello</html>", encoding="utf-8")
    assert not is_flame_graph(p)
    assert frame_names(p) == []


def test_report_section_links_every_flame_graph(tmp_path: Path) -> None:
    run = tmp_path
    v = _variant(run, {"h1": CTIMER}, client_mode=CTIMER)
    variants = {
        v.name: {"status": "complete", "profiler": variant_profile(v, ["cpu", "alloc"])},
        "plain": {"status": "complete"},
    }
    lines = report_lines(run, variants)
    text = "\n".join(lines)
    assert lines[0] == "## Profiles"
    assert "### v" in text and "### plain" not in text
    assert "CPU sampling mode: `ctimer` — perf events not permitted" in text
    assert (
        "- cpu, server h1: [profile-regionserver-cpu.html](v/server/h1/profile-regionserver-cpu.html)" in text
    )
    assert "- cpu, client: [profile-single_put-c1-cpu.html](v/client/profile-single_put-c1-cpu.html)" in text
    for link in [x.split("](")[1].rstrip(")") for x in lines if "](" in x]:
        assert (run / link).is_file(), link
    assert report_lines(run, {"plain": {"status": "complete"}}) == []
