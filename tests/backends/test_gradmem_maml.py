"""The meta-training loop's curricula, with a stand-in writer whose exact match is scripted."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

from paperworks.backends.gradmem.data import CharTokenizer, KVTaskConfig  # noqa: E402
from paperworks.backends.gradmem.maml import MetaTrainConfig, meta_train  # noqa: E402
from paperworks.backends.gradmem.memory import WriteResult  # noqa: E402
from paperworks.backends.gradmem.read import Score  # noqa: E402


class Scripted(nn.Module):
    """Exact match 1 on contexts of at most ``solved`` pairs, else 0."""

    def __init__(self, solved: int) -> None:
        super().__init__()
        self.model = nn.Linear(1, 1)
        self.w = nn.Parameter(torch.ones(1))
        self.solved = solved
        self._pairs = 0

    def write(self, ctx: Any, **_: Any) -> WriteResult:
        self._pairs = (ctx.shape[1] - 1) // 5  # "!k:v!" per pair, then "|"
        return WriteResult(memory=self.w.expand(ctx.shape[0], 1, 1))

    def score(self, memory: Any, qry: Any, tgt: Any) -> Score:
        ok = self._pairs <= self.solved
        n = qry.shape[0]
        return Score(loss=memory[:1, 0, 0].expand(n) ** 2, exact=torch.full((n,), ok), predicted=tgt)


TASK = KVTaskConfig(key_len=1, value_len=1)


def test_gated_curriculum_unlocks_sizes_as_they_are_solved() -> None:
    cfg = MetaTrainConfig(steps=80, batch=2, pairs=(1, 2, 4, 8), gate_window=5)
    hist = meta_train(Scripted(solved=2), CharTokenizer(), TASK, cfg)
    assert hist[0]["unlocked"] == 1 and hist[0]["pairs"] == 1
    assert max(h["unlocked"] for h in hist) == 4  # 1 and 2 solved -> 4 unlocked, 4 is never solved
    assert {h["pairs"] for h in hist} == {1, 2, 4}
    first_two = next(i for i, h in enumerate(hist) if h["unlocked"] == 2)
    assert first_two == 5  # after exactly one full window of solved 1-pair batches


def test_schedule_and_none_curricula() -> None:
    hist = meta_train(Scripted(solved=0), CharTokenizer(), TASK,
                      MetaTrainConfig(steps=40, batch=2, pairs=(1, 2, 4, 8), curriculum="schedule"))
    assert [h["unlocked"] for h in hist[::10]] == [1, 2, 4, 8]
    assert all(h["pairs"] <= h["unlocked"] for h in hist)
    hist = meta_train(Scripted(solved=0), CharTokenizer(), TASK,
                      MetaTrainConfig(steps=40, batch=2, pairs=(1, 2, 4, 8), curriculum="none"))
    assert {h["pairs"] for h in hist} == {1, 2, 4, 8}
    with pytest.raises(ValueError, match="curriculum"):
        meta_train(Scripted(0), CharTokenizer(), TASK, MetaTrainConfig(steps=1, curriculum="random"))
