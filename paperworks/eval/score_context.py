"""The settings every scorer of an eval shares (``ScoreContext``), below the scorers that read them.

The scorer registry (``scorers.py``) and the model-graded ``judge`` scorer (``judge.py``) both take a
``ScoreContext``; it lives here, under both, so that the judge needs nothing from the registry that
lists it and no import runs in a circle. ``paperworks.eval.scorers`` re-exports it, where callers
import it from.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ScoreContext:
    """Settings every scorer of an eval shares."""

    judge_model: str | None = None
    """litellm model string of the model-graded scorers' judge (``--judge-model``)."""
    seed: int = 0
    """Seed passed to the judge's generation."""
    cache: bool = False
    """Answer identical judge requests from the response cache (``--cache``)."""
