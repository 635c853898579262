"""``eval_concurrency``: the held-out and final evals run at their own concurrency (1: one request at a time,
so greedy output does not depend on which requests llama.cpp batches beside it); rollouts keep theirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paperworks.train import loop
from paperworks.train.evaluate import EvalOutcome
from paperworks.train.settings import settings_from

BASE = {"workflow": "agent", "suite": "gen:arith", "eval_suite": "arith", "concurrency": 6}


def _seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **extra: Any) -> list[int]:
    seen: list[int] = []

    def fake(suite: str, log_dir: Path, model: str, *, config: dict[str, Any], seed: int = 0,
             concurrency: int = 8, limit: int | None = None) -> EvalOutcome:
        seen.append(concurrency)
        return EvalOutcome(run_dir=str(log_dir), accuracy=0.5, stderr=None, mean_reward=0.5, samples=2,
                           tokens=0, wall_s=0.0)

    monkeypatch.setattr(loop, "evaluate", fake)
    trainer = loop.Trainer(tmp_path / "run", settings_from({**BASE, **extra}))
    trainer._eval("arith", "heldout/step-000000", "local/smollm2-135m")
    trainer._eval("arith", "eval/final", "local/smollm2-135m")
    return seen


def test_evals_use_eval_concurrency_when_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _seen(tmp_path, monkeypatch, eval_concurrency=1) == [1, 1]


def test_evals_default_to_the_rollout_concurrency(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _seen(tmp_path, monkeypatch) == [6, 6]


@pytest.mark.parametrize("bad", [0, 65, "two"])
def test_a_bad_eval_concurrency_is_refused_in_one_line(bad: Any) -> None:
    from paperworks.core.errors import UserError

    with pytest.raises(UserError) as err:
        settings_from({**BASE, "eval_concurrency": bad})
    assert "eval_concurrency" in str(err.value) and "\n" not in str(err.value)
