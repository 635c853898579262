"""Trace format, sources (synthetic, router files) and prefetch hints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperworks.backends.specmd.hf_traces import load_router_trace, record_router_trace, save_router_file
from paperworks.backends.specmd.prefetch import PrefetchConfig, speculative_hints
from paperworks.backends.specmd.synthetic import SyntheticConfig, synthetic_trace
from paperworks.backends.specmd.trace import NEVER, Trace, to_stream


def test_round_trip(tmp_path: Path) -> None:
    tr = speculative_hints(synthetic_trace(SyntheticConfig(n_tokens=20)))
    back = Trace.load(tr.save(tmp_path / "t.npz"))
    for f in ("token", "layer", "experts", "hints"):
        assert np.array_equal(getattr(tr, f), getattr(back, f)) and getattr(tr, f).dtype == getattr(back, f).dtype
    assert (back.n_layers, back.n_experts, back.meta) == (16, 64, tr.meta)


def test_load_rejects_other_files(tmp_path: Path) -> None:
    np.savez(tmp_path / "x.npz", a=np.zeros(2))
    with pytest.raises(ValueError, match="format"):
        Trace.load(tmp_path / "x.npz")


def test_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="'experts'"):
        Trace(token=[0], layer=[0], experts=[[5]], n_layers=1, n_experts=4)
    with pytest.raises(ValueError, match="repeats"):
        Trace(token=[0], layer=[0], experts=[[1, 1]], n_layers=1, n_experts=4)
    with pytest.raises(ValueError, match="'token'"):
        Trace(token=[1, 0], layer=[0, 0], experts=[[1], [1]], n_layers=1, n_experts=4)


def test_synthetic_shape_and_knobs() -> None:
    tr = synthetic_trace(SyntheticConfig(n_tokens=50))
    assert tr.experts.shape == (50 * 16, 8) and tr.n_keys == 1024
    e = tr.experts.reshape(50, 16, 8)
    assert all(len(set(row)) == 8 for row in e.reshape(-1, 8).tolist())

    def reuse(r: float) -> float:
        x = synthetic_trace(SyntheticConfig(n_tokens=200, reuse=r, skew=0.0)).experts.reshape(200, 16, 8)
        return float(np.mean([len(set(x[t, la]) & set(x[t - 1, la])) for t in range(1, 200) for la in range(16)]))

    assert reuse(0.9) > 7 and reuse(0.0) < 2  # uniform without reuse: 8 * 8 / 64 = 1 shared on average

    def top_share(skew: float) -> float:
        x = synthetic_trace(SyntheticConfig(n_tokens=200, reuse=0.0, skew=skew)).experts.reshape(200, 16, 8)
        return float(np.bincount(x[:, 0].ravel(), minlength=64).max() / 200)

    assert top_share(1.5) > top_share(0.0)


def test_to_stream_and_next_uses() -> None:
    # tokens 0,1 are the prompt, prefilled as one chunk per layer (the union of their experts)
    tr = Trace(token=[0, 0, 1, 1, 2, 2], layer=[0, 1, 0, 1, 0, 1], experts=[[0], [1], [2], [1], [0], [3]],
               n_layers=2, n_experts=4)
    s = to_stream(tr, prompt_tokens=2, chunk=2)
    assert s.prefill_rows == 2 and s.n_rows == 4
    assert [s.keys[s.row_ptr[r]:s.row_ptr[r + 1]].tolist() for r in range(4)] == [[0, 2], [5], [0], [7]]
    assert s.row_ntok.tolist() == [2, 2, 1, 1]
    nxt, _ = s.next_uses()
    assert nxt.tolist() == [2, NEVER, NEVER, NEVER, NEVER]


def test_speculative_hints_accuracy() -> None:
    tr = synthetic_trace(SyntheticConfig(n_tokens=100))
    exact = speculative_hints(tr, PrefetchConfig(ahead=1, accuracy=1.0)).hints
    target = tr.experts[1:].astype(np.int64) + tr.layer[1:, None].astype(np.int64) * 64
    assert np.array_equal(exact[:-1], target) and (exact[-1] == -1).all()
    half = speculative_hints(tr, PrefetchConfig(ahead=2, accuracy=0.5, seed=1)).hints[:-2]
    tgt2 = tr.experts[2:].astype(np.int64) + tr.layer[2:, None].astype(np.int64) * 64
    right = np.mean([len(set(a) & set(b)) / 8 for a, b in zip(half.tolist(), tgt2.tolist(), strict=True)])
    assert 0.45 < right < 0.55


def test_router_file_loader_on_a_fabricated_file(tmp_path: Path) -> None:
    # the recipe's format, written by hand: 2 layers, 3 tokens, top-2 of 4 experts
    topk = np.array([[[1, 0], [2, 3], [0, 3]], [[3, 2], [1, 0], [2, 1]]], np.int16)
    path = save_router_file(tmp_path / "r.npz", topk, n_experts=4, model="fake",
                            router_logits=np.zeros((2, 3, 4)))
    tr = load_router_trace(path)
    assert (tr.n_layers, tr.n_experts, len(tr)) == (2, 4, 6)
    assert tr.token.tolist() == [0, 0, 1, 1, 2, 2] and tr.layer.tolist() == [0, 1, 0, 1, 0, 1]
    assert tr.experts.tolist() == [[0, 1], [2, 3], [2, 3], [0, 1], [0, 3], [1, 2]]
    assert tr.meta["model"] == "fake"
    np.savez(tmp_path / "bad.npz", router_topk=np.zeros((3, 2), np.int16), n_experts=4)
    with pytest.raises(ValueError, match="router_topk"):
        load_router_trace(tmp_path / "bad.npz")


def test_record_router_trace_on_a_tiny_random_olmoe(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    cfg = transformers.OlmoeConfig(vocab_size=64, hidden_size=32, intermediate_size=16, num_hidden_layers=3,
                                   num_attention_heads=2, num_key_value_heads=2, num_experts=8,
                                   num_experts_per_tok=2, eos_token_id=1, pad_token_id=0, bos_token_id=2)
    torch.manual_seed(0)
    model = transformers.OlmoeForCausalLM(cfg).eval()  # random weights, built from a config: nothing downloaded
    topk = record_router_trace(model, torch.randint(0, 64, (1, 7)))
    assert topk.shape == (3, 7, 2)
    tr = load_router_trace(save_router_file(tmp_path / "olmoe.npz", topk, n_experts=8, model="tiny-olmoe"))
    assert (tr.n_layers, tr.n_experts, tr.experts.shape) == (3, 8, (21, 2))
