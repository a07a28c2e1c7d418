"""Background phases end to end on the local inventory against the real engine (skips without a build).

A writer runs in the background while a foreground reader reads another table; `until` stops the writer
when the reader's phase ends (SIGTERM, exit 143, no --report); a background phase without `until` is
waited for after the last phase and leaves its report like any pe phase.
"""

import json

import pytest

from playbooks.tests.support import VariantRun, kill_processes_mentioning

WRITE = "--nomapred --oneCon=true --valueSize=100 --autoFlush=true --multiPut=10"


@pytest.fixture(scope="module")
def background_run(engine_dist, tmp_path_factory):
    run = VariantRun(tmp_path_factory.mktemp("background"), engine_dist)
    run.vars["heaplab_phases"] = [
        {"name": "create", "tool": "admin", "args": "create TestTable", "record": False},
        {"name": "create_w", "tool": "admin", "args": "create WriteTable", "record": False},
        {
            "name": "load",
            "tool": "pe",
            "args": "--nomapred --rows=300 --autoFlush=true randomWrite 1",
            "record": False,
        },
        # far more rows than the reader outlasts: only `until` ends it
        {
            "name": "writer",
            "tool": "pe",
            "record": False,
            "background": True,
            "until": "read",
            "args": f"{WRITE} --table=WriteTable --rows=5000000 randomWrite 1",
        },
        # ends on its own; waited for after the last phase
        {
            "name": "short_writer",
            "tool": "pe",
            "record": False,
            "background": True,
            "until": "",
            "args": f"{WRITE} --table=WriteTable --rows=200 sequentialWrite 1",
        },
        {"name": "read", "tool": "pe", "record": True, "args": "--nomapred --rows=300 randomRead 1"},
    ]
    try:
        run.run()
        run.processes_after = run.leftover_processes()
        yield run
    finally:
        kill_processes_mentioning(str(run.base_dir))


def test_background_phases_run_beside_the_reader(background_run):
    run = background_run
    assert run.result.returncode == 0, run.output()
    client = run.variant_dir / "client"
    read = json.loads((client / "read-localhost.json").read_text())
    short = json.loads((client / "short_writer-localhost.json").read_text())
    assert read["rows"] == 300 and short["rows"] == 200
    # the stopped writer wrote while the reader read, and was stopped before its 5M rows
    assert not (client / "writer-localhost.json").exists()
    assert (client / "writer-localhost.out").exists()
    assert "Stop background phase writer" in run.result.stdout
    assert run.processes_after == [], "a background client outlived the variant"


def test_a_failing_background_phase_fails_the_variant(engine_dist, tmp_path):
    run = VariantRun(tmp_path, engine_dist)
    run.vars["heaplab_phases"] = [
        {"name": "create", "tool": "admin", "args": "create TestTable", "record": False},
        {
            "name": "bad_writer",
            "tool": "pe",
            "record": False,
            "background": True,
            "until": "",
            "args": "--bogusFlag=1 randomWrite 1",
        },
        {"name": "load", "tool": "pe", "args": "--nomapred --rows=50 randomWrite 1", "record": True},
    ]
    try:
        run.run()
        assert run.result.returncode != 0
        assert "Background phase bad_writer on localhost exited 2" in run.flat_stdout(), run.output()
        assert run.leftover_processes() == []
    finally:
        kill_processes_mentioning(str(run.base_dir))
