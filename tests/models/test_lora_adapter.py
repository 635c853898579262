"""PEFT LoRA adapters served by llama.cpp: the GGUF export (format, the q/k rotary permutation, refusals),
agreement with torch + PEFT, hot swaps, and ``local/<name>@<DIR>`` model strings.

The fast tests use small synthetic adapters written with numpy. The slow ones put a PEFT LoRA with
seeded random ``lora_B`` weights on the torch twin of the Q4_1 file and compare it with llama.cpp.

Tolerances (measured here, 2 cores, llama-cpp-python 0.3.36; log-probabilities of the greedy tokens,
llama.cpp's against torch's over the same token sequence):
- F16 copy of the weights (``weights.derive(..., "f16")``): llama.cpp rounds each matrix product's
  activations to F16, torch computes in fp32 from the same dequantised values. Base model 0.006,
  with adapters 0.0065-0.012 at most. ``TOL_F16 = 0.03`` (2.5x the largest); without the q/k
  permutation the q/k adapter below is off by 0.94.
- Q4_1 (``smollm2-135m-q4_1``) and BF16 (``smollm2-135m`` on this CPU): llama.cpp quantises activations
  (to Q8_1, or rounds them to BF16), so even the base model differs from its torch twin by up to 0.32
  (Q4_1; 0.06 BF16) and greedy paths part at near ties (top-2 margins up to 0.28). With the adapter:
  0.18 (Q4_1) and 0.06 (BF16). ``TOL_QUANT = 0.5`` is that noise floor with room; it cannot tell a
  missing permutation (0.29 on Q4_1 for the all-module adapter), which the F16 test does.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperworks.core.errors import UserError
from paperworks.core.paths import set_offline_env
from paperworks.models.local import lora_gguf
from paperworks.models.local.lora_gguf import export_lora_gguf
from paperworks.models.local.smollm import LocalModelError, local_weights, split_adapter

set_offline_env()

TOL_F16 = 0.03
TOL_QUANT = 0.5
TOKENS = 24
PROMPTS = ["What is the capital of France?", "Write a haiku about the sea.", "List three colors.",
           "Explain what a computer is."]
ALL = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]
SHAPES = {"q_proj": (576, 576), "k_proj": (192, 576), "v_proj": (192, 576), "o_proj": (576, 576),
          "gate_proj": (1536, 576), "up_proj": (1536, 576), "down_proj": (576, 1536)}
"""SmolLM2-135M's (out, in) per adapted module (9 query heads, 3 key/value heads of 64)."""


def _chat(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


# ----------------------------------------------------------------------------- synthetic adapters


def _key(layer: int, module: str, part: str) -> str:
    block = "mlp" if module in ("gate_proj", "up_proj", "down_proj") else "self_attn"
    return f"base_model.model.model.layers.{layer}.{block}.{module}.{part}.weight"


def _fake(folder: Path, modules: dict[tuple[int, str], tuple[int, int]] | None = None, r: int = 4,
          extra: dict[str, np.ndarray] | None = None, **config: Any) -> dict[str, np.ndarray]:
    """A saved PEFT-format adapter with random A/B for ``(layer, module) -> (out, in)``; returns its tensors."""
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    modules = modules or {(0, "q_proj"): SHAPES["q_proj"], (0, "k_proj"): SHAPES["k_proj"],
                          (0, "v_proj"): SHAPES["v_proj"], (29, "down_proj"): SHAPES["down_proj"]}
    tensors = {}
    for (layer, module), (out, inp) in modules.items():
        tensors[_key(layer, module, "lora_A")] = rng.standard_normal((r, inp), dtype=np.float32)
        tensors[_key(layer, module, "lora_B")] = rng.standard_normal((out, r), dtype=np.float32)
    tensors.update(extra or {})
    folder.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(folder / "adapter_model.safetensors"))
    settings = {"peft_type": "LORA", "r": r, "lora_alpha": 8, "target_modules": sorted({m for _, m in modules}),
                "bias": "none", "use_dora": False, "use_rslora": False, **config}
    (folder / "adapter_config.json").write_text(json.dumps(settings))
    return tensors


def _read(path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metadata, tensors by name) of a GGUF file."""
    from gguf import GGUFReader

    reader = GGUFReader(str(path))
    meta = {}
    for key in ("general.type", "general.architecture", "adapter.type", "adapter.lora.alpha"):
        field = reader.fields[key]
        value = field.parts[field.data[0]]
        meta[key] = bytes(value).decode() if field.types[0].name == "STRING" else float(value[0])
    return meta, {t.name: t for t in reader.tensors}


def _rotary(rows: np.ndarray, heads: int) -> np.ndarray:
    """llama.cpp's stored q/k row order, written out per row: within each head of ``d`` rows, stored row
    ``2i`` is row ``i`` and stored row ``2i+1`` is row ``d/2 + i``."""
    d = rows.shape[0] // heads
    order = [h * d + (i // 2 if i % 2 == 0 else d // 2 + i // 2) for h in range(heads) for i in range(d)]
    return rows[order]


def test_export_writes_llama_cpps_lora_format(tmp_path: Path) -> None:
    tensors = _fake(tmp_path / "a")
    out = export_lora_gguf(tmp_path / "a")
    assert out == tmp_path / "a" / "adapter.gguf"
    meta, stored = _read(out)
    assert meta == {"general.type": "adapter", "general.architecture": "llama", "adapter.type": "lora",
                    "adapter.lora.alpha": 8.0}
    assert set(stored) == {f"blk.{n}.weight.lora_{p}" for n in ("0.attn_q", "0.attn_k", "0.attn_v", "29.ffn_down")
                           for p in "ab"}
    for name, module, layer, heads in [("0.attn_q", "q_proj", 0, 9), ("0.attn_k", "k_proj", 0, 3),
                                       ("0.attn_v", "v_proj", 0, 0), ("29.ffn_down", "down_proj", 29, 0)]:
        a, b = stored[f"blk.{name}.weight.lora_a"], stored[f"blk.{name}.weight.lora_b"]
        out_dim, in_dim = SHAPES[module]
        assert list(a.shape) == [in_dim, 4] and list(b.shape) == [4, out_dim]  # ggml ne: A (in, r), B (r, out)
        np.testing.assert_array_equal(np.asarray(a.data), tensors[_key(layer, module, "lora_A")])
        peft_b = tensors[_key(layer, module, "lora_B")]
        np.testing.assert_array_equal(np.asarray(b.data), _rotary(peft_b, heads) if heads else peft_b)


def test_rslora_scale_is_folded_into_lora_b(tmp_path: Path) -> None:
    tensors = _fake(tmp_path / "a", {(3, "o_proj"): SHAPES["o_proj"]}, r=16, use_rslora=True)
    _, stored = _read(export_lora_gguf(tmp_path / "a"))
    # PEFT scales by alpha/sqrt(r), llama.cpp by alpha/r: lora_b carries the missing sqrt(r) = 4
    np.testing.assert_allclose(np.asarray(stored["blk.3.attn_output.weight.lora_b"].data),
                               4 * tensors[_key(3, "o_proj", "lora_B")], rtol=1e-6)


def test_export_is_reused_until_the_adapter_changes(tmp_path: Path) -> None:
    _fake(tmp_path / "a")
    out = export_lora_gguf(tmp_path / "a")
    made = out.stat().st_mtime_ns
    assert export_lora_gguf(tmp_path / "a").stat().st_mtime_ns == made
    weights = tmp_path / "a" / "adapter_model.safetensors"
    later = time.time() + 5
    os.utime(weights, (later, later))
    assert export_lora_gguf(tmp_path / "a").stat().st_mtime_ns != made
    assert export_lora_gguf(tmp_path / "a", tmp_path / "elsewhere.gguf") == tmp_path / "elsewhere.gguf"


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"use_dora": True}, "DoRA"),
        ({"peft_type": "PREFIX_TUNING"}, "llama.cpp serves LoRA only"),
        ({"bias": "all"}, "bias='all'"),
        ({"alpha_pattern": {"q_proj": 4}}, "'alpha_pattern'"),
        ({"lora_alpha": 0}, "lora_alpha 0 is not a positive number"),
        ({"modules": {(0, "lm_head"): (49152, 576)}}, "cannot serve a LoRA on 'lm_head'"),
        ({"modules": {(0, "q_proj"): (576, 512)}}, "another model's adapter"),
        ({"modules": {(30, "q_proj"): (576, 576)}}, "blk.30.attn_q.weight is not in the base model"),
        ({"extra": {"base_model.model.model.layers.0.self_attn.q_proj.lora_B.bias": np.zeros(576, np.float32)}},
         "unexpected adapter tensor"),
    ],
)
def test_export_refuses_what_llama_cpp_cannot_serve_in_one_line(tmp_path: Path, case: dict[str, Any],
                                                                 message: str) -> None:
    _fake(tmp_path / "a", case.pop("modules", None), extra=case.pop("extra", None), **case)
    with pytest.raises(LocalModelError) as err:
        export_lora_gguf(tmp_path / "a")
    assert message in str(err.value) and str(tmp_path / "a") in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "a" / "adapter.gguf").exists()


def test_export_never_overwrites_a_model_file(tmp_path: Path) -> None:
    _fake(tmp_path / "a")
    model = tmp_path / "model.gguf"
    shutil.copy(Path(__file__), model)  # any existing file that is not an adapter GGUF
    with pytest.raises(LocalModelError, match="not a LoRA adapter GGUF; not overwriting"):
        export_lora_gguf(tmp_path / "a", model)
    assert model.read_bytes() == Path(__file__).read_bytes()


def test_adapter_model_strings_are_parsed_in_one_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert split_adapter("smollm2-135m") == ("smollm2-135m", None)
    assert split_adapter("smollm2-135m@runs/x") == ("smollm2-135m", tmp_path / "runs" / "x")
    with pytest.raises(LocalModelError, match="nothing after '@'"):
        split_adapter("smollm2-135m@")
    _fake(tmp_path / "a")
    line = local_weights("local/smollm2-135m-q4_1@a")["local/smollm2-135m-q4_1@a"]
    assert line.startswith("SmolLM2-135M-Instruct.Q4_1.gguf + PEFT LoRA adapter ") and str(tmp_path / "a") in line
    assert "sha256 " in line


def test_check_model_names_the_adapter_folder(tmp_path: Path) -> None:
    from paperworks.models.checks import check_model

    (tmp_path / "empty").mkdir()
    _fake(tmp_path / "a")
    check_model(f"local/smollm2-135m@{tmp_path / 'a'}")
    for folder, what in [(tmp_path / "missing", "does not exist"), (tmp_path / "empty", "has no adapter_config.json")]:
        with pytest.raises(UserError) as err:
            check_model(f"local/smollm2-135m-q4_1@{folder}")
        assert f"adapter folder {folder} {what}" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(UserError, match="unknown local model"):
        check_model(f"local/nosuch@{tmp_path / 'a'}")


def test_the_provider_refuses_a_missing_adapter_before_loading(tmp_path: Path) -> None:
    from litellm.llms.custom_llm import CustomLLMError

    from paperworks.models.local.provider import _check

    with pytest.raises(CustomLLMError) as err:
        _check(f"local/smollm2-135m@{tmp_path / 'missing'}")
    assert err.value.status_code == 400 and str(tmp_path / "missing") in err.value.message
    _fake(tmp_path / "a")
    assert _check(f"local/smollm2-135m@{tmp_path / 'a'}") == f"smollm2-135m@{tmp_path / 'a'}"


# ----------------------------------------------------------------------------- slow: the real model


class Adapters:
    """PEFT LoRAs on a fresh torch twin of the Q4_1 file, saved: ``a`` and ``b`` on all seven projections
    (random ``lora_B``, std 0.02), ``qk`` on the query and key projections only (std 0.1)."""

    def __init__(self, root: Path) -> None:
        import torch
        from peft import LoraConfig, get_peft_model

        from paperworks.models.local.smollm import load_local_model

        self.twin = load_local_model("smollm2-135m-q4_1")  # a fresh instance: the shared one stays untouched
        torch.manual_seed(1)  # PEFT draws lora_A from the global generator: fixed, whatever ran before
        self.peft = get_peft_model(self.twin.model, LoraConfig(r=8, lora_alpha=16, target_modules=ALL))
        self.peft.add_adapter("qk", LoraConfig(r=8, lora_alpha=16, target_modules=["q_proj", "k_proj"]))
        self.root = root
        self.dirs: dict[str, Path] = {}
        for name, seed, std in [("b", 1, 0.02), ("a", 0, 0.02), ("qk", 2, 0.1)]:  # "a" last: it stays active
            slot = "qk" if name == "qk" else "default"
            generator = torch.Generator().manual_seed(seed)
            with torch.no_grad():
                for key, param in self.peft.named_parameters():
                    if f"lora_B.{slot}." in key:
                        param.copy_(torch.randn(param.shape, generator=generator) * std)
            self.peft.set_adapter(slot)
            self.dirs[name] = root / name
            self.peft.save_pretrained(root / name, selected_adapters=[slot])
            if slot != "default":  # PEFT saves a named adapter in a subfolder
                for f in (root / name / slot).iterdir():
                    f.rename(root / name / f.name)
        self.peft.eval()
        self.use("a")

    def use(self, name: str) -> None:
        """Make the torch side compute with adapter ``a`` (``b``'s weights were overwritten by it) or ``qk``."""
        self.peft.set_adapter("qk" if name == "qk" else "default")

    def logprobs(self, ids: list[int], *, base: bool = False) -> np.ndarray:
        """Next-token log-probabilities at every position of ``ids`` (teacher-forced)."""
        import contextlib

        import torch

        with torch.no_grad(), self.peft.disable_adapter() if base else contextlib.nullcontext():
            logits = self.peft(torch.tensor([ids])).logits[0].float()
        return torch.log_softmax(logits, -1).numpy()


@pytest.fixture(scope="module")
def adapters(tmp_path_factory: pytest.TempPathFactory) -> Adapters:
    return Adapters(tmp_path_factory.mktemp("adapters"))


@pytest.fixture(scope="module")
def f16() -> Path:
    from paperworks.models.local.smollm import local_model_spec
    from paperworks.models.local.weights import derive

    return derive(local_model_spec("smollm2-135m").source_gguf(), "f16")


def _engine(gguf: Path, adapter: Path | None = None) -> Any:
    from paperworks.models.local.llama_core import LlamaSettings
    from paperworks.models.local.llama_model import LlamaLocalModel

    return LlamaLocalModel("test", gguf, LlamaSettings(n_ctx=4096, n_seq=4), adapter=adapter)


def _q4_1() -> Path:
    from paperworks.models.local.smollm import local_model_spec

    return local_model_spec("smollm2-135m-q4_1").gguf_path()


def _against_torch(engine: Any, adapters: Adapters, *, base: bool = False) -> tuple[float, list[float], list[str]]:
    """Greedy replies of ``engine`` to PROMPTS, checked token by token against torch over the same tokens:
    (largest log-probability difference of a generated token, torch's top-1 margin over each generated
    token that is not torch's own greedy pick, the texts)."""
    worst, margins, texts = 0.0, [], []
    for prompt in PROMPTS:
        reply = engine.generate(_chat(prompt), max_tokens=TOKENS)
        logprobs = adapters.logprobs(reply.prompt_ids + reply.completion_ids, base=base)
        n = len(reply.prompt_ids)
        for i, token in enumerate(reply.completion_ids):
            row = logprobs[n - 1 + i]
            worst = max(worst, abs(float(row[token]) - reply.logprobs[i]))
            if int(row.argmax()) != token:
                margins.append(float(row.max() - row[token]))
        texts.append(reply.text)
    return worst, margins, texts


@pytest.mark.slow
def test_llama_cpp_with_the_adapter_computes_what_torch_with_peft_does(adapters: Adapters, f16: Path) -> None:
    engine = _engine(f16, export_lora_gguf(adapters.dirs["a"]))
    try:
        worst, margins, texts = _against_torch(engine, adapters)
        engine.set_adapter(None)
        base = [engine.generate(_chat(p), max_tokens=TOKENS).text for p in PROMPTS]
    finally:
        engine.close()
    assert worst <= TOL_F16, worst
    # every generated token is torch's greedy pick (so torch's greedy replies are these), or a near tie
    assert all(m <= TOL_F16 for m in margins), margins
    assert sum(a != b for a, b in zip(texts, base, strict=True)) >= 3  # the adapter visibly changes replies


@pytest.mark.slow
def test_the_query_key_row_permutation_is_what_makes_them_agree(adapters: Adapters, f16: Path, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    adapters.use("qk")
    engine = _engine(f16, export_lora_gguf(adapters.dirs["qk"]))
    try:
        worst, margins, _ = _against_torch(engine, adapters)
        monkeypatch.setattr(lora_gguf, "_permute_rows", lambda rows, heads: rows)
        engine.set_adapter(export_lora_gguf(adapters.dirs["qk"], tmp_path / "unpermuted.gguf"))
        wrong, wrong_margins, _ = _against_torch(engine, adapters)
    finally:
        engine.close()
        adapters.use("a")
    assert worst <= TOL_F16 and all(m <= TOL_F16 for m in margins), (worst, margins)
    assert wrong > 10 * TOL_F16, wrong  # measured 0.94
    assert any(m > TOL_F16 for m in wrong_margins)  # and greedy replies part where torch is sure


@pytest.mark.slow
@pytest.mark.parametrize("name", ["smollm2-135m-q4_1", "smollm2-135m"])
def test_served_names_agree_with_torch_within_their_quantisation_noise(adapters: Adapters, name: str) -> None:
    from paperworks.models.local.engines import get_engine
    from paperworks.models.local.smollm import local_model_spec

    engine = get_engine(f"{name}@{adapters.dirs['a']}")
    try:
        worst, margins, texts = _against_torch(engine, adapters)
    finally:
        _drop_engines(adapters.root)
    base = _engine(local_model_spec(name).gguf_path())
    try:
        base_texts = [base.generate(_chat(p), max_tokens=TOKENS).text for p in PROMPTS]
    finally:
        base.close()
    assert worst <= TOL_QUANT and all(m <= TOL_QUANT for m in margins), (worst, margins)
    assert sum(a != b for a, b in zip(texts, base_texts, strict=True)) >= 3


HAIKU = _chat("Write a haiku about the sea.")


@pytest.mark.slow
def test_hot_swap_changes_the_weights_and_drops_the_stale_prefix_cache(adapters: Adapters,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    lora_a, lora_b = export_lora_gguf(adapters.dirs["a"]), export_lora_gguf(adapters.dirs["b"])
    fresh = {}
    for key, lora in [("a", lora_a), ("b", lora_b), ("none", None)]:
        engine = _engine(_q4_1(), lora)
        fresh[key] = engine.generate(HAIKU, max_tokens=TOKENS).text
        engine.close()
    assert len(set(fresh.values())) == 3
    engine = _engine(_q4_1(), lora_a)
    try:
        assert engine.generate(HAIKU, max_tokens=TOKENS).text == fresh["a"]
        took = engine.set_adapter(lora_b)
        assert isinstance(took, float) and took < 5
        assert engine.adapter == lora_b and engine.generate(HAIKU, max_tokens=TOKENS).text == fresh["b"]
        assert engine.recent_jobs[-1].reused == 0  # the prompt's cells of adapter A were not reused
        engine.set_adapter(None)
        assert engine.adapter is None and engine.generate(HAIKU, max_tokens=TOKENS).text == fresh["none"]
        # the same swap keeping the idle slots' cells reuses stale KV and answers otherwise
        monkeypatch.setattr(engine.engine, "clear_prefix_cache", lambda: None)
        engine.set_adapter(lora_b)
        assert engine.generate(HAIKU, max_tokens=TOKENS).text != fresh["b"]
    finally:
        engine.close()


@pytest.mark.slow
def test_a_swap_waits_for_running_requests(adapters: Adapters) -> None:
    lora_a, lora_b = export_lora_gguf(adapters.dirs["a"]), export_lora_gguf(adapters.dirs["b"])
    engine = _engine(_q4_1(), lora_a)
    try:
        alone = engine.generate(HAIKU, max_tokens=32).text
        stream = engine.stream(HAIKU, max_tokens=32)
        pieces = [next(iter(stream))]  # the request is decoding
        swapped: list[float] = []
        swapper = threading.Thread(target=lambda: swapped.append(engine.set_adapter(lora_b)))
        swapper.start()
        pieces.extend(stream)
        swapper.join(timeout=60)
        assert swapped and stream.result is not None
        assert "".join(pieces) == alone  # it finished on the weights it started with
        job = engine.recent_jobs[-1]
        assert job.ended is not None and job.ended <= time.monotonic()
        assert engine.adapter == lora_b and engine.generate(HAIKU, max_tokens=32).text != alone
    finally:
        engine.close()


def _drop_engines(root: Path) -> None:
    """Close and forget the process-wide engines and torch twins made for adapters under ``root``."""
    from paperworks.models.local import engines, smollm

    for key in [k for k in engines._ENGINES if f"@{root}" in k]:
        engines._ENGINES.pop(key).close()
    for key in [k for k in smollm._LOADED if f"@{root}" in k]:
        smollm._LOADED.pop(key)


@pytest.fixture
def served(adapters: Adapters) -> Iterator[Adapters]:
    yield adapters
    _drop_engines(adapters.root)


@pytest.mark.slow
def test_model_strings_reach_the_engine_the_torch_twin_and_the_gateway(served: Adapters, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    from paperworks.models import get_model
    from paperworks.models.local import get_engine, get_local_model

    folder = served.dirs["a"]
    monkeypatch.chdir(folder.parent)
    engine = get_engine(f"smollm2-135m-q4_1@{folder}")
    assert get_engine("smollm2-135m-q4_1@a") is engine and get_engine("smollm2-135m-q4_1") is not engine
    assert engine.name == f"smollm2-135m-q4_1@{folder}" and engine.adapter == folder / "adapter.gguf"
    text = engine.generate(HAIKU, max_tokens=16, repetition_penalty=1.15).text
    reply = get_model("local/smollm2-135m-q4_1@a").generate_sync(HAIKU, max_tokens=16, temperature=0)
    assert reply.text == text

    twin = get_local_model("smollm2-135m-q4_1@a")
    shared = get_local_model("smollm2-135m-q4_1")
    assert twin is not shared and twin is get_local_model(f"smollm2-135m@{folder}")
    ids = twin.prompt_ids(HAIKU)
    with torch.no_grad():
        merged = torch.log_softmax(twin.model(torch.tensor([ids])).logits[0, -1], -1).numpy()
        untouched = torch.log_softmax(shared.model(torch.tensor([ids])).logits[0, -1], -1).numpy()
    np.testing.assert_allclose(merged, served.logprobs(ids)[-1], atol=1e-4)  # merged = PEFT's active adapter
    np.testing.assert_allclose(untouched, served.logprobs(ids, base=True)[-1], atol=1e-4)

    # a trainer saving a new adapter into the folder: the next get_engine swaps it in
    moving = tmp_path / "moving"
    shutil.copytree(folder, moving)
    engine = get_engine(f"smollm2-135m-q4_1@{moving}")
    first = engine.generate(HAIKU, max_tokens=TOKENS).text
    for f in ("adapter_model.safetensors", "adapter_config.json"):
        shutil.copy(served.dirs["b"] / f, moving / f)
        later = time.time() + 5
        os.utime(moving / f, (later, later))
    assert get_engine(f"smollm2-135m-q4_1@{moving}") is engine
    assert engine.generate(HAIKU, max_tokens=TOKENS).text != first
    reference = _engine(_q4_1(), export_lora_gguf(served.dirs["b"]))
    try:
        assert engine.generate(HAIKU, max_tokens=TOKENS).text == reference.generate(HAIKU, max_tokens=TOKENS).text
    finally:
        reference.close()
        _drop_engines(tmp_path)
