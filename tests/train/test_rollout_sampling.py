"""Rollouts sample from the policy the trainer updates: temperature and log-probabilities on, and the
embedded model's default repetition penalty off (it would reshape the sampling distribution) unless the
user sets one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paperworks.train import rollouts


class _Stop(Exception):
    pass


def _generation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gen: dict[str, Any]) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    def fake_create(args: Any) -> Any:
        seen.update(args.generation)
        raise _Stop

    monkeypatch.setattr(rollouts.harness, "create_eval", fake_create)
    with pytest.raises(_Stop):
        rollouts.run_rollouts(tmp_path / "suite", tmp_path / "log", model="local/smollm2-135m", epochs=4, seed=0,
                              temperature=0.7, concurrency=2, config={}, gen=gen)
    return seen


def test_the_default_repetition_penalty_is_off_in_rollouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = _generation(tmp_path, monkeypatch, {"max_tokens": 64})
    assert got == {"repetition_penalty": 1.0, "max_tokens": 64, "temperature": 0.7, "logprobs": True}


def test_a_penalty_the_user_sets_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = _generation(tmp_path, monkeypatch, {"repetition_penalty": 1.3, "temperature": 2.0})
    assert got["repetition_penalty"] == 1.3 and got["temperature"] == 0.7


def test_a_penalty_of_one_changes_no_logit() -> None:
    import numpy as np

    from paperworks.models.local.sampling import Sampler, SamplingSettings

    logits = np.array([2.0, 1.0, 0.5, -1.0], dtype=np.float32)
    plain = Sampler(SamplingSettings(temperature=0.7, seed=3))
    off = Sampler(SamplingSettings(temperature=0.7, seed=3, repetition_penalty=1.0))
    assert plain.pick(logits.copy(), [0, 1]) == off.pick(logits.copy(), [0, 1])
    assert plain.last_logprob == off.last_logprob
    scaled = logits.astype(np.float64) / 0.7
    expected = scaled - np.log(np.exp(scaled).sum())
    token = off.pick(logits.copy(), [0, 1])
    assert off.last_logprob == pytest.approx(expected[token], abs=1e-9)


def test_the_default_penalty_would_record_another_distribution() -> None:
    """Why it is off: with 1.15 the recorded log-probability of a recent token is not the policy's."""
    import numpy as np

    from paperworks.models.local.sampling import Sampler, SamplingSettings

    logits = np.array([2.0, 1.0, 0.5, -1.0], dtype=np.float32)
    penal = Sampler(SamplingSettings(temperature=0.7, seed=3, repetition_penalty=1.15))
    scaled = logits.astype(np.float64) / 0.7
    policy = scaled - np.log(np.exp(scaled).sum())
    token = penal.pick(logits.copy(), [0, 1, 2, 3])
    assert abs(penal.last_logprob - policy[token]) > 0.01
