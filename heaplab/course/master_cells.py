"""A lab's graded questions as otter-grader master cells (heaplab.course.questions reads them from
questions.yml): each question's prompt, solution and tests, and the hand-graded ones with their rubric."""

from __future__ import annotations

from typing import Any

import nbformat

from heaplab.course.questions import Question


def rubric_text(q: dict[str, Any]) -> str:
    """A manual question's rubric and model answer as the instructor reads them (markdown)."""
    criteria = "\n".join(f"- ({r['points']} points) {r['criterion']}" for r in q["rubric"])
    return f"**Rubric**\n\n{criteria}\n\n**Model answer.** {q['model_answer']}"


def _solution_cell(solution: str) -> str:
    """The master's solution: assignments marked `# SOLUTION` (the student sees `name = ...`), imports
    left as they are (a hint of what to use)."""
    lines = solution.rstrip().splitlines()
    return "\n".join(f"{line}  # SOLUTION" if " = " in line else line for line in lines)


def master_cells(auto: list[Question], manual: list[dict[str, Any]]) -> list[nbformat.NotebookNode]:
    """The otter assign cells of the graded section (solutions and hidden tests included)."""
    v4 = nbformat.v4
    cells = [v4.new_markdown_cell("## Graded questions\n\nRun the cells above first: they set `run_dir`.")]
    for q in auto:
        cells += [
            v4.new_raw_cell(f"# BEGIN QUESTION\nname: {q.id}\npoints: {q.points}"),
            v4.new_markdown_cell(q.prompt),
            v4.new_raw_cell("# BEGIN SOLUTION"),
            v4.new_code_cell(_solution_cell(q.solution)),
            v4.new_raw_cell("# END SOLUTION"),
            v4.new_raw_cell("# BEGIN TESTS"),
            v4.new_code_cell(q.public),
            v4.new_code_cell('""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n' + q.hidden),
            v4.new_raw_cell("# END TESTS"),
            v4.new_raw_cell("# END QUESTION"),
        ]
    for q in manual:
        cells += [
            v4.new_raw_cell(f"# BEGIN QUESTION\nname: {q['id']}\npoints: {q['points']}\nmanual: true"),
            v4.new_markdown_cell(f"**{q['id']}** ({q['points']} points, graded by hand). {q['prompt']}"),
            v4.new_raw_cell("# BEGIN SOLUTION"),
            v4.new_markdown_cell(rubric_text(q)),  # otter assign leaves students a placeholder instead
            v4.new_raw_cell("# END SOLUTION"),
            v4.new_raw_cell("# END QUESTION"),
        ]
    return cells
