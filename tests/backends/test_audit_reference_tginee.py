"""Audit: tginee's task heads against scikit-learn (AUC, adjusted Rand index) on random inputs with ties and
tiny sizes, and bad input raising one-line errors instead of NaN, crashes or silently wrong labels."""

from __future__ import annotations

import numpy as np
import pytest

sk_metrics = pytest.importorskip("sklearn.metrics")

from paperworks.backends.tginee.heads import adjusted_rand, auc, kmeans  # noqa: E402
from paperworks.core.errors import UserError  # noqa: E402


def test_auc_and_ari_match_sklearn() -> None:
    rng = np.random.default_rng(0)
    for it in range(300):
        n = int(rng.integers(2, 30))
        s = rng.integers(0, 4, n).astype(float) if it % 2 else rng.normal(size=n)  # ties on odd rounds
        y = rng.integers(0, 2, n)
        if y.min() != y.max():
            assert auc(s, y) == pytest.approx(sk_metrics.roc_auc_score(y, s), abs=1e-12)
            assert auc(s, y.astype(bool)) == pytest.approx(sk_metrics.roc_auc_score(y, s), abs=1e-12)
        m = int(rng.integers(1, 20))
        a, b = rng.integers(0, rng.integers(1, 5), m), rng.integers(0, rng.integers(1, 5), m)
        assert adjusted_rand(a, b) == pytest.approx(sk_metrics.adjusted_rand_score(a, b), abs=1e-12)
    assert adjusted_rand(np.array([7]), np.array([3])) == 1.0  # was ZeroDivisionError


def test_kmeans_recovers_separated_clusters() -> None:
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(size=(10, 2)) * 0.1 + c for c in ((0, 0), (5, 5), (-5, 5))])
    truth = np.repeat([0, 1, 2], 10)
    assert adjusted_rand(kmeans(x, 3), truth) == 1.0


@pytest.mark.parametrize(("call", "match"), [
    (lambda: auc(np.array([0.1, 0.9, 0.2]), np.array([-1, 1, -1])), "labels must be 0/1"),  # was nan (all positive)
    (lambda: auc(np.array([np.nan, 0.9, 0.2]), np.array([0, 1, 0])), "NaN"),
    (lambda: auc(np.array([0.1, 0.9]), np.array([0, 1, 0])), "2 scores but 3 labels"),
    (lambda: adjusted_rand(np.array([0, 1]), np.array([0, 1, 0])), "2 and 3 items"),
    (lambda: kmeans(np.zeros((2, 2)), 5), "k must be an integer in \\[1, 2\\]"),
    (lambda: kmeans(np.ones((4, 2)), 0), "k must be"),
    (lambda: kmeans(np.full((4, 2), np.nan), 2), "non-empty finite"),
])
def test_bad_input_raises_one_line_error(call, match: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UserError, match=match) as info:
        call()
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
