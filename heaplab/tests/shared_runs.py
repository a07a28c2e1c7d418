"""Helpers shared by the tests that run real labs and real notebooks (not fixtures: plain functions)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from heaplab.lab.schema import HBASE_VERSIONS
from heaplab.lab.spec import load_spec
from heaplab.run.hbase_pe import FETCH_HINTS, find_archive, unavailable_why
from heaplab.tests.conftest import REPO, FinishedRun, LabRoot


def run_lab_at_ci(
    lab: LabRoot,
    lab_name: str,
    runs: Path,
    timeout: int,
    extra: Sequence[str] = (),
    *,
    report: bool = True,
    env: dict[str, str] | None = None,
) -> FinishedRun:
    """`heaplab run <lab_name> --scale ci [--report] [extra...]` on ``lab``'s copy of the repository, into
    ``runs`` (which must hold no other run); ``env`` adds to the environment."""
    cmd = [
        sys.executable,
        "-m",
        "heaplab",
        "run",
        lab_name,
        "--scale",
        "ci",
        *(["--report"] if report else []),
    ]
    cmd += ["--runs-dir", str(runs), "--inventory", str(lab.inventory), *extra]
    proc = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {}), "HEAPLAB_ROOT": str(lab.root)},
        timeout=timeout,
        check=False,
    )
    (run,) = runs.iterdir()
    manifest = json.loads((run / "run.json").read_text(encoding="utf-8"))
    return FinishedRun(lab, proc, run, manifest, load_spec(lab.spec))


def execute_notebook(notebook: Path, run_dir: Path) -> tuple[nbformat.NotebookNode, str]:
    """Run ``notebook`` with ``run_dir`` injected after the parameters cell (papermill's convention).

    Fails on any cell error; returns the executed notebook and the text of all its outputs.
    """
    nb = nbformat.read(notebook, as_version=4)
    (index,) = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    nb.cells.insert(index + 1, nbformat.v4.new_code_cell(f"run_dir = {str(run_dir)!r}"))
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(notebook.parent)}}
    ).execute()
    text = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            assert out.get("output_type") != "error", out
            data = out.get("data", {})
            text.append(data.get("text/markdown", "") + data.get("text/plain", "") + out.get("text", ""))
    return nb, "\n".join(text)


def available_variants(e2e: FinishedRun) -> list[str]:
    """The variants that ran (the others are recorded unavailable: by the spec, or an Apache HBase variant
    where HBase's jars are not fetched)."""
    return [name for name, v in e2e.manifest["variants"].items() if v["status"] != "unavailable"]


# `make test` fetches Apache HBase and runs lab 11 on it: one real HBase variant end to end, every time.
# The other HBase runs (the HBase variants of labs 02, 05, 06 and 10, the CMS runs on JDK 11, HBase on the
# namespace cluster) add more than ten minutes, which would take the suite past 30 minutes on 2 cores: they
# run where HEAPLAB_HBASE_TESTS=all (docs/apache-hbase.md), as before a change to HBase's side is committed.
ALL_HBASE_TESTS = "HEAPLAB_HBASE_TESTS"


def fetched_apache_hbase(
    *, always: bool = False, version: str = HBASE_VERSIONS[0]
) -> tuple[Path | None, str]:
    """This checkout's packed Apache HBase ``version`` for a test that runs it, or None and why the test
    cannot.

    ``always``: the test is one of the runs `make test` always makes (lab 11's, HBase 1.4's), which need
    only the fetch; the others also need HEAPLAB_HBASE_TESTS=all."""
    archive = find_archive(REPO, version)
    if archive is None:
        return None, f"Apache HBase {version} is not fetched: {FETCH_HINTS[version]}"
    if not always and os.environ.get(ALL_HBASE_TESTS) != "all":
        return None, f"the longer Apache HBase runs are opt-in: {ALL_HBASE_TESTS}=all make test"
    return archive, ""


def link_apache_hbase(root: Path) -> bool:
    """Link this checkout's fetched Apache HBase (infra/apache-hbase/fetch.sh) into a throw-away lab root,
    so its apache-hbase variants run; False (they are then unavailable) where it is not fetched or the
    longer HBase runs are not asked for (fetched_apache_hbase)."""
    archive, _ = fetched_apache_hbase()
    if archive is None:
        return False
    target = root / "infra/apache-hbase/target"
    target.mkdir(parents=True, exist_ok=True)
    for version in HBASE_VERSIONS:  # every release fetched here (HBase 1.4 too, when fetched)
        packed = find_archive(REPO, version)
        if packed is not None:
            (target / packed.name).symlink_to(packed)
    return True


def assert_run_completed(e2e: FinishedRun) -> None:
    """The run exited cleanly, every variant has the status its availability says, with its own site."""
    assert e2e.proc.returncode == 0, e2e.output()
    assert "Traceback" not in e2e.proc.stderr
    assert e2e.manifest["status"] == "complete"
    for name, variant in e2e.spec.variants.items():
        entry = e2e.manifest["variants"][name]
        # an Apache HBase variant (lab 11, the CMS ones) is unavailable where HBase's jars are not fetched
        runs_here = (
            variant.available and unavailable_why(variant.server, e2e.lab.root, variant.hbase_version) is None
        )
        assert entry["status"] == ("complete" if runs_here else "unavailable"), name
        assert entry["site"] == e2e.spec.variant_site(e2e.params, variant)
    assert (e2e.run / "report.md").is_file()
    assert e2e.lab.leftover_processes() == [], "a server or a background client outlived the run"


def only_variants(text: str, keep: tuple[str, ...]) -> str:
    """The spec with every variant not in ``keep`` marked ``available: false`` (block-style variants)."""
    lines = text.splitlines(keepends=True)
    start, end = variants_section(lines)
    out = lines[:start]
    for line in lines[start:end]:
        out.append(line)
        name = variant_head(line)
        if name is not None and name not in keep:
            out.append('    available: false\n    why: "not run in CI (time)"\n')
    return "".join(out + lines[end:])


def variants_section(lines: list[str]) -> tuple[int, int]:
    """[start, end) of the lines under ``variants:`` (up to the next top-level key)."""
    start = lines.index("variants:\n") + 1
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith((" ", "#"))):
        end += 1
    return start, end


def variant_head(line: str) -> str | None:
    """The variant name when ``line`` opens a variant (two-space indent, ``name:``), else None."""
    head = line.split("#", maxsplit=1)[0].rstrip()
    if line.startswith("  ") and not line.startswith("   ") and head.endswith(":"):
        return head.strip()[:-1]
    return None


def variant_names(text: str) -> list[str]:
    """The variant names of a spec's text, in order."""
    lines = text.splitlines(keepends=True)
    start, end = variants_section(lines)
    return [n for n in map(variant_head, lines[start:end]) if n is not None]
