"""Read the articles' numbers, results/published/published_results.csv.

Columns: doc, experiment, variant, metric, value, unit, note.  ``variant`` is the article's name for a
configuration (e.g. ``onheap-1.x``); a lab's variant maps to it with ``published:`` in experiment.yml.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ("doc", "experiment", "variant", "metric", "value", "unit", "note")


@dataclass(frozen=True)
class PublishedValue:
    doc: str
    experiment: str
    variant: str
    metric: str
    value: float
    unit: str
    note: str


class Published:
    """The published values, indexed by (doc, experiment, variant, metric)."""

    def __init__(self, values: list[PublishedValue]) -> None:
        self.values = values
        self._index = {(v.doc, v.experiment, v.variant, v.metric): v for v in values}

    def get(self, doc: str, experiment: str, variant: str, metric: str) -> PublishedValue | None:
        return self._index.get((doc, experiment, variant, metric))

    def metrics(self, doc: str, experiment: str, variant: str) -> dict[str, float]:
        return {
            v.metric: v.value
            for v in self.values
            if (v.doc, v.experiment, v.variant) == (doc, experiment, variant)
        }

    def notes(self, doc: str, experiment: str, variant: str) -> list[str]:
        return [
            v.note
            for v in self.values
            if (v.doc, v.experiment, v.variant) == (doc, experiment, variant) and v.note
        ]


def load_published(path: Path) -> Published:
    with path.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ValueError(f"{path}: expected columns {','.join(COLUMNS)}, got {reader.fieldnames}")
        values = [
            PublishedValue(
                doc=row["doc"],
                experiment=row["experiment"],
                variant=row["variant"],
                metric=row["metric"],
                value=float(row["value"]),
                unit=row["unit"],
                note=row["note"] or "",
            )
            for row in reader
        ]
    return Published(values)
