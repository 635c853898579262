"""MoEfication: balanced clustering, and recording expert groups from a (tiny random) Llama model."""

from __future__ import annotations

import numpy as np
import pytest

from paperworks.backends.specmd.moefy import MoefyConfig, balanced_kmeans, moefy_trace


def test_balanced_kmeans_gives_equal_groups_and_finds_clusters() -> None:
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(4, 8)) * 10
    x = np.concatenate([c + rng.normal(size=(25, 8)) for c in centers])
    lab = balanced_kmeans(x, 4, seed=1)
    assert np.bincount(lab).tolist() == [25, 25, 25, 25]
    assert all(len(set(lab[i * 25:(i + 1) * 25])) == 1 for i in range(4))
    assert np.bincount(balanced_kmeans(rng.normal(size=(10, 3)), 3)).tolist() == [4, 3, 3]


class _Tok:
    def __call__(self, text: str, return_tensors: str) -> object:
        import torch

        class Out:
            input_ids = torch.tensor([[ord(c) % 50 for c in text]])

        return Out()


def test_moefy_trace_on_a_tiny_random_llama() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = transformers.LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                   num_attention_heads=2, num_key_value_heads=2)
    torch.manual_seed(0)
    model = transformers.LlamaForCausalLM(cfg).eval()
    tr = moefy_trace(model, _Tok(), "some real text " * 5, MoefyConfig(n_experts=8, top_k=2, n_tokens=30, window=16))
    assert (tr.n_layers, tr.n_experts, tr.experts.shape) == (2, 8, (60, 2))
    assert tr.token.tolist()[:4] == [0, 0, 1, 1]


@pytest.mark.slow
def test_smollm2_trace_real_model() -> None:
    from paperworks.backends.specmd.moefy import smollm2_trace

    tr = smollm2_trace(MoefyConfig(n_tokens=64))
    assert (tr.n_layers, tr.n_experts, tr.experts.shape) == (30, 64, (64 * 30, 8))
    assert "common-licenses" in tr.meta["text"]
