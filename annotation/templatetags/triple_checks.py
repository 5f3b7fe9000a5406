"""Filters of the triple-check tables: an estimate with its interval, a figure or a dash."""

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()
DASH = "—"


@register.filter
def figure(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


@register.filter
def estimate(value: Mapping[str, float | None] | None, style: str = "") -> str:
    """``0.82 [0.75, 0.88]``; with ``"signed"``, a plus sign on positive values (a bias)."""
    if not value or value.get("value") is None:
        return DASH
    number = "{:+.2f}" if style == "signed" else "{:.2f}"
    shown = number.format(value["value"])
    if value.get("low") is None or value.get("high") is None:
        return shown
    return f"{shown} [{number.format(value['low'])}, {number.format(value['high'])}]"


@register.filter
def lookup(mapping: Mapping[str, Any], key: str) -> Any:
    return mapping.get(key)
