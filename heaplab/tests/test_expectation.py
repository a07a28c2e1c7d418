import pytest

from heaplab.lab.expectation import ExpectationError, parse_expectation


@pytest.mark.parametrize(
    ("text", "left", "op", "factor", "right"),
    [
        ("hbase2-offheap <= 0.5 * hbase1-onheap", "hbase2-offheap", "<=", 0.5, "hbase1-onheap"),
        ("a>=b", "a", ">=", 1.0, "b"),
        ("a < b * 2", "a", "<", 2.0, "b"),
        ("a > 10", "a", ">", 10.0, None),
        ("a <= 1e-3", "a", "<=", 0.001, None),
    ],
)
def test_parse(text: str, left: str, op: str, factor: float, right: str | None) -> None:
    e = parse_expectation(text)
    assert (e.left, e.op, e.factor, e.right) == (left, op, factor, right)


def test_holds_both_ways() -> None:
    e = parse_expectation("new <= 0.5 * old")
    assert e.holds({"new": 5, "old": 45})
    assert not e.holds({"new": 30, "old": 45})
    assert e.holds({"new": 22.5, "old": 45})  # boundary is inclusive for <=
    assert not parse_expectation("new < 0.5 * old").holds({"new": 22.5, "old": 45})
    assert parse_expectation("x > 3").holds({"x": 4})
    assert not parse_expectation("x > 3").holds({"x": 3})


@pytest.mark.parametrize("text", ["", "a == b", "a <= 0.5 *", "<= b", "a <= b + 1"])
def test_rejects(text: str) -> None:
    with pytest.raises(ExpectationError):
        parse_expectation(text)
