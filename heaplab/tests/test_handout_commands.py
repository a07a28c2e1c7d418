"""Every command a handout, README, doc or notebook tells a student to type is checked against the tools it
names (heaplab/tests/handout_commands.py says how), and a chosen set runs for real.

The lab runs themselves are run at ci scale by the end-to-end tests (test_lab01_ci.py, test_lab11_ci.py,
test_end_to_end*.py, ...); here the quick commands run as written: `heaplab labs`, `heaplab compare` and
`heaplab verdicts` on the committed reference runs, `heaplab report` on a copy of one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from heaplab.lab.spec import list_labs
from heaplab.runfiles.rundir import newest_run_of
from heaplab.tests.conftest import REPO
from heaplab.tests.handout_commands import Checker, all_commands, commands_in, pe_flag_lines

# PeOptions.parse, the real pe's option parser, on each line of stdin (a command's flags): "ok" or the
# error. Java's single-file launcher compiles it against the engine's jars; it opens no connection.
PE_CHECK = """
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Arrays;
import org.heaplab.tools.PeOptions;
import org.heaplab.tools.UsageException;

public class PeCheck {
    public static void main(String[] a) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) {
            try {
                PeOptions.parse(Arrays.asList(line.trim().split("\\\\s+")));
                System.out.println("ok");
            } catch (UsageException e) {
                System.out.println(e.getMessage().replace('\\n', ' '));
            }
        }
    }
}
"""


def _engine_home() -> Path:
    homes = sorted(REPO.glob("engine/dist/target/heaplab-engine-*/bin/engine"))
    assert homes, "the engine distribution is not built: run `make engine` (make test does)"
    return homes[-1].parent.parent


class RealPe:
    """The real PE's verdict on each command's flags, asked once for all of them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.answers: dict[str, str] = {}

    def ask(self, lines: list[str]) -> None:
        source = self.tmp / "PeCheck.java"
        source.write_text(PE_CHECK, encoding="utf-8")
        java = Path(os.environ["JAVA_HOME"], "bin/java") if os.environ.get("JAVA_HOME") else "java"
        lib = _engine_home() / "lib/*"
        proc = subprocess.run(
            [str(java), "-cp", str(lib), str(source)],
            input="\n".join(lines) + "\n",
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        self.answers.update(zip(lines, proc.stdout.splitlines(), strict=True))

    def __call__(self, args: list[str]) -> str:
        answer = self.answers[" ".join(args)]
        return "" if answer == "ok" else answer


def _admin_usage() -> str:
    proc = subprocess.run(
        [str(_engine_home() / "bin/engine"), "admin", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0 and "create" in proc.stdout, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> tuple[Checker, RealPe]:
    pe = RealPe(tmp_path_factory.mktemp("pe"))
    return Checker(REPO, pe=pe, admin_usage=_admin_usage()), pe


PLANTED = """
# A handout with a broken command in each kind

```bash
source .venv/bin/activate
heaplab run 01-tail-latency --repeats 3
heaplab run 01-tail-latency --variant hbase3-offheap
heaplab run 99-no-such-lab
make reproducee LAB=01-tail-latency
make reproduce LABS=01-tail-latency
bin/engine pe --nomapred --startRow=5 randomRead 4
bin/engine admin truncate TestTable
infra/netns/clusters.sh up
```

Then open `notebooks/01-tail-latencyy.ipynb`, or run `heaplab report results/runs/<your run>` (fine).
"""


def test_the_check_finds_every_planted_broken_command(checker: tuple[Checker, RealPe]) -> None:
    check, pe = checker
    commands = list(commands_in(PLANTED, "planted.md"))
    pe.ask(pe_flag_lines(commands))
    found = {c.text: check.problems(c) for c in commands}
    assert found["source .venv/bin/activate"] == []
    assert found["heaplab report results/runs/<your run>"] == []
    broken = {text: problems for text, problems in found.items() if problems}
    assert len(broken) == 8, broken
    assert "unrecognized arguments: --repeats 3" in broken["heaplab run 01-tail-latency --repeats 3"][0]
    assert broken["heaplab run 01-tail-latency --variant hbase3-offheap"] == [
        "01-tail-latency has no variant 'hbase3-offheap'"
    ]
    assert broken["heaplab run 99-no-such-lab"] == ["no lab '99-no-such-lab'"]
    assert broken["make reproducee LAB=01-tail-latency"] == ["no make target 'reproducee'"]
    assert broken["make reproduce LABS=01-tail-latency"] == ["the Makefile reads no variable LABS"]
    assert "--startRow" in broken["bin/engine pe --nomapred --startRow=5 randomRead 4"][0]
    assert broken["bin/engine admin truncate TestTable"] == ["bin/engine admin has no command 'truncate'"]
    assert broken["infra/netns/clusters.sh up"] == ["no such script: infra/netns/clusters.sh"]
    assert not any("01-tail-latencyy" in c.text for c in commands), "a path in prose is not a command"


def test_every_handout_command_works(checker: tuple[Checker, RealPe]) -> None:
    check, pe = checker
    commands = all_commands(REPO)
    where = {c.where.split(":")[0] for c in commands}
    # the documents a student follows are all read (a broken extractor would find nothing)
    assert {"README.md", "labs/01-tail-latency/README.md", "labs/00-setup/README.md"} <= where
    assert len(commands) > 100 and any(c.text.startswith("bin/engine pe") for c in commands)
    pe.ask(pe_flag_lines(commands))
    broken = {f"{c.where}: {c.text}": p for c in commands if (p := check.problems(c))}
    assert broken == {}


def _heaplab(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heaplab", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "HEAPLAB_ROOT": str(REPO)},
        timeout=300,
        check=False,
    )


def test_the_quick_commands_run_as_written(tmp_path: Path) -> None:
    labs = _heaplab("labs")
    assert labs.returncode == 0 and "01-tail-latency" in labs.stdout and "11-vs-apache-hbase" in labs.stdout
    series = sorted(REPO.glob("results/reference/01-tail-latency-local-*"))[-3:]
    compared = _heaplab("compare", *map(str, series))
    assert compared.returncode == 0 and "hbase1-onheap" in compared.stdout, compared.stderr
    newest = [newest_run_of(p.parent.name, REPO / "results/reference") for p in list_labs(REPO)]
    verdicts = _heaplab("verdicts", *[str(run) for run in newest if run is not None])
    assert verdicts.returncode == 0 and "reproduced" in verdicts.stdout, verdicts.stderr
    copy = tmp_path / series[-1].name
    shutil.copytree(series[-1], copy)
    (copy / "report.md").unlink()
    reported = _heaplab("report", str(copy))
    assert reported.returncode == 0 and (copy / "report.md").is_file(), reported.stderr
