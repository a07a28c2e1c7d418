"""`heaplab course build`: each lab's graded notebook and its autograder, with otter-grader's `otter assign`.

For a lab with ``labs/<lab>/questions.yml``: the master notebook is the lab's analysis notebook (the cells
of ``notebooks/<lab>.ipynb`` before its graded section) plus the graded section heaplab.course.questions makes
(solutions and hidden tests included) and otter's assignment config. `otter assign` turns it into

- ``OUT/<lab>/dist/student/<lab>.ipynb``: what students get; with ``--write-notebooks`` it replaces
  ``notebooks/<lab>.ipynb``, which is what the repository ships;
- ``OUT/<lab>/dist/autograder/<lab>-autograder_*.zip``: the instructor's, for `heaplab grade`;
- the handout's editions (heaplab.course.handouts): ``OUT/<lab>/dist/student/README.md`` without the reference
  runs' results, which answer the questions, and ``OUT/<lab>/master/README.md``, the instructor's.

The student notebook records how many analysis cells it has (``metadata.heaplab.analysis_cells``), so a
later build takes them, not the graded section, as the master's start.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from heaplab.course.handouts import student_edition
from heaplab.course.master_cells import master_cells
from heaplab.course.questions import load_questions
from heaplab.lab.spec import load_spec

ASSIGNMENT_CONFIG = """# ASSIGNMENT CONFIG
name: {lab}
python_version: "{python}"
export_cell: false
run_tests: false
init_cell: true
check_all_cell: false
tests:
  files: false
  ok_format: false
"""


class CourseError(Exception):
    """The course cannot be built; one line."""


def analysis_cells(notebook: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The lab's own cells: the whole notebook, or, for a built student notebook, the cells between
    otter's init cell and the graded section."""
    n = (notebook.metadata.get("heaplab") or {}).get("analysis_cells")
    if n is None:
        return list(notebook.cells)
    return list(notebook.cells[1 : 1 + n])


def master_notebook(root: Path, lab: str) -> tuple[nbformat.NotebookNode, int]:
    """The otter master of ``lab`` and how many of its cells are the lab's analysis cells."""
    spec = load_spec(root / "labs" / lab / "experiment.yml")
    auto, manual = load_questions(root / "labs" / lab, spec)
    source = nbformat.read(root / "notebooks" / f"{lab}.ipynb", as_version=4)
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    nb = nbformat.v4.new_notebook(metadata=dict(source.metadata))
    nb.metadata.pop("heaplab", None)
    nb.metadata.pop("otter", None)
    analysis = analysis_cells(source)
    nb.cells = [
        nbformat.v4.new_raw_cell(ASSIGNMENT_CONFIG.format(lab=lab, python=python)),
        *analysis,
        *master_cells(auto, manual),
    ]
    return nb, len(analysis)


def build_lab(root: Path, lab: str, out: Path) -> tuple[Path, Path]:
    """The student notebook and the autograder zip of ``lab`` under ``out/<lab>/``."""
    master_dir, dist = out / lab / "master", out / lab / "dist"
    shutil.rmtree(out / lab, ignore_errors=True)
    master_dir.mkdir(parents=True)
    master = master_dir / f"{lab}.ipynb"
    nb, n_analysis = master_notebook(root, lab)
    nbformat.write(nb, master)
    otter = Path(sys.executable).with_name("otter")
    proc = subprocess.run(
        [str(otter), "assign", "--no-pdfs", str(master), str(dist)],
        capture_output=True,
        text=True,
        check=False,
    )
    zips = sorted((dist / "autograder").glob(f"{lab}-autograder_*.zip"))
    student = dist / "student" / f"{lab}.ipynb"
    if proc.returncode != 0 or not zips or not student.is_file():
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        raise CourseError(f"otter assign failed for {lab} ({proc.returncode}): {last[0]}")
    nb = nbformat.read(student, as_version=4)
    nb.metadata["heaplab"] = {"analysis_cells": n_analysis}
    nbformat.write(nb, student)
    write_handouts(root, lab, out / lab)
    return student, zips[-1]


def write_handouts(root: Path, lab: str, lab_out: Path) -> tuple[Path, Path]:
    """The handout's two editions beside the notebooks: dist/student/README.md without the reference
    results, master/README.md (the instructor's) as the repository has it."""
    handout = (root / "labs" / lab / "README.md").read_text(encoding="utf-8")
    student = lab_out / "dist" / "student" / "README.md"
    instructor = lab_out / "master" / "README.md"
    student.write_text(student_edition(handout), encoding="utf-8")
    instructor.write_text(handout, encoding="utf-8")
    return student, instructor


def graded_labs(root: Path) -> list[str]:
    return sorted(p.parent.name for p in (root / "labs").glob("*/questions.yml"))
