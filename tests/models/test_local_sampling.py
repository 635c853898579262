"""The llama.cpp engine's per-request pieces that need no model: sampling, text assembly, engine choice."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from paperworks.models.local.sampling import Sampler, SamplingSettings, TextAssembler, cut_at_stop


def test_greedy_takes_the_largest_logit() -> None:
    logits = np.array([0.1, 3.0, 2.9, -1.0], dtype=np.float32)
    assert Sampler(SamplingSettings()).pick(logits.copy()) == 1


def test_repetition_penalty_only_touches_recent_generated_tokens() -> None:
    logits = np.array([0.0, 3.0, 2.9, -1.0], dtype=np.float32)
    sampler = Sampler(SamplingSettings(repetition_penalty=1.5))
    assert sampler.pick(logits.copy(), recent=[1]) == 2  # 3.0 / 1.5 < 2.9
    assert sampler.pick(logits.copy(), recent=[]) == 1
    window = Sampler(SamplingSettings(repetition_penalty=1.5, penalty_window=2))
    assert window.pick(logits.copy(), recent=[1, 0, 0]) == 1  # token 1 fell out of the window
    negative = np.array([-2.0, -1.0], dtype=np.float32)
    assert Sampler(SamplingSettings(repetition_penalty=3.0)).pick(negative.copy(), recent=[1]) == 0  # -3 < -2


def test_seeded_sampling_is_reproducible_and_seed_dependent() -> None:
    logits = np.zeros(1000, dtype=np.float32)

    def draw(seed: int) -> list[int]:
        sampler = Sampler(SamplingSettings(temperature=1.0, seed=seed))
        return [sampler.pick(logits.copy()) for _ in range(20)]

    assert draw(7) == draw(7)
    assert draw(7) != draw(8)


def test_top_k_and_top_p_restrict_the_choice() -> None:
    logits = np.log(np.array([0.5, 0.3, 0.15, 0.05]))
    top_k = Sampler(SamplingSettings(temperature=1.0, top_k=2, seed=0))
    assert {top_k.pick(logits.copy()) for _ in range(200)} == {0, 1}
    top_p = Sampler(SamplingSettings(temperature=1.0, top_p=0.7, seed=0))
    assert {top_p.pick(logits.copy()) for _ in range(200)} == {0, 1}  # 0.5 + 0.3 reaches 0.7
    hot = Sampler(SamplingSettings(temperature=1.0, seed=0))
    assert len({hot.pick(logits.copy()) for _ in range(400)}) == 4


def test_text_assembler_joins_utf8_split_across_tokens() -> None:
    text = TextAssembler([])
    data = "é ok".encode()
    pieces = [text.feed(data[:1]), text.feed(data[1:2]), text.feed(data[2:])]
    assert "".join(pieces) + text.finish() == "é ok"
    assert pieces[0] == ""  # half a character is never emitted


def test_text_assembler_cuts_at_a_stop_string_split_across_tokens() -> None:
    text = TextAssembler(["STOP"])
    out = [text.feed(p.encode()) for p in ["Hello wo", "rld S", "TO", "P and more"]]
    assert not any("S" in piece for piece in out)  # a possible stop start is held back, then dropped
    assert text.stopped and "".join(out) + text.finish() == "Hello world "
    assert text.feed(b"later") == ""


def test_text_assembler_never_searches_the_prefix() -> None:
    text = TextAssembler(["<"], prefix="<tool_call>[")
    assert text.feed(b'{"a": 1}') == '<tool_call>[{"a": 1}'
    assert not text.stopped
    assert text.feed(b" <x") == " " and text.stopped


def test_cut_at_stop() -> None:
    assert cut_at_stop("abcabc", ["c"], 3) == ("abcab", True)
    assert cut_at_stop("abc", ["x"]) == ("abc", False)


def test_without_llama_cpp_the_default_model_falls_back_to_torch(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from paperworks.models.local import engines, llama_core

    sentinel = object()
    monkeypatch.setattr(llama_core, "llama_cpp_available", lambda: "ModuleNotFoundError: No module named 'llama_cpp'")
    monkeypatch.setattr(engines, "get_local_model", lambda name: sentinel)
    monkeypatch.setattr(engines, "_ENGINES", {})
    monkeypatch.setattr(engines, "_WARNED", set())
    with caplog.at_level(logging.WARNING):
        assert engines.get_engine("smollm2-135m") is sentinel
        assert engines.get_engine("smollm2-135m") is sentinel
    notes = [r.getMessage() for r in caplog.records if "llama-cpp-python" in r.getMessage()]
    assert len(notes) == 1 and "\n" not in notes[0] and "torch engine" in notes[0]


def test_the_torch_name_is_served_by_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.models.local import engines, smollm

    seen: list[str] = []
    monkeypatch.setattr(engines, "get_local_model", lambda name: seen.append(name) or "torch-model")
    assert engines.get_engine("smollm2-135m-torch") == "torch-model"
    assert smollm.LOCAL_MODELS["smollm2-135m-torch"].torch_name == smollm.LOCAL_MODELS["smollm2-135m"].torch_name


def test_thread_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """One-token steps and multi-token steps (prefill, requests decoding together) take their own threads."""
    from paperworks.models.local.llama_core import LlamaSettings

    monkeypatch.setenv("PAPERWORKS_LOCAL_THREADS", "1")
    monkeypatch.setenv("PAPERWORKS_LOCAL_THREADS_BATCH", "3")
    s = LlamaSettings.from_env()
    assert (s.n_threads, s.n_threads_batch) == (1, 3)
    monkeypatch.delenv("PAPERWORKS_LOCAL_THREADS_BATCH")
    assert LlamaSettings.from_env().n_threads_batch == 0  # 0: every core this process may use
