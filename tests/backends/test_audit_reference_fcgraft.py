"""Audit: FCGraft's KV grafting on tiny random Llamas (float64): re-rotated keys equal a prefill at the new
position for default, llama3 and YaRN RoPE; a stitch whose later parts are fully recomputed equals a full
prefill; bad arguments raise one-line errors instead of building a mispositioned cache."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from paperworks.backends._validate import BackendInputError  # noqa: E402
from paperworks.backends.fcgraft import kv  # noqa: E402

ROPES: dict[str, dict[str, Any]] = {
    "default": {},
    "llama3": {"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
    "yarn": {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 8.0, "original_max_position_embeddings": 64},
}


def tiny(rope: str) -> Any:
    torch.manual_seed(0)
    extra = {"rope_parameters": ROPES[rope]} if ROPES[rope] else {}
    cfg = transformers.LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512, **extra)
    return transformers.LlamaForCausalLM(cfg).double().eval()


@pytest.fixture(scope="module")
def model() -> Any:
    return tiny("default")


@pytest.mark.parametrize("rope", list(ROPES))
def test_moved_keys_equal_prefill_at_new_position(rope: str) -> None:
    m = tiny(rope)
    ids = [3, 17, 5, 41, 0, 8, 22]
    at0 = kv.prefill(m, ids, start=0)
    for start in (1, 9, 130, 400):
        true = kv.prefill(m, ids, start=start)
        moved = kv.moved(m, at0, start)
        for a, b in zip(moved.keys, true.keys, strict=True):
            assert float((a - b).abs().max()) < 1e-6 * max(1.0, float(b.abs().max())), (rope, start)
        assert all(torch.equal(a, b) for a, b in zip(moved.values, at0.values, strict=True))
    # YaRN's attention scaling was applied a second time by the re-rotation (error ~6e-2)


def test_fully_recomputed_stitch_equals_full_prefill(model: Any) -> None:
    head = kv.prefill(model, [1, 2, 3])
    parts = [kv.prefill(model, ids, kv.new_cache(model, [head])) for ids in ([4, 5, 6, 7], [8, 9], [10])]
    full = kv.prefill(model, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    cache = kv.stitch(model, head, parts, reposition=True, recompute=4)
    assert kv.cache_length(cache) == 10
    for (k, v), fk, fv in zip(kv._cache_layers(cache), full.keys, full.values, strict=True):
        assert torch.allclose(k, fk, atol=1e-12) and torch.allclose(v, fv, atol=1e-12)
    # without recompute only the first part is exact; later parts' values differ (they never saw part 1)
    partial = kv._cache_layers(kv.stitch(model, head, parts))
    assert torch.allclose(partial[1][1][:, :, :7], full.values[1][:, :, :7], atol=1e-12)
    assert not torch.allclose(partial[1][1][:, :, 7:], full.values[1][:, :, 7:], atol=1e-6)
    ref = kv.next_logprobs(model, kv.new_cache(model, [full]), [11, 12])
    assert kv.kl(ref, kv.next_logprobs(model, cache, [11, 12])) == pytest.approx(0.0, abs=1e-12)


def test_kl_matches_definition() -> None:
    g = torch.Generator().manual_seed(0)
    p = torch.log_softmax(torch.randn(4, 6, generator=g, dtype=torch.float64), -1)
    q = torch.log_softmax(torch.randn(4, 6, generator=g, dtype=torch.float64), -1)
    ref = sum(sum(float(p[i, j].exp()) * float(p[i, j] - q[i, j]) for j in range(6)) for i in range(4)) / 4
    assert kv.kl(p, q) == pytest.approx(ref, rel=1e-12)
    ruled_out = torch.tensor([[0.0, float("-inf")]])  # p = 0 terms contribute 0, not NaN
    assert kv.kl(ruled_out, ruled_out) == 0.0
    assert kv.kl(torch.tensor([[-0.1, -2.35]]), torch.tensor([[0.0, float("-inf")]])) == float("inf")


def test_bad_arguments_raise_one_line_errors(model: Any) -> None:
    head = kv.prefill(model, [1, 2, 3])
    part = kv.prefill(model, [4, 5], kv.new_cache(model, [head]))
    cases = [
        (lambda: kv.stitch(model, head, [part, part], recompute=-1), "recompute must be >= 0"),  # was: wrong positions
        (lambda: kv.stitch(model, kv.prefill(model, [1, 2], start=5), [part]), "head must start at position 0"),
        (lambda: kv.moved(model, part, -3), "start must be >= 0"),
        (lambda: kv.prefill(model, []), "ids is empty"),
        (lambda: kv.prefill(model, [1], start=-2), "start must be >= 0"),
        (lambda: kv.prefill(model, [999]), "outside the vocabulary 0..49"),
        (lambda: kv.prefill(model, [1.5]), "ids must be integer"),  # type: ignore[list-item]
        (lambda: kv.next_logprobs(model, kv.new_cache(model, [head]), []), "ids is empty"),
        (lambda: kv.kl(torch.zeros(3, 5), torch.zeros(1, 5)), "one shape"),  # was broadcast silently
        (lambda: kv.kl(torch.zeros(0, 5), torch.zeros(0, 5)), "non-empty"),  # was NaN
        (lambda: kv.rotate(model, part.keys[0], 2.5), "delta must be an integer"),  # type: ignore[arg-type]
        (lambda: kv.Segment([1, 2, 3], [k[:, :, :2] for k in part.keys], part.values, 3), "segment layer 0"),
        (lambda: kv.stitch(model, head, [kv.Segment(part.ids, part.keys[:1], part.values[:1], 3)]), "layers"),
    ]
    for call, match in cases:
        with pytest.raises(BackendInputError, match=match) as info:
            call()
        assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
