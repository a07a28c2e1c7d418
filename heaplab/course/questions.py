"""A lab's graded questions (labs/<lab>/questions.yml) as otter-grader master cells.

Every auto-graded question asks the student to compute one number from the raw files of their own run;
its public test checks only that the answer is a plausible number (students run it with
``grader.check``), its hidden test recomputes the number from the run submitted with the notebook, with
heaplab's own loaders, so a number typed in from elsewhere fails. Manual questions ask why a claim did or
did not reproduce; the instructor grades them with their rubric (criteria whose points add up to the
question's) and model answer, which only the instructor's edition holds: the master notebook's solution
cell, never the student notebook or the student edition (heaplab.course.edition).

questions.yml:

    auto:
      - {id: q1, kind: p999, variant: V, experiment: E, points: 4}        # P99.9 (ms) from the .hlog files
      - {id: q2, kind: young_gc_rate, variant: V, experiment: E, points: 3}  # young pauses a second
      - {id: q3, kind: ratio, claim: C, points: 3}                         # the claim's L / R on this run
      - {id: q5, kind: largest, variant: V, experiment: E, metrics: [M1, M2], why: "...", points: 2}
                                                     # which mechanism figure is largest (a string)
      - {id: q6, kind: prediction, claim: C, points: 2}  # the claim's L / R, predicted before the run
                                                     # (heaplab predict), over the measured one
    manual:
      - id: q4
        points: 5
        prompt: "..."
        rubric: [{points: 3, criterion: "..."}, {points: 2, criterion: "..."}]
        model_answer: "..."
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import yaml

from heaplab.lab.expectation import parse_expectation
from heaplab.lab.schema import Spec

TOLERANCE = 0.01  # hidden tests accept 1%: HdrHistogram merges in another order, rounding of the answer


class QuestionError(ValueError):
    """questions.yml is wrong; one line saying where."""


@dataclass(frozen=True)
class Question:
    id: str
    points: float
    prompt: str  # markdown
    answer: str  # the variable the student assigns
    solution: str  # code that assigns it (master only)
    public: str  # an exception-based otter test (a function and its call)
    hidden: str
    kind: str = ""  # questions.yml's kind (load_questions sets it)


def _hidden(lab: str, qid: str, answer: str, recompute: str, what: str) -> str:
    """A hidden test: recompute ``expected`` from the submitted run, compare the answer within 1%."""
    return (
        f"def test_{qid}_recomputed_from_the_submitted_run({answer}):\n"
        "    from pathlib import Path\n\n"
        "    import heaplab\n"
        "    from heaplab.analysis.metrics import measure\n\n"
        f'    run = heaplab.load_run(heaplab.find_lab_run("{lab}", Path.cwd())[0])\n\n'
        "    def value(variant, experiment, metric):\n"
        "        return measure(run, variant, experiment).values[metric]\n\n"
        f"{recompute}"
        f"    assert abs({answer} - expected) <= {TOLERANCE} * abs(expected), (\n"
        f'        f"{what} of the submitted run is {{expected:.4g}}, the answer {{{answer}}}"\n'
        "    )\n\n"
        f"test_{qid}_recomputed_from_the_submitted_run({answer})\n"
    )


def _public(qid: str, answer: str, low: float, high: float, unit: str) -> str:
    return (
        f"def test_{qid}_is_a_number_in_{unit}({answer}):\n"
        f"    assert isinstance({answer}, (int, float)) and not isinstance({answer}, bool), "
        f'"a number, please"\n'
        f'    assert {low} < {answer} < {high}, "outside any plausible range: check the unit ({unit})"\n\n'
        f"test_{qid}_is_a_number_in_{unit}({answer})\n"
    )


def _question(
    q: dict[str, Any],
    lab: str,
    *,
    prompt: str,
    answer: str,
    solution: str,
    plausible: tuple[float, float, str],
    recompute: str,
    what: str,
) -> Question:
    """A question whose public test checks the answer is a number in the ``plausible`` (low, high, unit)
    range and whose hidden test recomputes it from the submitted run with ``recompute``."""
    low, high, unit = plausible
    public = _public(q["id"], answer, low, high, unit)
    return Question(
        q["id"], q["points"], prompt, answer, solution, public, _hidden(lab, q["id"], answer, recompute, what)
    )


def _p999(lab: str, spec: Spec, q: dict[str, Any]) -> Question:
    variant, experiment = q["variant"], q["experiment"]
    phase = spec.measured_phase(experiment)
    answer = f"{q['id']}_p999_ms"
    prompt = (
        f"**{q['id']}** ({q['points']} points). From the raw per-second latency logs of `{variant}`'s "
        f"measured phase `{phase.name}` (`{variant}/client/{phase.name}-<host>.hlog` in the run directory, "
        "microseconds, one file per client host), compute the phase's **P99.9 in milliseconds**: merge the "
        "intervals of every host into one histogram (`heaplab.read_total`) and read its 99.9th percentile. "
        f"Assign it to `{answer}`."
    )
    solution = (
        "from heaplab import read_total\n\n"
        f'hlogs = sorted((Path(run_dir) / "{variant}" / "client").glob("{phase.name}-*.hlog"))\n'
        f"{answer} = read_total(hlogs).get_value_at_percentile(99.9) / 1000\n"
    )
    if phase.steady_after_s is not None:  # the warm-up left out (heaplab.analysis.steady), as the report does
        prompt += (
            " This phase's warm-up (the client's) is left out of its figures, from the second its rate "
            "levels off and never before a floor: "
            f'`run.spec.phase("{phase.name}").steady_after(run.manifest["scale_params"])` gives the floor '
            "at your run's scale (0: keep the whole phase), and `heaplab.steady_state(summaries, floor, "
            "from_data=...)` finds the cut and merges what is left (`.total`); `from_data` is whether the "
            "phase states a `measure_s` (runs made before the cut was found in the data were cut at the "
            "floor)."
        )
        solution = (
            "from heaplab import load_phase_summaries, load_run, read_total, steady_state\n\n"
            "run = load_run(run_dir)\n"
            f'phase = run.spec.phase("{phase.name}")\n'
            'seconds = phase.steady_after(run.manifest["scale_params"])\n'
            f'summaries = load_phase_summaries(Path(run_dir) / "{variant}" / "client", "{phase.name}")\n'
            "if seconds:\n"
            "    merged = steady_state(summaries, seconds, from_data=phase.measure_s is not None).total\n"
            "else:\n"
            "    merged = read_total([s.hlog for s in summaries])\n"
            f"{answer} = merged.get_value_at_percentile(99.9) / 1000\n"
        )
    recompute = f'    expected = value("{variant}", "{experiment}", "latency_p999")\n'
    return _question(
        q,
        lab,
        prompt=prompt,
        answer=answer,
        solution=solution,
        plausible=(0, 600_000, "ms"),
        recompute=recompute,
        what=f"the P99.9 (ms) of {variant}",
    )


def _young_gc_rate(lab: str, spec: Spec, q: dict[str, Any]) -> Question:
    variant, experiment = q["variant"], q["experiment"]
    phase = spec.measured_phase(experiment)
    answer = f"{q['id']}_young_gcs_per_s"
    prompt = (
        f"**{q['id']}** ({q['points']} points). How many young GC pauses a second did `{variant}`'s region "
        f"server(s) take during the measured phase `{phase.name}`? Count the pauses in "
        f'`{variant}/server/<host>/gc-events.jsonl` (one JSON object per pause; `"young": true`) that '
        "started inside the phase's window (`start_epoch_ms` to `end_epoch_ms` of its client summary, "
        f"`{variant}/client/{phase.name}-<host>.json`), divide by the window in seconds and by the number of "
        f"region servers. Assign it to `{answer}`."
    )
    solution = (
        "import json\n\n"
        f'client = sorted((Path(run_dir) / "{variant}" / "client").glob("{phase.name}-*.json"))\n'
        'client = [p for p in client if not p.name.endswith(".ycsb.json")]  # YCSB\'s own summary\n'
        "windows = [json.loads(p.read_text()) for p in client]\n"
        'start = min(w["start_epoch_ms"] for w in windows)\n'
        'end = max(w["end_epoch_ms"] for w in windows)\n'
        f'servers = sorted((Path(run_dir) / "{variant}" / "server").glob("*/gc-events.jsonl"))\n'
        "lines = [line for p in servers for line in p.read_text().splitlines() if line.strip()]\n"
        "pauses = [json.loads(line) for line in lines]\n"
        'young = [e for e in pauses if e.get("young") and start <= e["start_epoch_ms"] <= end]\n'
        f"{answer} = len(young) / ((end - start) / 1000) / len(servers)\n"
    )
    recompute = f'    expected = value("{variant}", "{experiment}", "young_gc_rate")\n'
    return _question(
        q,
        lab,
        prompt=prompt,
        answer=answer,
        solution=solution,
        plausible=(-1e-9, 1000, "per_s"),
        recompute=recompute,
        what=f"the young GC rate (1/s) of {variant}",
    )


def _ratio(lab: str, spec: Spec, q: dict[str, Any]) -> Question:
    (claim,) = [c for c in spec.claims if c.id == q["claim"]] or [None]
    if claim is None:
        raise QuestionError(f"{lab}/questions.yml: {q['id']}: no claim {q['claim']!r} in experiment.yml")
    exp = parse_expectation(str(claim.expect))
    if exp.right is None:
        raise QuestionError(f"{lab}/questions.yml: {q['id']}: claim {claim.id} compares no two variants")
    answer = f"{q['id']}_ratio"
    prompt = (
        f"**{q['id']}** ({q['points']} points). The claim `{claim.id}` ({claim.says}) compares "
        f"`{claim.metric}` of `{exp.left}` with `{exp.right}` in experiment `{claim.experiment}`. Compute "
        f"`{exp.left}` / `{exp.right}` of `{claim.metric}` on your run (docs/analysis.md defines the metric; "
        f"`heaplab.measure(run, variant, experiment).values` gives it) and assign it to `{answer}`. "
        f"The article's figure: {claim.figure}."
    )
    solution = (
        "import heaplab\n\n"
        "_run = heaplab.load_run(run_dir)\n"
        f'_left = heaplab.measure(_run, "{exp.left}", "{claim.experiment}").values["{claim.metric}"]\n'
        f'_right = heaplab.measure(_run, "{exp.right}", "{claim.experiment}").values["{claim.metric}"]\n'
        f"{answer} = _left / _right\n"
    )
    e, m = claim.experiment, claim.metric
    recompute = f'    expected = value("{exp.left}", "{e}", "{m}") / value("{exp.right}", "{e}", "{m}")\n'
    return _question(
        q,
        lab,
        prompt=prompt,
        answer=answer,
        solution=solution,
        plausible=(0, 1e6, "x"),
        recompute=recompute,
        what=f"{exp.left} / {exp.right} of {claim.metric}",
    )


def _largest(lab: str, spec: Spec, q: dict[str, Any]) -> Question:
    """Which of a few mechanism figures of one variant is the largest: an explanation checked against the
    run's own numbers (a string answer; the hidden test names the right one from the submitted run)."""
    variant, experiment, metrics = q["variant"], q["experiment"], list(q.get("metrics") or [])
    if len(metrics) < 2:
        raise QuestionError(f"{lab}/questions.yml: {q['id']}: a largest question names two metrics or more")
    answer = f"{q['id']}_largest"
    names = ", ".join(f"`{m}`" for m in metrics)
    why = f"{q['why']} " if q.get("why") else ""
    prompt = (
        f"**{q['id']}** ({q['points']} points). {why}Of {names} of `{variant}` in experiment "
        f"`{experiment}` on your run (the Mechanism section of report.md; docs/analysis.md defines them; "
        f'`heaplab.measure(run, "{variant}", "{experiment}").values` gives them), which is the largest? '
        f"Assign its name, as a string, to `{answer}`."
    )
    solution = (
        "import heaplab\n\n"
        f'_values = heaplab.measure(heaplab.load_run(run_dir), "{variant}", "{experiment}").values\n'
        f"{answer} = max({metrics!r}, key=lambda m: _values[m])\n"
    )
    public = (
        f"def test_{q['id']}_names_one_of_the_metrics({answer}):\n"
        f'    assert {answer} in {metrics!r}, "one of the names, as a string, please"\n\n'
        f"test_{q['id']}_names_one_of_the_metrics({answer})\n"
    )
    hidden = (
        f"def test_{q['id']}_recomputed_from_the_submitted_run({answer}):\n"
        "    from pathlib import Path\n\n"
        "    import heaplab\n"
        "    from heaplab.analysis.metrics import measure\n\n"
        f'    run = heaplab.load_run(heaplab.find_lab_run("{lab}", Path.cwd())[0])\n'
        f'    values = measure(run, "{variant}", "{experiment}").values\n'
        f"    expected = max({metrics!r}, key=lambda m: values[m])\n"
        f"    assert {answer} == expected, (\n"
        f'        f"the largest on the submitted run is {{expected}}, not {{{answer}}}"\n'
        "    )\n\n"
        f"test_{q['id']}_recomputed_from_the_submitted_run({answer})\n"
    )
    return Question(q["id"], q["points"], prompt, answer, solution, public, hidden)


def _prediction(lab: str, spec: Spec, q: dict[str, Any]) -> Question:
    """A claim's ratio predicted before the run (`heaplab predict`, kept in run.json by every later run)
    and set against the ratio measured: the answer is measured / predicted. Any prediction earns the
    points; the hidden test checks the run carries one made before it started, and recomputes the answer."""
    (claim,) = [c for c in spec.claims if c.id == q["claim"]] or [None]
    if claim is None:
        raise QuestionError(f"{lab}/questions.yml: {q['id']}: no claim {q['claim']!r} in experiment.yml")
    exp = parse_expectation(str(claim.expect))
    if exp.right is None:
        raise QuestionError(f"{lab}/questions.yml: {q['id']}: claim {claim.id} compares no two variants")
    qid, answer = q["id"], f"{q['id']}_off_by"
    prompt = (
        f"**{qid}** ({q['points']} points). A prediction, made before you run the lab. The claim "
        f"`{claim.id}` ({claim.says}) compares `{claim.metric}` of `{exp.left}` with `{exp.right}` in "
        f"experiment `{claim.experiment}`; the article's figure: {claim.figure}. Before your first run, "
        f"decide what `{exp.left}` / `{exp.right}` will be on your machine and record it with "
        f"`heaplab predict {lab} {qid}=<your number>`: every run of the lab made after that carries it in "
        f'its run.json (`heaplab.prediction(heaplab.load_run(run_dir), "{qid}")` reads it). After the '
        f"run, divide the ratio measured on your run by your prediction and assign it to `{answer}` (1 means "
        "you predicted it exactly). Any prediction earns the points: the grader checks that the run you hand "
        f"in carries one made before it started, and that `{answer}` follows from it."
    )
    solution = (
        "import heaplab\n\n"
        "_run = heaplab.load_run(run_dir)\n"
        f'_left = heaplab.measure(_run, "{exp.left}", "{claim.experiment}").values["{claim.metric}"]\n'
        f'_right = heaplab.measure(_run, "{exp.right}", "{claim.experiment}").values["{claim.metric}"]\n'
        f'_predicted = heaplab.prediction(_run, "{qid}")  # refuses a missing or late one, saying why\n'
        f"{answer} = _left / _right / _predicted\n"
    )
    e, m = claim.experiment, claim.metric
    recompute = (
        f'    predicted = (run.manifest.get("predictions") or {{}}).get("{qid}")\n'
        "    assert predicted is not None, (\n"
        f'        "the submitted run carries no prediction for {qid}: record it with heaplab predict {lab} '
        f'{qid}=<number> before the run"\n'
        "    )\n"
        '    assert predicted["made"] <= run.manifest["start"], (\n'
        "        f\"the prediction was made at {predicted['made']}, after the run started at "
        "{run.manifest['start']}\"\n"
        "    )\n"
        f'    expected = value("{exp.left}", "{e}", "{m}") / value("{exp.right}", "{e}", "{m}") / '
        'predicted["value"]\n'
    )
    return _question(
        q,
        lab,
        prompt=prompt,
        answer=answer,
        solution=solution,
        plausible=(0, 1e6, "x"),
        recompute=recompute,
        what=f"{exp.left} / {exp.right} of {claim.metric} over the prediction",
    )


KINDS = {
    "p999": _p999,
    "young_gc_rate": _young_gc_rate,
    "ratio": _ratio,
    "largest": _largest,
    "prediction": _prediction,
}


def load_questions(lab_dir: Path, spec: Spec) -> tuple[list[Question], list[dict[str, Any]]]:
    """The auto-graded questions and the manual ones ({id, points, prompt}) of a lab."""
    path = lab_dir / "questions.yml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    auto = []
    for q in raw.get("auto") or []:
        kind = KINDS.get(q.get("kind"))
        if kind is None:
            raise QuestionError(f"{path}: {q.get('id')}: kind must be one of {', '.join(KINDS)}")
        auto.append(replace(kind(spec.lab, spec, q), kind=q["kind"]))
    manual = list(raw.get("manual") or [])
    for q in manual:
        if not {"id", "points", "prompt", "rubric", "model_answer"} <= set(q):
            raise QuestionError(
                f"{path}: a manual question needs id, points, prompt, rubric and model_answer: {q.get('id')}"
            )
        rubric = q["rubric"]
        if not isinstance(rubric, list) or not all(
            isinstance(r, dict) and {"points", "criterion"} <= set(r) for r in rubric
        ):
            raise QuestionError(f"{path}: {q['id']}: rubric must be a list of {{points, criterion}}")
        if abs(sum(float(r["points"]) for r in rubric) - float(q["points"])) > 1e-9:
            raise QuestionError(
                f"{path}: {q['id']}: the rubric's points do not add up to the question's {q['points']}"
            )
    return auto, manual
