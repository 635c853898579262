"""The model gateway with scripted replies: text, tool calls, retries, cache, limits, events."""

from __future__ import annotations

import asyncio
import time

import pytest

from paperworks.core.budget import Budget, Limits, current_budget
from paperworks.core.errors import LimitExceeded, ModelError, UserError
from paperworks.core.events import EventLog, current_events
from paperworks.models import get_model
from paperworks.models.scripted import register_script

USER = [{"role": "user", "content": "hello there"}]


def test_scripted_text_then_tool_calls_in_order() -> None:
    name = register_script("order", [
        {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]},
        "all done",
    ])
    model = get_model(name)
    first = asyncio.run(model.generate(USER))
    assert first.text == ""
    assert [(c.name, c.arguments) for c in first.tool_calls] == [("calculate", {"expression": "1+1"})]
    assert first.finish_reason == "tool_calls"
    assert first.usage.prompt_tokens > 0 and first.usage.calls == 1
    conversation = [*USER, first.to_message(),
                    {"role": "tool", "tool_call_id": first.tool_calls[0].id, "content": "2"}]
    second = asyncio.run(model.generate(conversation))
    assert second.text == "all done" and second.tool_calls == []
    assert second.latency_s >= 0 and second.model == name


def test_echo_model_and_streaming_emits_tokens() -> None:
    seen: list[dict] = []
    token = current_events.set(EventLog(None, [seen.append]))
    try:
        reply = asyncio.run(get_model("scripted/echo").generate(USER, stream=True))
    finally:
        current_events.reset(token)
    assert reply.text == "hello there"
    pieces = [e["text"] for e in seen if e["type"] == "token"]
    assert len(pieces) >= 2 and "".join(pieces) == "hello there"
    calls = [e for e in seen if e["type"] == "model_call"]
    assert len(calls) == 1 and calls[0]["model"] == "scripted/echo"


def test_retries_provider_errors_with_backoff() -> None:
    name = register_script("flaky", [{"text": "finally", "fail_first": 2, "error": "rate_limit"}])
    seen: list[dict] = []
    token = current_events.set(EventLog(None, [seen.append]))
    try:
        reply = asyncio.run(get_model(name, backoff_s=0.01).generate(USER))
    finally:
        current_events.reset(token)
    assert reply.text == "finally"
    assert [e["attempt"] for e in seen if e["type"] == "model_retry"] == [1, 2]


def test_gives_up_after_max_retries_with_one_line_error() -> None:
    name = register_script("down", [{"text": "never", "fail_first": 99, "error": "server"}])
    with pytest.raises(ModelError) as err:
        asyncio.run(get_model(name, backoff_s=0.001, max_retries=2).generate(USER))
    assert "failed after 3 attempts" in str(err.value) and "\n" not in str(err.value)


def test_bad_request_is_not_retried() -> None:
    name = register_script("bad", [{"text": "x", "fail_first": 1, "error": "bad_request"}])
    start = time.monotonic()
    with pytest.raises(ModelError):
        asyncio.run(get_model(name, backoff_s=5).generate(USER))
    assert time.monotonic() - start < 4


def test_exhausted_script_is_a_model_error() -> None:
    name = register_script("short", ["only one"])
    model = get_model(name)
    with pytest.raises(ModelError, match="reply 2 was asked"):
        asyncio.run(model.generate([*USER, {"role": "assistant", "content": "x"}, *USER]))


def test_unknown_model_and_setting_are_user_errors() -> None:
    with pytest.raises(UserError, match="unknown model 'nonsense-model'"):
        get_model("nonsense-model")
    with pytest.raises(UserError, match="unknown generation setting"):
        asyncio.run(get_model("scripted/echo").generate(USER, temperatur=0.3))


def test_response_cache_answers_repeats_and_keys_on_seed() -> None:
    name = register_script("cached", [{"text": "slow answer", "delay_s": 0.3}])
    model = get_model(name, cache=True)
    budget = Budget()
    token = current_budget.set(budget)
    try:
        first = asyncio.run(model.generate(USER, seed=1))
        start = time.monotonic()
        again = asyncio.run(model.generate(USER, seed=1))
        hit_time = time.monotonic() - start
        other_seed = asyncio.run(model.generate(USER, seed=2))
    finally:
        current_budget.reset(token)
    assert not first.cached and again.cached and not other_seed.cached
    assert again.text == first.text and hit_time < 0.25
    assert budget.usage.calls == 2  # the cache hit costs nothing


def test_concurrency_limit_bounds_requests_in_flight() -> None:
    name = register_script("slow", [{"text": "ok", "delay_s": 0.2}])
    model = get_model(name, concurrency=2)

    async def many() -> float:
        start = time.monotonic()
        await asyncio.gather(*(model.generate(USER) for _ in range(6)))
        return time.monotonic() - start

    elapsed = asyncio.run(many())
    assert 0.55 < elapsed < 2.0  # 6 calls, 2 at a time, 0.2 s each: three waves


def test_budget_stops_calls_past_the_token_limit() -> None:
    name = register_script("chatty", ["one two three four five six"], repeat_last=True)
    budget = Budget(Limits(tokens=10))
    token = current_budget.set(budget)
    try:
        model = get_model(name)
        asyncio.run(model.generate(USER))
        with pytest.raises(LimitExceeded) as err:
            for _ in range(5):
                asyncio.run(model.generate(USER))
    finally:
        current_budget.reset(token)
    assert err.value.kind == "tokens"
    assert budget.usage.total_tokens >= 10


def test_when_replies_match_the_conversation_out_of_order() -> None:
    name = register_script("replay", [
        {"when": "task-B", "text": "answer for B"},
        {"when": "task-A", "text": "answer for A"},
        "fallback",
    ])
    model = get_model(name)
    assert asyncio.run(model.generate([{"role": "user", "content": "solve task-A please"}])).text == "answer for A"
    assert asyncio.run(model.generate([{"role": "user", "content": "now task-B"}])).text == "answer for B"
    assert asyncio.run(model.generate([{"role": "user", "content": "something else"}])).text == "fallback"


def test_when_lists_need_every_text() -> None:
    name = register_script("replay2", [{"when": ["role-X", "task-1"], "text": "X1"},
                                       {"when": ["role-Y", "task-1"], "text": "Y1"}, "other"])
    model = get_model(name)
    ask = [{"role": "system", "content": "role-Y"}, {"role": "user", "content": "task-1"}]
    assert asyncio.run(model.generate(ask)).text == "Y1"
    assert asyncio.run(model.generate([{"role": "user", "content": "task-1"}])).text == "other"


# -- credentials, --max-retries, --timeout, waiting, recorded prompts ------------------------------------

def test_missing_credentials_fail_at_once_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperworks.models.gateway import check_model

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UserError, match=r"^model 'openai/gpt-4o-mini' needs the environment variable "
                                        r"OPENAI_API_KEY, which is not set$"):
        check_model("openai/gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    check_model("openai/gpt-4o-mini")  # present: nothing to say (no request is made)
    check_model("ollama_chat/qwen2.5")  # a local server needs no key
    check_model("scripted/echo")


def test_unknown_embedded_or_scripted_models_are_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from paperworks.models.gateway import check_model

    with pytest.raises(UserError, match=r"^unknown local model 'local/nonexistent'; embedded models: local/"):
        check_model("local/nonexistent")
    with pytest.raises(UserError, match=r"no script file .*missing\.json$"):
        check_model(f"scripted/{tmp_path}/missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(UserError, match="invalid JSON"):
        check_model(f"scripted/{bad}")


def test_timeout_abandons_a_slow_attempt_and_max_retries_bounds_the_retries() -> None:
    from paperworks.models.gateway import model_for

    name = register_script("sluggish", [{"text": "late", "delay_s": 5}], repeat_last=True)
    seen: list[dict] = []
    token = current_events.set(EventLog(None, [seen.append]))
    try:
        model = model_for(name, max_retries=1, timeout_s=0.2)
        model.config.backoff_s = 0.01
        start = time.monotonic()
        with pytest.raises(ModelError, match=r"failed after 2 attempts: TimeoutError: no reply within --timeout 0.2 s"):
            asyncio.run(model.generate(USER))
        assert time.monotonic() - start < 2
        assert [e["attempt"] for e in seen if e["type"] == "model_retry"] == [1]
        assert model_for(name, max_retries=1, timeout_s=0.2) is model  # one shared Model per settings
        assert model_for(name, max_retries=0).config.max_retries == 0
    finally:
        current_events.reset(token)


def test_a_provider_error_is_one_clean_line() -> None:
    name = register_script("refuses", [{"text": "", "fail_first": 99, "error": "bad_request"}])
    with pytest.raises(ModelError) as err:
        asyncio.run(get_model(name).generate(USER))
    message = str(err.value)
    assert message == f"model '{name}': BadRequestError: scripted bad request", message


def test_time_queued_for_the_model_is_charged_as_waiting() -> None:
    from paperworks.models.gateway import GatewayConfig, Model

    name = register_script("queue", [{"text": "ok", "delay_s": 0.4}], repeat_last=True)
    model = Model(name, GatewayConfig(concurrency=1))

    async def two() -> tuple[Budget, Budget]:
        budgets = (Budget(), Budget())

        async def call(b: Budget) -> None:
            current_budget.set(b)
            await model.generate(USER)

        await asyncio.gather(call(budgets[0]), call(budgets[1]))
        return budgets

    first, second = asyncio.run(two())
    assert first.waiting_s == 0.0 and second.waiting_s == pytest.approx(0.4, abs=0.15)


def test_each_model_call_records_its_prompt_as_json(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json

    from paperworks.core.events import read_events

    name = register_script("recorded", ["fine"])
    token = current_events.set(EventLog(tmp_path / "events.jsonl"))
    try:
        asyncio.run(get_model(name).generate(USER, temperature=0))
    finally:
        current_events.reset(token)
    (event,) = [e for e in read_events(tmp_path / "events.jsonl") if e["type"] == "model_call"]
    prompt = json.loads((tmp_path / event["prompt"]).read_text())
    assert prompt["messages"] == USER and prompt["settings"] == {"temperature": 0} and prompt["model"] == name
    assert event["text"] == "fine" and event["waiting_s"] == 0.0


def test_local_defaults_batch_only_on_the_llama_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from paperworks.models.gateway import default_config

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: object() if n == "llama_cpp" else real(n, *a))
    assert default_config("local/smollm2-135m").concurrency == 8
    assert default_config("local/smollm2-135m-torch").concurrency == 1
    assert default_config("local/smollm2-135m").max_retries == 0
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "llama_cpp" else real(n, *a))
    assert default_config("local/smollm2-135m").concurrency == 1  # torch fallback serialises
    assert default_config("openai/gpt-4o-mini").concurrency == 8
