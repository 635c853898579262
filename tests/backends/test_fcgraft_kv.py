"""FCGraft's KV mechanics on the embedded SmolLM2-135M: re-rotating a cached key by an offset equals the
key computed at the new position (per layer); a stitched cache is closer to a full prefill with
re-positioning than without, and boundary recompute narrows it further; patching fills only holes."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def local() -> Any:
    from paperworks.models.local import get_local_model
    from paperworks.models.local.smollm import LocalModelError

    try:
        return get_local_model("smollm2-135m-torch")
    except LocalModelError as exc:
        pytest.skip(str(exc))


def enc(local: Any, text: str) -> list[int]:
    return list(local.tokenizer(text, add_special_tokens=False)["input_ids"])


def test_rerotated_keys_equal_keys_prefilled_at_the_new_position(local: Any) -> None:
    from paperworks.backends.fcgraft import kv
    from paperworks.tools.robot.skeletons import SOURCES

    ids = enc(local, SOURCES["slice_food"])
    at0, at_far = kv.prefill(local.model, ids, start=0), kv.prefill(local.model, ids, start=211)
    moved = kv.moved(local.model, at0, 211)
    assert len(moved.keys) == local.model.config.num_hidden_layers
    for k_moved, k_true, k_old in zip(moved.keys, at_far.keys, at0.keys, strict=True):
        scale = float(k_true.abs().max())
        assert float((k_moved - k_true).abs().max()) < 1e-4 * max(1.0, scale)
        assert float((k_old - k_true).abs().max()) > 0.1  # positions really differ
    for v_moved, v_true in zip(moved.values, at_far.values, strict=True):
        assert torch.allclose(v_moved, v_true, atol=1e-4)
    back = kv.moved(local.model, moved, 0)  # rotations compose: there and back is the identity
    assert all(torch.allclose(a, b, atol=1e-4) for a, b in zip(back.keys, at0.keys, strict=True))


@pytest.mark.slow
def test_stitching_is_closer_with_repositioning_and_closer_still_with_recompute(local: Any) -> None:
    from paperworks.backends.fcgraft import kv
    from paperworks.backends.fcgraft.prompts import HEADER, skeleton_segment, task_segment
    from paperworks.tools.robot.skeletons import SOURCES

    head = kv.prefill(local.model, enc(local, HEADER))
    segs = [kv.prefill(local.model, enc(local, skeleton_segment(SOURCES[n])), kv.new_cache(local.model, [head]))
            for n in ("wash_item", "store_item", "discard_food")]
    task = enc(local, task_segment("Wash the mug and put it in the cabinet.") + '\n    wash_item(robot, "mug")')
    full = kv.prefill(local.model, head.ids + [i for s in segs for i in s.ids])
    ref = kv.next_logprobs(local.model, kv.new_cache(local.model, [full]), task)
    first_only = kv.stitch(local.model, head, segs[:1])  # the first part follows the head it saw: exact
    exact = kv.prefill(local.model, head.ids + segs[0].ids)
    assert all(torch.allclose(a, b, atol=1e-3) for a, b in
               zip(kv._cache_layers(first_only)[5], (exact.keys[5], exact.values[5]), strict=True))
    d = {(rep, rec): kv.kl(ref, kv.next_logprobs(local.model, kv.stitch(local.model, head, segs, rep, rec), task))
         for rep, rec in ((False, 0), (True, 0), (True, 16))}
    assert d[(True, 0)] < d[(False, 0)] / 2, d
    assert d[(True, 16)] < d[(True, 0)], d
    assert d[(True, 16)] > 1e-4, d  # stitching is not exact: the parts never saw each other


def test_patch_fills_only_the_holes(local: Any) -> None:
    from paperworks.backends.fcgraft import kv
    from paperworks.backends.fcgraft.patch import TrieDecoder, patch_main
    from paperworks.backends.fcgraft.prompts import HEADER, task_segment

    text = "Slice the carrot, then throw the bread away."
    ids = enc(local, HEADER + task_segment(text))
    cache = kv.new_cache(local.model)
    out = local.model(input_ids=torch.tensor([ids]), cache=cache, use_cache=True)
    dec = TrieDecoder(local.model, lambda s: enc(local, s), out.cache, out.logits[0, -1])
    params = {"slice_food": ("food",), "discard_food": ("food",), "boil_water": ("ml",)}
    p = patch_main(dec, text, params, [("slice the carrot", ["slice_food", "boil_water"]),
                                       ("throw the bread away", ["discard_food", "slice_food"])])
    assert [h.kind for h in p.holes][0::2] == ["call", "call"] and len(p.holes) == 4
    rebuilt, at = "", 0
    for h in p.holes:  # the text is exactly the holes' choices, each one of its options
        assert h.choice in h.options and p.text[h.start:h.end] == h.choice
        rebuilt += p.text[at:h.start] + h.choice
        at = h.end
    assert rebuilt + p.text[at:] == p.text and p.text[at:] == "\n"
    foods = [h.options for h in p.holes if h.kind == "food"]  # each site: only what its clause names
    assert all(o in ([', "carrot")'], [', "bread")']) for o in foods) and len(foods) >= 1
    for h in p.holes:
        if h.kind == "call":
            assert len(h.options) == 2
    assert p.decoded_tokens >= 1 and p.decoded_tokens < len(p.text)
