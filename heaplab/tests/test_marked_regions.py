"""heaplab.report.marked_regions: only a region's content is rewritten; a region without its end is an error
naming its line."""

import pytest

from heaplab.report.marked_regions import rewrite

BEGIN, END = "<!-- x: begin", "<!-- x: end -->"


def _fill(line: str, at: str) -> str:
    return f"made for {at}"


def test_only_the_content_of_each_region_changes() -> None:
    text = f"intro\n{BEGIN} a -->\nold\nolder\n{END}\nmiddle\n{BEGIN} b -->\n{END}\nend\n"
    assert rewrite(text, BEGIN, END, _fill, where="doc.md", error=ValueError) == (
        f"intro\n{BEGIN} a -->\nmade for doc.md:2\n{END}\n"
        f"middle\n{BEGIN} b -->\nmade for doc.md:7\n{END}\nend\n"
    )


@pytest.mark.parametrize("text", [f"{BEGIN} a -->\nold\n", f"{BEGIN} a -->\nold\n{BEGIN} b -->\n{END}\n"])
def test_a_region_without_its_end_names_its_line(text: str) -> None:
    with pytest.raises(ValueError, match=r"^doc.md:1: the region has no .* before the next begin"):
        rewrite(text, BEGIN, END, _fill, where="doc.md", error=ValueError)
