"""The sampler records each token's log-probability and OTB proxy under the distribution it drew from."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from paperworks.backends.otb.estimators import logit_gradient_proxy
from paperworks.models.local.sampling import Sampler, SamplingSettings


def _logits(seed: int, n: int = 50) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 2.0, n).astype(np.float32)


def test_greedy_records_the_plain_log_softmax_and_proxy() -> None:
    z = _logits(0)
    s = Sampler(SamplingSettings(temperature=0.0))
    token = s.pick(z.copy())
    assert token == int(np.argmax(z))
    want = float(torch.log_softmax(torch.tensor(z, dtype=torch.float64), -1)[token])
    assert s.last_logprob == pytest.approx(want, abs=1e-9)
    proxy = float(logit_gradient_proxy(torch.tensor(z, dtype=torch.float64), torch.tensor(token)))
    assert s.last_proxy == pytest.approx(proxy, rel=1e-9)


def test_temperature_sampling_records_the_tempered_distribution() -> None:
    """At temperature 0.5 the recorded log-probability is log softmax(z / 0.5)[y], and over many draws its
    exponent matches the empirical frequency of the drawn tokens."""
    z = _logits(1, 8)
    s = Sampler(SamplingSettings(temperature=0.5, seed=3))
    probs = torch.softmax(torch.tensor(z, dtype=torch.float64) / 0.5, -1)
    counts = np.zeros(8)
    for _ in range(4000):
        y = s.pick(z.copy())
        counts[y] += 1
        assert s.last_logprob == pytest.approx(math.log(float(probs[y])), abs=1e-9)
        proxy = (1 - float(probs[y])) ** 2 + float((probs**2).sum()) - float(probs[y]) ** 2
        assert s.last_proxy == pytest.approx(proxy, rel=1e-9)
    assert np.allclose(counts / 4000, probs.numpy(), atol=0.03)


def test_top_k_renormalises() -> None:
    """With top_k=2 only the two best tokens are possible and their recorded probabilities sum to 1."""
    z = _logits(2, 10)
    s = Sampler(SamplingSettings(temperature=1.0, top_k=2, seed=0))
    seen: dict[int, float] = {}
    for _ in range(300):
        y = s.pick(z.copy())
        seen[y] = math.exp(s.last_logprob)
    assert set(seen) <= set(np.argsort(-z)[:2].tolist())
    top = np.sort(z)[-2:].astype(np.float64)
    assert sum(seen.values()) == pytest.approx(1.0, abs=1e-9) if len(seen) == 2 else True
    assert max(seen.values()) == pytest.approx(float(np.exp(top.max()) / np.exp(top).sum()), abs=1e-9)
