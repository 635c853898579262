"""Audit: codila's sampler — greedy is the argmax, draws follow softmax(logits / T) (chi-square against the
exact probabilities), the mask id is never drawn, a seed fixes the draws — and bad temperatures, forbidden ids
and logits raise one-line errors instead of NaN probabilities or multinomial crashes."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from paperworks.backends.codila.decode import sample  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def test_sampling_follows_the_tempered_softmax() -> None:
    logits = torch.tensor([[0.0, 1.0, -1.0, 2.0, 0.5]]).expand(20000, -1)
    for temp in (0.5, 1.0, 3.0):
        draws = sample(logits, temp, torch.Generator().manual_seed(0), forbid=4)
        assert not bool((draws == 4).any())
        z = [0.0, 1.0, -1.0, 2.0]
        p = [math.exp(v / temp) for v in z]
        p = [v / sum(p) for v in p]
        counts = torch.bincount(draws, minlength=5)[:4].tolist()
        chi2 = sum((c - 20000 * q) ** 2 / (20000 * q) for c, q in zip(counts, p, strict=True))
        assert chi2 < 25.0, (temp, counts)  # 3 degrees of freedom: p < 1e-4
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    assert torch.equal(sample(logits[:50], 1.0, g1), sample(logits[:50], 1.0, g2))
    greedy = sample(torch.tensor([[0.0, 9.0, 1.0], [5.0, 1.0, 7.0]]), 0.0, torch.Generator(), forbid=2)
    assert greedy.tolist() == [1, 0]


@pytest.mark.parametrize(("logits", "temp", "forbid", "match"), [
    (torch.zeros(2, 3), float("nan"), None, "temperature must be finite"),  # NaN probabilities -> multinomial crash
    (torch.zeros(2, 3), float("inf"), None, "temperature must be finite"),
    (torch.zeros(2, 3), -1.0, None, "temperature must be"),
    (torch.zeros(2, 3), 1.0, 3, "forbid must be a token id"),
    (torch.tensor([[float("nan"), 0.0]]), 1.0, None, "logits contain NaN"),
    (torch.tensor([[float("-inf"), 0.0]]), 0.0, 1, "ruled out"),  # greedy silently returned the forbidden row's 0
    (torch.zeros(2, 0), 1.0, None, "V >= 1"),
    (torch.zeros(2, 3, dtype=torch.long), 1.0, None, "float tensor"),
])
def test_bad_arguments_raise(logits: torch.Tensor, temp: float, forbid: int | None, match: str) -> None:
    with pytest.raises(UserError, match=match) as info:
        sample(logits, temp, torch.Generator(), forbid)
    assert "\n" not in str(info.value)
