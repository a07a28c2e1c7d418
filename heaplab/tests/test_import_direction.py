"""heaplab's packages follow the pipeline a run takes, and an import points down it only.

lab (what a lab is) -> runfiles (the run directory's format) -> run (making a run) -> analysis (what a run
measured) -> judge (claims and verdicts) -> report (what a reader sees) -> course (notebooks, grading).
A module may import its own package and the packages before it, never one after it; the command
(`heaplab/cli.py` with `heaplab/cli_runs.py` and `heaplab/cli_course.py`) and `heaplab/__init__.py` may
import any, and the leaves `heaplab/paths.py`, `heaplab/number_format.py` and `heaplab/stats.py` none. No
import hides behind ``TYPE_CHECKING`` and no modules import each other in a circle.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import heaplab
from heaplab.tests.conftest import REPO

STAGES = ("lab", "runfiles", "run", "analysis", "judge", "report", "course")
COMMAND = {  # the command and the package: may import any stage
    "heaplab",
    "heaplab.cli",
    "heaplab.cli_runs",
    "heaplab.cli_course",
    "heaplab.__main__",
}  # any stage
LEAVES = {"heaplab.paths", "heaplab.number_format", "heaplab.stats"}  # import no heaplab module


def module_name(path: Path, package_root: Path) -> str:
    rel = path.relative_to(package_root.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def heaplab_modules(package_root: Path) -> dict[str, Path]:
    return {
        module_name(p, package_root): p
        for p in package_root.rglob("*.py")
        if "tests" not in p.relative_to(package_root).parts[:1]
        and "ansible_plugins" not in p.parts  # ansible loads these, not heaplab
    }


def imports_of(path: Path, known: set[str]) -> list[tuple[str, bool]]:
    """The heaplab modules ``path`` imports (a package's submodule when one is named), each with whether
    the import sits under ``if TYPE_CHECKING``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    found = []
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.startswith("heaplab")]
        elif (
            isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("heaplab")
        ):
            module = node.module or ""
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in known else module for a in node.names]
        found += [(t, id(node) in hidden) for t in targets if t in known]
    return found


def stage_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in STAGES else None


def violations(package_root: Path) -> list[str]:
    """Every import that points back up the pipeline or hides behind TYPE_CHECKING, one line each."""
    modules = heaplab_modules(package_root)
    known = set(modules)
    out = []
    for name, path in sorted(modules.items()):
        for target, hidden in imports_of(path, known):
            if hidden:
                out.append(f"{name} imports {target} under TYPE_CHECKING")
            if name in COMMAND:
                continue
            if name in LEAVES:
                out.append(f"{name} is a leaf but imports {target}")
                continue
            source_stage, target_stage = stage_of(name), stage_of(target)
            if source_stage is None:
                out.append(f"{name} belongs to no stage")
            elif target_stage is None:
                if target not in LEAVES:
                    out.append(f"{name} imports {target}, which is not a stage's module")
            elif STAGES.index(target_stage) > STAGES.index(source_stage):
                out.append(
                    f"{name} ({source_stage}) imports {target} ({target_stage}), later in the pipeline"
                )
    return out


def circles(package_root: Path) -> list[list[str]]:
    """The import circles among heaplab's modules (a package's __init__ counts as its own module)."""
    modules = heaplab_modules(package_root)
    graph = {
        name: {t for t, _ in imports_of(path, set(modules)) if t != name} for name, path in modules.items()
    }
    found, state, stack = [], dict.fromkeys(graph, 0), []

    def visit(node: str) -> None:
        state[node], _ = 1, stack.append(node)
        for nxt in sorted(graph[node]):
            if state[nxt] == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif state[nxt] == 0:
                visit(nxt)
        state[node], _ = 2, stack.pop()

    for node in sorted(graph):
        if state[node] == 0:
            visit(node)
    return found


def test_every_import_points_down_the_pipeline() -> None:
    assert violations(REPO / "heaplab") == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert circles(REPO / "heaplab") == []


def test_every_module_belongs_to_a_stage() -> None:
    modules = heaplab_modules(REPO / "heaplab")
    assert [m for m in modules if stage_of(m) is None and m not in COMMAND | LEAVES] == []


MAX_LINES = 400  # a module a student can read in one sitting; past it, it holds more than one job


def test_no_module_is_over_400_lines() -> None:
    sizes = {
        m: len(p.read_text(encoding="utf-8").splitlines())
        for m, p in heaplab_modules(REPO / "heaplab").items()
    }
    assert {m: n for m, n in sizes.items() if n > MAX_LINES} == {}


def test_an_import_back_up_a_hidden_one_and_a_circle_are_caught(tmp_path: Path) -> None:
    """The checks can fail: a lab module that imports the report, a TYPE_CHECKING import, a circle."""
    root = tmp_path / "heaplab"
    for stage in ("lab", "report", "analysis"):
        (root / stage).mkdir(parents=True)
        (root / stage / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "lab" / "spec.py").write_text("from heaplab.report import figures\n")
    (root / "report" / "figures.py").write_text("")
    (root / "analysis" / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from heaplab.analysis import b\n"
    )
    (root / "analysis" / "b.py").write_text("from heaplab.analysis.c import x\n")
    (root / "analysis" / "c.py").write_text("from heaplab.analysis import b\nx = 1\n")
    assert violations(root) == [
        "heaplab.analysis.a imports heaplab.analysis.b under TYPE_CHECKING",
        "heaplab.lab.spec (lab) imports heaplab.report.figures (report), later in the pipeline",
    ]
    assert ["heaplab.analysis.b", "heaplab.analysis.c", "heaplab.analysis.b"] in circles(root)


def notebook_imports(notebook: Path) -> list[str]:
    """What the code cells of ``notebook`` import from heaplab: a submodule, or ``heaplab:<name>``."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        source = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found += [a.name for a in node.names if a.name.startswith("heaplab.")]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("heaplab"):
                if node.module == "heaplab":
                    found += [f"heaplab:{a.name}" for a in node.names]
                else:
                    found.append(str(node.module))
    return found


def test_notebooks_import_only_what_the_package_presents() -> None:
    """A notebook reads runs through ``heaplab`` itself (its __all__), never a module behind it."""
    presented = set(heaplab.__all__)
    wrong = {
        nb.name: [i for i in notebook_imports(nb) if not (i.startswith("heaplab:") and i[8:] in presented)]
        for nb in sorted((REPO / "notebooks").glob("*.ipynb"))
    }
    assert {name: found for name, found in wrong.items() if found} == {}
    assert notebook_imports(REPO / "notebooks" / "01-tail-latency.ipynb"), "the check reads the imports"
