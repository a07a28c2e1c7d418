"""How the reports and the generated handout tables print a measured figure."""

from __future__ import annotations


def number(v: float | None) -> str:
    """Three significant digits, whole numbers from 100 up, thousands separated; '-' for no value."""
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"
