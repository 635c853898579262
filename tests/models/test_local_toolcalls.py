"""Text tool calling of the embedded model: the tools prompt, conversation rendering, tolerant parsing."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperworks.models.local.toolcalls import (
    parse_tool_calls,
    render_tool_calls,
    to_plain_messages,
    tools_system_prompt,
)

NAMES = {"get_weather", "add"}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Get the current weather in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two numbers",
            "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        },
    },
]


def calls_of(text: str, names: set[str] | None = NAMES) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in parse_tool_calls(text, names)[1]]


# ------------------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<tool_call>[{"name": "add", "arguments": {"a": 1, "b": 2}}]</tool_call>', [("add", {"a": 1, "b": 2})]),
        ('<tool_call>{"name": "add", "arguments": {"a": 1}}</tool_call>', [("add", {"a": 1})]),
        ('<tool_call>[{"name": "add", "arguments": {"a": 1}}]', [("add", {"a": 1})]),  # unclosed tag
        ('<tool_call>[{"name": "add", "arguments": {"a": 1}', [("add", {"a": 1})]),  # cut off mid-value
        (
            '<tool_call>[{"name": "get_weather", "arguments": {"city": "Taipei"}}}]</tool_call>',
            [("get_weather", {"city": "Taipei"})],
        ),  # stray brace, seen from the real model
        (
            '<tool_call>{"name": "add", "arguments": "{\\"a\\": 1, \\"b\\": 2}"}</tool_call>',
            [("add", {"a": 1, "b": 2})],
        ),  # arguments as a JSON string
        ('<tool_call>{"name": "add", "parameters": {"a": 3}}</tool_call>', [("add", {"a": 3})]),
        ('<tool_call>{"name": "get_weather"}</tool_call>', [("get_weather", {})]),
        (
            "<tool_call>[{'name': 'add', 'arguments': {'a': 1, 'b': True}}]</tool_call>",
            [("add", {"a": 1, "b": True})],
        ),  # single quotes
        (
            '<tool_call>[{"name": "add", "arguments": {"a": 1, "b": 2,},},]</tool_call>',
            [("add", {"a": 1, "b": 2})],
        ),  # trailing commas
        (
            '<tool_call>{"type": "function", "function": {"name": "add", "arguments": "{}"}}</tool_call>',
            [("add", {})],
        ),  # OpenAI-shaped item
        ('```json\n{"name": "add", "arguments": {"a": 5}}\n```', [("add", {"a": 5})]),
        ('```\n[{"name": "add", "arguments": {"a": 5}}]\n```', [("add", {"a": 5})]),
        ('{"name": "get_weather", "arguments": {"city": "Oslo"}}', [("get_weather", {"city": "Oslo"})]),
        (
            '[{"name": "add", "arguments": {"a": 1}}, {"name": "add", "arguments": {"a": 2}}]',
            [("add", {"a": 1}), ("add", {"a": 2})],
        ),
        ('{"arguments": {"a": 1}, "name": "add"}', [("add", {"a": 1})]),  # key order
    ],
)
def test_parses_each_format(text: str, expected: list) -> None:
    assert calls_of(text) == expected


def test_multiple_calls_and_blocks() -> None:
    text = (
        '<tool_call>[{"name": "add", "arguments": {"a": 1}}, {"name": "get_weather", "arguments": {"city": "X"}}]'
        '</tool_call> and <tool_call>{"name": "add", "arguments": {"a": 2}}</tool_call>'
    )
    rest, calls = parse_tool_calls(text, NAMES)
    assert [c.name for c in calls] == ["add", "get_weather", "add"]
    assert rest == "and"
    several = '<tool_call>{"name": "add", "arguments": {"a": 1}}\n{"name": "add", "arguments": {"a": 2}}</tool_call>'
    assert calls_of(several) == [("add", {"a": 1}), ("add", {"a": 2})]


def test_remaining_text_keeps_prose_and_drops_markup() -> None:
    text = 'Let me check.\n<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>\n\nDone.'
    rest, calls = parse_tool_calls(text, NAMES)
    assert rest == "Let me check.\n\nDone."
    assert len(calls) == 1
    # bracket debris of a malformed block is not left behind (real model output)
    messy = '<tool_call>[{"name": "get_weather", "arguments": {"city": "A"}}}>\n\nThe output should be: A'
    rest, calls = parse_tool_calls(messy, NAMES)
    assert rest == "The output should be: A" and calls[0].arguments == {"city": "A"}


def test_unknown_names_stay_text() -> None:
    text = 'Calling <tool_call>[{"name": "func_name1", "arguments": {"x": 1}}]</tool_call>'
    rest, calls = parse_tool_calls(text, NAMES)
    assert calls == []
    assert "func_name1" in rest and "<tool_call>" not in rest
    mixed = '<tool_call>[{"name": "add", "arguments": {}}, {"name": "nope", "arguments": {}}]</tool_call>'
    rest, calls = parse_tool_calls(mixed, NAMES)
    assert [c.name for c in calls] == ["add"] and "nope" in rest
    bare = 'I will call {"name": "nope", "arguments": {}} now'
    assert parse_tool_calls(bare, NAMES) == (bare, [])
    # without a name filter any call-shaped item counts
    assert calls_of('{"name": "nope", "arguments": {}}', None) == [("nope", {})]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Just an answer.",
        'garbage {{{ [[[ "unterminated',
        "<tool_call></tool_call>",
        "<tool_call>not json at all",
        "<tool_call>[1, 2, 3]</tool_call>",
        'Here is code:\n```python\nx = {"a": 1}\n```',
        '{"name": 5, "arguments": {}}',
        '{"name": "add", "arguments": [1, 2]}',
        '{"config": {"a": 1}, "list": [1, 2]}',
        "}}}]]]{{{",
    ],
)
def test_garbage_gives_no_calls(text: str) -> None:
    rest, calls = parse_tool_calls(text, NAMES)
    assert calls == []
    assert isinstance(rest, str)


def test_plain_json_answer_is_left_alone() -> None:
    text = 'The result is {"total": 3} and [1, 2].'
    assert parse_tool_calls(text, NAMES) == (text, [])


def test_non_string_input() -> None:
    assert parse_tool_calls(None, NAMES) == ("", [])  # type: ignore[arg-type]


def test_ids_are_deterministic_and_distinct() -> None:
    text = '[{"name": "add", "arguments": {"a": 1}}, {"name": "add", "arguments": {"a": 1}}]'
    first = parse_tool_calls(text, NAMES)[1]
    again = parse_tool_calls(text, NAMES)[1]
    assert [c.id for c in first] == [c.id for c in again]
    assert first[0].id != first[1].id
    assert first[0].id.startswith("call_0_") and first[1].id.startswith("call_1_")
    other = parse_tool_calls('{"name": "add", "arguments": {"a": 2}}', NAMES)[1]
    assert other[0].id != first[0].id


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("{}[]\"':,<>/ _abnmetolcar\\12")), max_size=80))
def test_never_raises(text: str) -> None:
    rest, calls = parse_tool_calls("<tool_call>" + text, NAMES)
    assert isinstance(rest, str) and isinstance(calls, list)
    rest, calls = parse_tool_calls(text, None)
    assert isinstance(rest, str) and isinstance(calls, list)


# ------------------------------------------------------------------------------------------ prompt


def test_tools_prompt_names_every_tool() -> None:
    prompt = tools_system_prompt(TOOLS)
    for name in NAMES:
        assert name in prompt
        assert f'<tool_call>[{{"name": "{name}"' in prompt  # one example call per tool
    assert "Get the current weather in a city" in prompt
    assert "<tools>" in prompt and "</tool_call>" in prompt
    assert tools_system_prompt([{"name": "plain", "parameters": {}}]).count("plain") >= 2


# ------------------------------------------------------------------------------------------ rendering

CONVERSATION = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}, {"type": "image_url"}]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}},
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
    {"role": "tool", "tool_call_id": "c2", "content": "3"},
    {"role": "assistant", "content": "It is sunny."},
    {"role": "user", "content": "thanks"},
]


def test_tools_prompt_joins_or_creates_the_system_message() -> None:
    merged = to_plain_messages(CONVERSATION, TOOLS)
    assert merged[0]["role"] == "system"
    assert merged[0]["content"].startswith("Be brief.") and "get_weather" in merged[0]["content"]
    assert sum(m["role"] == "system" for m in merged) == 1
    created = to_plain_messages([{"role": "user", "content": "hi"}], TOOLS)
    assert [m["role"] for m in created] == ["system", "user"]
    assert to_plain_messages([{"role": "user", "content": "hi"}], None) == [{"role": "user", "content": "hi"}]


def test_every_message_is_plain_text() -> None:
    for style in ("observation", "tags"):
        for msg in to_plain_messages(CONVERSATION, TOOLS, style=style):
            assert set(msg) == {"role", "content"}
            assert msg["role"] in {"system", "user", "assistant"}
            assert isinstance(msg["content"], str)


def test_observation_style() -> None:
    plain = to_plain_messages(CONVERSATION, None)
    assert [m["role"] for m in plain] == ["system", "user", "assistant", "user"]
    question = plain[1]["content"]
    assert question.startswith("Weather in Paris?")  # content parts flattened to their text
    assert 'get_weather({"city": "Paris"}) returned:\nSunny' in question
    assert 'add({"a": 1, "b": 2}) returned:\n3' in question
    assert plain[2] == {"role": "assistant", "content": "It is sunny."}


def test_observation_after_assistant_text_is_its_own_turn() -> None:
    messages = [
        {"role": "user", "content": "Add."},
        {
            "role": "assistant",
            "content": "Adding.",
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": "add", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "x", "content": "0"},
    ]
    plain = to_plain_messages(messages, None)
    assert [m["role"] for m in plain] == ["user", "assistant", "user"]
    assert plain[2]["content"] == "A tool was called for you: add({}) returned:\n0"


def test_tags_style_round_trips_through_the_parser() -> None:
    plain = to_plain_messages(CONVERSATION, TOOLS, style="tags")
    assistant = next(m for m in plain if m["role"] == "assistant" and "<tool_call>" in m["content"])
    rest, calls = parse_tool_calls(assistant["content"], NAMES)
    assert rest == ""
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"}), ("add", {"a": 1, "b": 2})]
    responses = next(m for m in plain if m["content"].startswith("<tool_response"))
    assert '<tool_response name="get_weather">\nSunny\n</tool_response>' in responses["content"]
    assert '<tool_response name="add">\n3\n</tool_response>' in responses["content"]


def test_render_tool_calls_round_trip() -> None:
    calls = [{"id": "a", "type": "function", "function": {"name": "add", "arguments": json.dumps({"a": [1, 2]})}}]
    assert calls_of(render_tool_calls(calls)) == [("add", {"a": [1, 2]})]


def test_roles_are_mapped() -> None:
    plain = to_plain_messages(
        [{"role": "developer", "content": "rules"}, {"role": "function", "content": "x"}, {"role": "user"}], None
    )
    assert [m["role"] for m in plain] == ["system", "user", "user"]
    assert plain[2]["content"] == ""
