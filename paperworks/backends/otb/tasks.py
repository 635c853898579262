"""Tasks with verifiable rewards. A task makes prompts and scores ``(prompt, response) -> float``; the
correct answer is recomputed from the prompt, so any reward is checkable without stored labels.

- :class:`ArithmeticTask`: ``"12+7="`` → ``"19"``.
- :class:`RepeatTask`: ``"b7:"`` → ``"bbbbbbb"``; correct responses range from 1 to ``max_len`` tokens,
  the setting where per-token (rather than per-sequence) baselines should matter most.

Both use a small character alphabet (:data:`ALPHABET`) so a character-level tiny policy can learn them;
with a real tokenizer (SmolLM2) the same strings work as raw prompts.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass

ALPHABET = "0123456789+=:abcd"
"""Every character the tasks' prompts and answers use."""


class VerifiableTask(ABC):
    """A prompt generator with a checkable answer."""

    name: str = "task"

    @abstractmethod
    def prompt(self, rng: random.Random) -> str:
        """One random prompt."""

    @abstractmethod
    def answer(self, prompt: str) -> str:
        """The correct response to ``prompt``."""

    @abstractmethod
    def wrong_answer(self, prompt: str, rng: random.Random) -> str:
        """A plausible incorrect response (used to make a warm-start policy imperfect)."""

    def prompts(self, rng: random.Random, n: int) -> list[str]:
        """``n`` random prompts."""
        return [self.prompt(rng) for _ in range(n)]

    def reward(self, prompt: str, response: str) -> float:
        """1.0 when ``response`` (whitespace stripped) is exactly the answer, else 0.0."""
        return 1.0 if response.strip() == self.answer(prompt) else 0.0

    def __call__(self, prompt: str, response: str) -> float:
        """The task is its own reward function."""
        return self.reward(prompt, response)


@dataclass
class ArithmeticTask(VerifiableTask):
    """Addition of two non-negative integers."""

    max_operand: int = 20
    """Operands are drawn uniformly from ``0..max_operand``."""
    name: str = "arithmetic"

    def prompt(self, rng: random.Random) -> str:
        """``"a+b="``."""
        return f"{rng.randint(0, self.max_operand)}+{rng.randint(0, self.max_operand)}="

    def answer(self, prompt: str) -> str:
        """The sum, in decimal."""
        m = re.fullmatch(r"(\d+)\+(\d+)=", prompt)
        if m is None:
            raise ValueError(f"ArithmeticTask: prompt {prompt!r} is not of the form 'a+b='")
        return str(int(m.group(1)) + int(m.group(2)))

    def wrong_answer(self, prompt: str, rng: random.Random) -> str:
        """A different number in the answer range."""
        right = int(self.answer(prompt))
        return str(rng.choice([v for v in range(2 * self.max_operand + 1) if v != right]))


@dataclass
class RepeatTask(VerifiableTask):
    """Repeat a letter ``k`` times; ``k`` uniform in ``1..max_len``, so correct lengths differ a lot."""

    max_len: int = 12
    """Longest correct response (in characters; one more token for EOS). At most 99."""
    letters: str = "abcd"
    """Letters to repeat."""
    name: str = "repeat"

    def prompt(self, rng: random.Random) -> str:
        """``"<letter><k>:"``."""
        return f"{rng.choice(self.letters)}{rng.randint(1, self.max_len)}:"

    def answer(self, prompt: str) -> str:
        """The letter repeated ``k`` times."""
        m = re.fullmatch(r"([a-z])(\d+):", prompt)
        if m is None:
            raise ValueError(f"RepeatTask: prompt {prompt!r} is not of the form '<letter><k>:'")
        return m.group(1) * int(m.group(2))

    def wrong_answer(self, prompt: str, rng: random.Random) -> str:
        """The right letter, a wrong count."""
        right = self.answer(prompt)
        k = rng.choice([v for v in range(1, self.max_len + 1) if v != len(right)])
        return right[0] * k


TASKS: dict[str, type[VerifiableTask]] = {"arithmetic": ArithmeticTask, "repeat": RepeatTask}
"""Task name → class (default settings)."""
