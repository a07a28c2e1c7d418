"""A measured phase's time keys in experiment.yml: its warm-up floor, the steady seconds it should keep, and
the earlier phase whose rate sizes it.

    - {name: warmup, tool: pe, args: "... --rows={warm_rows} randomWrite {threads}"}
    - {name: single_put, tool: pe, measure: pe_single_put,
       steady_after_s: "{steady_s}", measure_s: "{measure_s}", sized_by: {phase: warmup},
       args: "... --rows={rows} randomWrite {threads}"}

``steady_after_s``: the floor of the steady-state cut, which the data place later when the rate still
climbs (heaplab.analysis.steady). ``measure_s``: the steady seconds the phase should keep; a phase that keeps
fewer is named too short in the report. ``sized_by``: on the host, just before the phase, the rate of the
named earlier phase (the same PE command: how long its client took to level off, and its rate from there)
raises the phase's ``--rows`` so that it runs its warm-up plus ``measure_s`` seconds, and a fifth more, on
this machine, whatever its speed; the value in ``args`` stays the least it runs, and ``max`` (a number or
"{param}") the most: a random read's --rows must stay within the rows its table holds
(playbooks/filter_plugins/heaplab_sizing.py).

A sized write draws its random keys from [0, --rows x threads), as HBase PE does, so raising --rows widens
them past the split keys of a table made before it, and that table's last region would take most of the
writes. A sized write phase therefore writes a table of its own (``--table=T``) that no earlier phase made
or wrote: PE makes it, presplit for the keys it draws. (Dropping the warm-up's table instead would leave
its memstores as garbage for the collector during the measured phase.)

A sizing is only as good as the rate it reads: a client still climbing at the end of its phase gives a
lower bound, and a phase sized from it may run short on a fast machine. ``level_off: true`` on the warm-up
phase a sizing reads makes that warm-up run once more, right away, when its rate never levelled off, sized
from its own first run for ``LEVEL_OFF_S`` steady seconds (heaplab.lab.schema), the first run's interval
log kept beside as ``<phase>-<host>.first.hlog``.
"""

from __future__ import annotations

from typing import Any

from heaplab.lab.schema import Phase, SpecError


def _seconds(raw: Any, key: str, where: str, scales: dict[str, Any]) -> str:
    """``raw`` as seconds (a number, or "{param}" every scale sets to one), >= 0 at every scale."""
    text = str(raw)
    for scale, params in (scales or {}).items():
        try:
            seconds = float(text.format(**(params or {})))
        except (KeyError, ValueError, IndexError):
            raise SpecError(
                f"{where}: {key} {text!r} must be seconds (a number >= 0) or a {{parameter}} "
                f"that scale {scale!r} sets to one"
            ) from None
        if seconds < 0:
            raise SpecError(f"{where}: {key} is {seconds:g} s at scale {scale!r}; it must be >= 0")
    return text


def steady_after(raw: Any, where: str, measures: bool, scales: dict[str, Any]) -> str | None:
    """A phase's ``steady_after_s``: seconds on a measured phase."""
    if raw is None:
        return None
    if not measures:
        raise SpecError(f"{where}: steady_after_s applies only to a phase that measures (pe or ycsb)")
    return _seconds(raw, "steady_after_s", where, scales)


def measure_seconds(raw: Any, where: str, steady: str | None, scales: dict[str, Any]) -> str | None:
    """A phase's ``measure_s``: seconds, on a phase whose warm-up is cut (steady_after_s)."""
    if raw is None:
        return None
    if steady is None:
        raise SpecError(f"{where}: measure_s needs steady_after_s (the steady state it counts starts there)")
    return _seconds(raw, "measure_s", where, scales)


def command_word(args: str) -> str:
    """PE's command: the word before the thread count (``... randomWrite 8`` -> randomWrite)."""
    words = [w for w in args.split() if not w.startswith("-")]
    return words[-2] if len(words) >= 2 else ""


def sized_by(
    raw: Any, where: str, phase: Phase, earlier: list[Phase], scales: dict[str, Any]
) -> tuple[str | None, str | None]:
    """A phase's ``sized_by: {phase: <earlier pe phase>, max: N}``: (phase name, the most its --rows may be
    raised to, e.g. a random read's by the rows its table holds)."""
    if raw is None:
        return None, None
    if not isinstance(raw, dict) or set(raw) - {"phase", "max"} or "phase" not in raw:
        raise SpecError(f"{where}: sized_by must be {{phase: <an earlier pe phase>, max: <most --rows>}}")
    if phase.measure_s is None:
        raise SpecError(f"{where}: sized_by needs measure_s (the seconds the sizing aims at)")
    source = next((q for q in earlier if q.name == str(raw["phase"])), None)
    if source is None or source.tool != "pe" or phase.tool != "pe" or source.background:
        valid = ", ".join(q.name for q in earlier if q.tool == "pe" and not q.background) or "(none)"
        raise SpecError(
            f"{where}: sized_by's phase {raw['phase']!r} is not an earlier foreground pe phase of a pe "
            f"phase; valid: {valid}"
        )
    if command_word(source.args) != command_word(phase.args):
        raise SpecError(
            f"{where}: sized_by's phase {source.name} runs {command_word(source.args)!r}, this phase "
            f"{command_word(phase.args)!r}: a rate sizes only the same PE command"
        )
    if _flag_value(source.args, "--multiPut") != _flag_value(phase.args, "--multiPut"):
        raise SpecError(f"{where}: sized_by's phase {source.name} batches its puts differently (--multiPut)")
    if "--rows=" not in phase.args:
        raise SpecError(f"{where}: sized_by raises --rows, which args must state (the least it runs)")
    table = _table(phase.args)
    made = [q.name for q in earlier if _makes(q, table)]
    if command_word(phase.args) in WRITES and made:
        raise SpecError(
            f"{where}: sized_by raises --rows, and with it the keys a write draws, past the split keys of "
            f"{table}, which {made[0]} made before it: write a table of its own (--table=...), which pe "
            "makes presplit for the keys it draws"
        )
    most = None if raw.get("max") is None else _seconds(raw["max"], "sized_by's max", where, scales)
    return source.name, most


WRITES = ("randomWrite", "sequentialWrite")
TABLE_MAKERS = (*WRITES, "increment")  # the PE commands that create their table when it is missing


def _table(args: str) -> str:
    return _flag_value(args, "--table") or "TestTable"


def _makes(phase: Phase, table: str) -> bool:
    """``phase`` makes or writes ``table``: an admin create, or a pe write or increment."""
    if phase.tool == "admin":
        return phase.args.split()[:2] == ["create", table]
    return phase.tool == "pe" and command_word(phase.args) in TABLE_MAKERS and _table(phase.args) == table


def _flag_value(args: str, flag: str) -> str | None:
    return next((w.split("=", 1)[1] for w in args.split() if w.startswith(flag + "=")), None)


def level_off(raw: dict[str, Any], where: str, phase: Phase) -> bool:
    """A phase's ``level_off``: true only on a foreground pe phase that measures nothing and states
    ``--rows`` (its second run raises them)."""
    value = raw.get("level_off", False)
    if not isinstance(value, bool):
        raise SpecError(f"{where}: level_off must be true or false, not {value!r}")
    if value and (phase.tool != "pe" or phase.background or phase.measure or "--rows=" not in phase.args):
        raise SpecError(
            f"{where}: level_off applies to a warm-up: a foreground pe phase that measures nothing and "
            "states its --rows"
        )
    return value
