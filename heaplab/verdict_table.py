"""``heaplab verdicts RUN ...``: claims by verdict level, per article, over the runs' claims.json files.

Each run's claims.json (written by ``heaplab report``) holds its claims' verdicts; a claim belongs to the
article of its experiment (the lab's ``reproduces`` doc), or to the lab's first article when it names no
experiment (a claim declared not measurable).  With several runs of one lab, the newest claims.json of
that lab counts (a series' last report judges all its runs).  A claim judged on another subject than the
engine (heaplab.subjects: `<id>@apache-hbase`) counts in a row of its own, "<article>, on <subject>".
results/reference/README.md shows the table.
"""

from __future__ import annotations

import json
from pathlib import Path

from heaplab.rundir import RunError, load_run
from heaplab.subjects import ENGINE
from heaplab.verdict import LEVELS

ARTICLES = {
    "000": "HBase 2.0 end-to-end off-heap",
    "001": "Tuning Java Garbage Collection for HBase",
    "002": "Lift the Ceiling of Throughputs",
    "003": "HBase benchmark report (YCSB, 4 nodes)",
    "004": "Hypertable in practice",
}
PEER = "Apache HBase 2.6 (the peer, no article)"


def article_of(doc: str) -> str:
    return ARTICLES.get(doc, PEER)


def tally(run_dirs: list[Path]) -> dict[str, dict[str, int]]:
    """{article: {level: claims}} over the newest judged run of each lab among ``run_dirs``."""
    newest: dict[str, Path] = {}
    for path in sorted(run_dirs, key=lambda p: p.name):
        if not (path / "claims.json").is_file():
            raise RunError(f"{path}: no claims.json; run `heaplab report {path}` first")
        newest[load_run(path).lab] = path
    table: dict[str, dict[str, int]] = {}
    for path in newest.values():
        run = load_run(path)
        claims = json.loads((path / "claims.json").read_text(encoding="utf-8")).get("claims", {})
        first_doc = run.spec.reproduces[0]["doc"]
        for c in claims.values():
            doc = run.spec.doc_of(c["experiment"]) if c.get("experiment") else first_doc
            subject = c.get("subject", ENGINE)
            article = article_of(doc) + ("" if subject == ENGINE else f", on {subject}")
            row = table.setdefault(article, dict.fromkeys(LEVELS, 0))
            row[c["verdict"]] = row.get(c["verdict"], 0) + 1
    return table


def to_markdown(table: dict[str, dict[str, int]]) -> str:
    order = [*ARTICLES.values(), PEER]

    def place(row: str) -> tuple[int, str]:  # "<article>, on <subject>" right after its article's row
        article = row.split(", on ", maxsplit=1)[0]
        return (order.index(article) if article in order else len(order), row)

    lines = ["| article | " + " | ".join(LEVELS) + " | claims |", "|---|" + "---:|" * (len(LEVELS) + 1)]
    for article in sorted(table, key=place):
        row = table[article]
        lines.append(
            f"| {article} | " + " | ".join(str(row[lv]) for lv in LEVELS) + f" | {sum(row.values())} |"
        )
    return "\n".join(lines)
