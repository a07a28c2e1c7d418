"""The shell commands a student is told to type, found in the handouts, READMEs, docs and notebooks, and
checked against the tools they name (test_handout_commands.py).

Found: every line of a ```bash/sh/shell/console block (continuations joined, `$ ` prompts and trailing
`# comments` dropped, `&&` and `;` split), of an untagged block whose every line is a command, and every
inline `code span` that starts like a command (heaplab, .venv/bin/heaplab, make, bin/engine, infra/...
scripts). An inline span is often a mention (`heaplab run`, `heaplab compare`): there only what is wrong
(an unknown flag, lab, variant, target, script) counts, not what is left out.

Checked, per command:
- heaplab: its own argument parser accepts it; `run` names a lab, a scale and variants the lab has;
- make: the target is in the Makefile and every VAR=value is a variable the Makefile reads;
- bin/engine: a command the launcher knows; `admin` verbs from its usage; `pe` flags by the real
  PerformanceEvaluation (a usage error exits 2 before it looks for a server; heaplab/tests runs it);
- a repository script (infra/..., engine/..., .ci/run): it exists and is executable;
- a path into the repository that ships with it (labs/, notebooks/, docs/, results/reference/, ...) exists.
Placeholders (`<your run>`, `NN`, `LAB`, `N`, `...`, `*`, `[--optional]`) are not checked beyond the
command and flags they sit in.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from heaplab.cli import _parser
from heaplab.lab.schema import SpecError
from heaplab.lab.spec import load_spec

DOCUMENTS = (
    "README.md",
    "labs/*/README.md",
    "docs/*.md",
    "results/*/README.md",
    "engine/README.md",
    "engine/docs/*.md",
    "infra/**/*.md",
    "playbooks/README.md",
    "notebooks/*.ipynb",
)
SHELL_BLOCKS = {"bash", "sh", "shell", "console"}
HEADS = ("heaplab", ".venv/bin/heaplab", "make", "bin/engine", "bin/engine-daemon", "infra/", ".ci/")
SHELL_WORDS = ("cd ", "export ", "source ", "sudo ", "mvn ", "git ", ".venv/bin/")
# Paths a fresh clone has (others are made by a build or a run: results/runs, dist/, target/).
SHIPPED = ("labs/", "notebooks/", "docs/", "results/reference/", "results/published/", "playbooks/", "infra/")
ENGINE_COMMANDS = {"regionserver", "master", "pe", "admin", "ycsb", "hiccup"}
DAEMON_ACTIONS = {"start", "stop", "status"}
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
PLACEHOLDER = re.compile(r"PLACEHOLDER|\bNN\b|\.\.\.|\*|^[A-Z][A-Z_]*$")
# argparse's complaints about what a mention leaves out (not wrong, only incomplete)
INCOMPLETE = ("the following arguments are required", "expected one argument")


@dataclass(frozen=True)
class Command:
    where: str  # file:line
    text: str
    inline: bool = False  # an inline span: maybe only a mention


def _markdown_of(path: Path) -> str:
    if path.suffix != ".ipynb":
        return path.read_text(encoding="utf-8")
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = [c for c in nb["cells"] if c["cell_type"] == "markdown"]
    return "\n\n".join("".join(c["source"]) for c in cells)


def _split(line: str) -> list[str]:
    """One shell line into its commands: prompt and trailing comment off, `&&` and `;` split."""
    line = line.strip()
    line = line[2:] if line.startswith("$ ") else line
    line = re.sub(r"\s+#\s.*$", "", line)
    return [part.strip() for part in re.split(r"&&|;", line) if part.strip()]


def _starts_like_a_command(text: str) -> bool:
    words = words_of(text)
    return bool(words) and words[0].startswith(HEADS) and not words[0].endswith("/")


def words_of(text: str) -> list[str]:
    """The command's words after `sudo` and VAR=value assignments; `<...>` is one word, PLACEHOLDER, and
    `[optional parts]` are dropped."""
    text = re.sub(r"\[[^\]]*\]", " ", re.sub(r"<[^>]*>", "PLACEHOLDER", text))
    try:
        words = shlex.split(text, comments=False)
    except ValueError:
        words = text.split()
    while words and (words[0] == "sudo" or re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0])):
        words = words[1:]
    if words[:2] and words[0].endswith("cluster.sh") and len(words) > 2 and words[1] == "exec":
        words = words[2:]  # `cluster.sh exec <command>`: the command it runs
    return words


def _all_commands(body: str) -> bool:
    """An untagged block whose every line is a command (not a file tree or an output)."""
    lines = [x.strip() for x in body.splitlines() if x.strip() and not x.strip().startswith("#")]
    return bool(lines) and all(
        _starts_like_a_command(x) or x.startswith(SHELL_WORDS) or x.startswith("--") or prev.endswith("\\")
        for prev, x in zip(["", *lines], lines, strict=False)
    )


def commands_in(text: str, name: str) -> Iterator[Command]:
    """Every command of one markdown document (see the module docstring)."""
    fenced_spans = []
    for m in FENCE.finditer(text):
        fenced_spans.append((m.start(), m.end()))
        lang, body = m.group(1), m.group(2)
        if lang not in SHELL_BLOCKS and not (lang == "" and _all_commands(body)):
            continue
        first_line = text.count("\n", 0, m.start()) + 2
        joined, start = "", first_line
        for offset, raw in enumerate(body.splitlines()):
            if not joined:
                start = first_line + offset
            if raw.rstrip().endswith("\\"):
                joined += raw.rstrip()[:-1] + " "
                continue
            line, joined = joined + raw, ""
            if not line.strip() or line.strip().startswith("#"):
                continue
            for part in _split(line):
                yield Command(f"{name}:{start}", part)
    for m in INLINE.finditer(text):
        if any(a <= m.start() < b for a, b in fenced_spans):
            continue
        for part in _split(m.group(1)):
            if _starts_like_a_command(part) and len(words_of(part)) > 1:  # a bare `heaplab` is a name
                yield Command(f"{name}:{text.count(chr(10), 0, m.start()) + 1}", part, inline=True)


def all_commands(repo: Path) -> list[Command]:
    found = []
    paths = sorted({p for pattern in DOCUMENTS for p in repo.glob(pattern) if "/target/" not in str(p)})
    for path in paths:
        found += commands_in(_markdown_of(path), str(path.relative_to(repo)))
    return found


class Checker:
    """Checks commands against one checkout (``repo``); ``pe`` runs the real PE's option parser."""

    def __init__(self, repo: Path, pe: object | None = None, admin_usage: str = "") -> None:
        self.repo = repo
        self.pe = pe  # callable(args: list[str]) -> error text or "" (None: pe flags not checked)
        self.admin_usage = admin_usage
        makefile = (repo / "Makefile").read_text(encoding="utf-8")
        self.make_targets = set(re.findall(r"^([A-Za-z][\w.-]*)\s*:(?!=)", makefile, re.M))
        self.make_vars = set(re.findall(r"\$\(([A-Z_][A-Z0-9_]*)\)", makefile))
        self.labs = {p.parent.name: p for p in repo.glob("labs/*/experiment.yml")}

    def problems(self, cmd: Command) -> list[str]:
        found = self._problems(cmd)
        if cmd.inline:  # a mention may leave out what a command needs
            found = [f for f in found if not any(i in f for i in INCOMPLETE)]
        return found

    def _problems(self, cmd: Command) -> list[str]:
        words = words_of(cmd.text)
        if not words or words[0].startswith("$"):  # `$EDITOR file`
            return []
        head = words[0]
        found = self._paths(words[:-1] if head in ("cp", "mv") else words)  # cp's target is made
        if head in ("heaplab", ".venv/bin/heaplab"):
            found += self._heaplab(words[1:])
        elif head == "make":
            found += self._make(words[1:])
        elif head.endswith("bin/engine"):
            found += self._engine(words[1:])
        elif head.endswith("bin/engine-daemon"):
            if len(words) < 3 or words[1] not in DAEMON_ACTIONS or words[2] not in ("regionserver", "master"):
                found.append("bin/engine-daemon takes start|stop|status regionserver|master")
        elif head.startswith(("infra/", ".ci/")) and not PLACEHOLDER.search(head):
            script = self.repo / head
            if not script.is_file():
                found.append(f"no such script: {head}")
            elif script.suffix in ("", ".sh") and not script.stat().st_mode & 0o111:
                found.append(f"not executable: {head}")
        return found

    def _paths(self, words: list[str]) -> list[str]:
        missing = []
        for w in words[1:]:
            path = w.split("=", 1)[-1] if w.startswith("-") else w
            if path.startswith(SHIPPED) and not PLACEHOLDER.search(path) and not (self.repo / path).exists():
                missing.append(f"no such file in the repository: {path}")
        return missing

    def _heaplab(self, args: list[str]) -> list[str]:
        err = io.StringIO()
        # a placeholder as a plain word argparse takes (a number where one is wanted)
        args = [
            ("3" if prev == "--repeat" else "PLACEHOLDER") if PLACEHOLDER.search(a) else a
            for prev, a in zip(["", *args], args, strict=False)
        ]
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                ns = _parser().parse_args(args)
        except SystemExit as e:
            if e.code == 0:  # --help
                return []
            return [f"heaplab refuses it: {err.getvalue().strip().splitlines()[-1]}"]
        return self._run_args(ns) if ns.cmd == "run" else []

    def _run_args(self, ns: argparse.Namespace) -> list[str]:
        if ns.lab == "all" or PLACEHOLDER.search(ns.lab):
            return []
        spec_path = self.labs.get(ns.lab)
        if spec_path is None:
            return [f"no lab {ns.lab!r}"]
        try:
            spec = load_spec(spec_path)
        except SpecError as e:
            return [f"{ns.lab}: {e}"]
        found = [] if ns.scale in spec.scales else [f"{ns.lab} has no scale {ns.scale!r}"]
        asked = [*ns.variant, *([ns.aa] if ns.aa else [])]  # --variant and --aa name variants
        named = [v for v in asked if v != "PLACEHOLDER"]  # `--variant <name>`: the student's own
        found += [f"{ns.lab} has no variant {v!r}" for v in named if v not in spec.variants]
        return found

    def _make(self, args: list[str]) -> list[str]:
        found = []
        for a in args:
            if "=" in a:
                var = a.split("=", 1)[0]
                if var not in self.make_vars:
                    found.append(f"the Makefile reads no variable {var}")
            elif not a.startswith("-") and a not in self.make_targets:
                found.append(f"no make target {a!r}")
        return found

    def _engine(self, args: list[str]) -> list[str]:
        if not args or args[0] not in ENGINE_COMMANDS | {"--help", "-h", "help"}:
            return [f"bin/engine has no command {args[0] if args else '(none)'!r}"]
        rest = args[1:]
        if args[0] == "admin" and self.admin_usage:
            verb = next((a for a in rest if not a.startswith("--")), None)
            if (
                verb
                and not PLACEHOLDER.search(verb)
                and not re.search(rf"\b{re.escape(verb)}\b", self.admin_usage)
            ):
                return [f"bin/engine admin has no command {verb!r}"]
        if args[0] == "pe" and rest and self.pe is not None and not any(PLACEHOLDER.search(a) for a in rest):
            error = self.pe(rest)
            return [f"pe refuses it: {error}"] if error else []
        return []


def pe_flag_lines(commands: list[Command]) -> list[str]:
    """The flags of every `bin/engine pe` command without placeholders, one line each, for the real PE."""
    lines = set()
    for c in commands:
        words = words_of(c.text)
        pe = words[2:] and words[0].endswith("bin/engine") and words[1] == "pe"
        if pe and not any(PLACEHOLDER.search(w) for w in words[2:]):
            lines.add(" ".join(words[2:]))
    return sorted(lines)
