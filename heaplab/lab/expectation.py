"""Parse and evaluate a claim's expectation, e.g. ``hbase2-offheap <= 0.5 * hbase1-onheap``.

Grammar (whitespace free)::

    expectation := variant OP rhs
    OP          := "<=" | ">=" | "<" | ">"
    rhs         := [number "*"] variant | variant "*" number | number
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

_NUM = r"[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?"
_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_RE = re.compile(
    rf"^\s*(?P<left>{_NAME})\s*(?P<op><=|>=|<|>)\s*"
    rf"(?:(?P<f1>{_NUM})\s*\*\s*(?P<r1>{_NAME})|(?P<r2>{_NAME})\s*\*\s*(?P<f2>{_NUM})"
    rf"|(?P<r3>{_NAME})|(?P<const>{_NUM}))\s*$"
)
_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "<": operator.lt,
    ">": operator.gt,
}


class ExpectationError(ValueError):
    pass


@dataclass(frozen=True)
class Expectation:
    left: str
    op: str
    factor: float
    right: str | None  # None: the right side is the constant ``factor``

    @property
    def variants(self) -> list[str]:
        return [self.left] + ([self.right] if self.right else [])

    def threshold(self, values: Mapping[str, float]) -> float:
        return self.factor * values[self.right] if self.right else self.factor

    def holds(self, values: Mapping[str, float]) -> bool:
        """Evaluate with the metric value of every variant in ``values`` (KeyError if one is missing)."""
        return _OPS[self.op](values[self.left], self.threshold(values))

    def __str__(self) -> str:
        if self.right is None:
            return f"{self.left} {self.op} {self.factor:g}"
        factor = "" if self.factor == 1 else f"{self.factor:g} * "
        return f"{self.left} {self.op} {factor}{self.right}"


def parse_expectation(text: str) -> Expectation:
    m = _RE.match(text)
    if not m:
        raise ExpectationError(
            f"cannot parse expectation {text!r}; expected e.g. 'a <= 0.5 * b', 'a > b' or 'a < 10'"
        )
    g = m.groupdict()
    if g["const"] is not None:
        return Expectation(g["left"], g["op"], float(g["const"]), None)
    factor = g["f1"] or g["f2"] or "1"
    right = g["r1"] or g["r2"] or g["r3"]
    return Expectation(g["left"], g["op"], float(factor), right)
