"""The engine_config role's module (library/engine_config_workdir.py), run by the real ansible on this
machine: the previous working directory goes, the new one has exactly the directories and files asked
for, and a file outside it is refused before anything is removed."""

import json
import subprocess
from pathlib import Path

from playbooks.tests.support import PLAYBOOKS, tool

LIBRARY = PLAYBOOKS / "roles" / "engine_config" / "library"


def run_module(args: dict) -> tuple[int, dict]:
    cmd = [
        str(tool("ansible")), "localhost", "-i", "localhost,", "-c", "local", "-M", str(LIBRARY),
        "-e", "ansible_python_interpreter=/usr/bin/python3", "-o",
        "-m", "engine_config_workdir", "-a", json.dumps(args),
    ]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    # -o: "localhost | CHANGED => {...}" on one line
    result = json.loads(done.stdout.split("=>", 1)[1]) if "=>" in done.stdout else {}
    return done.returncode, result


def test_the_directory_is_emptied_and_gets_its_directories_and_files(tmp_path: Path) -> None:
    work = tmp_path / "base" / "current"
    (work / "data" / "old-region").mkdir(parents=True)
    (work / "logs").mkdir()
    (work / "logs" / "server.log").write_text("the previous run's log")
    files = [
        {"path": str(work / "conf" / "engine-site.xml"), "content": "<configuration/>\n"},
        {"path": str(work / "client" / "conf" / "jvm.options"), "content": "-Xmx256m\n"},
    ]
    dirs = ["conf", "data", "logs", "client/conf"]
    rc, result = run_module({"path": str(work), "dirs": dirs, "files": files})
    assert rc == 0 and result["changed"], result
    assert sorted(str(p.relative_to(work)) for p in work.rglob("*")) == [
        "client", "client/conf", "client/conf/jvm.options", "conf", "conf/engine-site.xml", "data", "logs",
    ]  # fmt: skip
    assert (work / "conf" / "engine-site.xml").read_text() == "<configuration/>\n"
    assert (work / "client" / "conf" / "jvm.options").stat().st_mode & 0o777 == 0o644
    assert result["written"] == [f["path"] for f in files]


def test_a_file_outside_the_directory_is_refused_and_nothing_is_removed(tmp_path: Path) -> None:
    work = tmp_path / "base" / "current"
    (work / "data").mkdir(parents=True)
    (work / "data" / "keep").write_text("still here")
    outside = {"path": str(tmp_path / "elsewhere.xml"), "content": "x"}
    rc, result = run_module({"path": str(work), "dirs": ["conf"], "files": [outside]})
    assert rc != 0, result
    assert f"below {work}" in result["msg"]
    assert (work / "data" / "keep").read_text() == "still here"
    assert not (tmp_path / "elsewhere.xml").exists()
