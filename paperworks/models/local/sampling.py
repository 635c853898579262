"""Per-request token sampling from logits and text assembly, for the llama.cpp serving engine.

Each request has its own :class:`Sampler` (its own seeded generator, so batching never changes a seeded
sample) and its own :class:`TextAssembler` (UTF-8 across token boundaries, stop strings, hold-back of
text that may begin a stop string). numpy only.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Sampler", "SamplingSettings", "TextAssembler", "cut_at_stop"]


@dataclass(frozen=True)
class SamplingSettings:
    """How one request picks its tokens."""

    temperature: float = 0.0
    """0 (or less) is greedy; otherwise logits are divided by it before sampling."""
    top_p: float | None = None
    """Nucleus sampling: keep the most likely tokens whose probabilities add up to this."""
    top_k: int | None = None
    """Keep only the ``top_k`` most likely tokens (None or 0: all)."""
    seed: int | None = None
    """Seed of this request's own generator (None: fresh entropy)."""
    repetition_penalty: float | None = None
    """Penalty on tokens among the last ``penalty_window`` generated ones (not the prompt's)."""
    penalty_window: int = 64
    """How many recent generated tokens the penalty looks at."""


class Sampler:
    """Picks the next token of one request from its logits."""

    def __init__(self, settings: SamplingSettings) -> None:
        self.settings = settings
        self.rng = np.random.default_rng(settings.seed)
        self.last_logprob = 0.0
        """Log-probability of the token :meth:`pick` returned last, under the distribution it was drawn from
        (greedy: the plain log-softmax of the logits, the point mass being uninformative)."""
        self.last_proxy = 0.0
        """OTB's logit-gradient proxy of that token under the same distribution ``π``:
        ``‖∇_z log π_y‖² = (1 − π_y)² + Σ_{v≠y} π_v²`` (see ``backends/otb/estimators``)."""

    @property
    def greedy(self) -> bool:
        """Whether this sampler always takes the most likely token."""
        return not self.settings.temperature or self.settings.temperature <= 0

    def pick(self, logits: np.ndarray, recent: Sequence[int] = ()) -> int:
        """The next token given ``logits`` (modified in place) and the generated tokens so far."""
        s = self.settings
        if s.repetition_penalty and s.repetition_penalty != 1.0 and recent:
            idx = np.unique(np.asarray(recent[-s.penalty_window :], dtype=np.int64))
            vals = logits[idx]
            logits[idx] = np.where(vals < 0, vals * s.repetition_penalty, vals / s.repetition_penalty)
        if self.greedy:
            token = int(np.argmax(logits))
            wide = np.exp(logits.astype(np.float64) - float(logits.max()))
            self._record(wide / wide.sum(), token)
            return token
        scaled = logits.astype(np.float64) / float(s.temperature)
        if s.top_k and 0 < s.top_k < scaled.size:
            kth = np.partition(scaled, -s.top_k)[-s.top_k]
            scaled[scaled < kth] = -np.inf
        probs = np.exp(scaled - scaled.max())
        probs /= probs.sum()
        if s.top_p is not None and 0 < s.top_p < 1.0:
            order = np.argsort(-probs)
            cumulative = np.cumsum(probs[order])
            keep = order[: int(np.searchsorted(cumulative, s.top_p)) + 1]
            kept = np.zeros_like(probs)
            kept[keep] = probs[keep]
            probs = kept / kept.sum()
        token = int(self.rng.choice(probs.size, p=probs))
        self._record(probs, token)
        return token

    def _record(self, probs: np.ndarray, token: int) -> None:
        """Keep the log-probability and the logit-gradient proxy of ``token`` under ``probs``."""
        p = float(probs[token])
        self.last_logprob = float(np.log(p)) if p > 0 else float("-inf")
        self.last_proxy = max(0.0, (1.0 - p) ** 2 + float(np.dot(probs, probs)) - p * p)


def cut_at_stop(text: str, stops: Sequence[str], start: int = 0) -> tuple[str, bool]:
    """``text`` cut before its first stop string at or after ``start``, and whether one was found."""
    hits = [i for i in (text.find(s, start) for s in stops) if i >= 0]
    return (text[: min(hits)], True) if hits else (text, False)


class TextAssembler:
    """Turns generated token bytes into text pieces safe to emit, ending at the first stop string.

    ``prefix`` (the forced start of the reply) is part of the text but never searched for stops. Text that
    could still become the start of a stop string is held back until it cannot.
    """

    def __init__(self, stops: Sequence[str], prefix: str = "") -> None:
        self.stops = [s for s in stops if s]
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._keep = max((len(s) for s in self.stops), default=1) - 1
        self._start = len(prefix)
        self.text = prefix
        self.sent = 0
        self.stopped = False

    def feed(self, data: bytes) -> str:
        """Add one token's bytes; returns the text that may be emitted now ("" when none)."""
        if self.stopped:
            return ""
        self.text += self._decoder.decode(data)
        return self._advance(final=False)

    def finish(self) -> str:
        """The rest of the text once generation has ended."""
        if not self.stopped:
            self.text += self._decoder.decode(b"", final=True)
        return self._advance(final=True)

    def _advance(self, final: bool) -> str:
        if not self.stopped and self.stops:
            self.text, self.stopped = cut_at_stop(self.text, self.stops, self._start)
        upto = len(self.text) if (final or self.stopped) else max(self.sent, len(self.text) - self._keep)
        piece = self.text[self.sent : upto]
        self.sent = max(self.sent, upto)
        return piece
