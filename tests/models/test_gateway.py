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
