"""How a metric reads, the same in ``eval``'s summary, ``view``, the group tables and the HTML report:
``0.400 ± 0.059`` (value ± standard error)."""

from __future__ import annotations

from typing import Any


def format_value(name: str, value: Any) -> str:
    """One figure of metric ``name``, formatted the same in ``eval``'s summary, ``view`` and the HTML report:
    dollars to 4 decimals for ``cost/``, one decimal for tokens and seconds, 3 decimals for the rest."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "–"
    base = name.split("[", 1)[0]
    if base.startswith("cost/"):
        return f"${value:.4f}"
    if base.startswith(("tokens/", "time_s/", "working_s/", "waiting_s/")):
        return f"{value:,.1f}"
    return f"{value:.3f}"


def format_metric(name: str, metric: dict[str, Any] | None) -> str:
    """A metric as shown everywhere: ``0.400 ± 0.059`` (value ± standard error), or the value alone."""
    if not isinstance(metric, dict):
        return "–"
    stderr = metric.get("stderr")
    text = format_value(name, metric.get("value"))
    return text if stderr is None else f"{text} ± {format_value(name, stderr).lstrip('$')}"
