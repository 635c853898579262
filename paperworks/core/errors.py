"""Errors a user sees as one line (the CLI prints ``error: <message>`` and exits 1)."""

from __future__ import annotations


class PaperworksError(Exception):
    """Base class: the message is one line naming what was wrong and where."""

    exit_code = 1


class UserError(PaperworksError):
    """Bad input from the user: unknown workflow or model, malformed input file, bad run id."""


class MissingDependencyError(PaperworksError):
    """An optional dependency is not installed; the message says what to install."""


class LimitExceeded(PaperworksError):
    """A per-run limit (time, tokens, cost) was hit. ``kind`` is "time", "tokens" or "cost"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class ModelError(PaperworksError):
    """A model call failed for good (after retries), or the model's provider refused the request."""


def one_line(exc: BaseException, limit: int = 300) -> str:
    """A single-line description of an exception: ``Type: message`` squeezed to one line."""
    text = " ".join(str(exc).split())
    if not isinstance(exc, PaperworksError):
        text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"
