"""Audit regressions for the model gateway fed bad input: sampling settings out of range (temperature -1,
NaN, top_p 2, max_tokens 0, seed -1 or 2**70, empty or huge stop strings, an unknown tool_choice) fail as
one-line ``UserError``s at the gateway, before any provider sees them; malformed model strings are refused;
a provider's embedded traceback never reaches the one-line error; tool-call arguments that Python's JSON
reader cannot take (a 5000-digit number, deep nesting) are kept as ``_unparsed``."""

from __future__ import annotations

import asyncio

import litellm
import pytest

from paperworks.core.errors import UserError
from paperworks.models import get_model
from paperworks.models.checks import provider_message, validate_model_name
from paperworks.models.scripted import register_script
from paperworks.models.types import parse_arguments, validate_generation

MESSAGES = [{"role": "user", "content": "hi"}]
SEED_MAX = 2**63 - 1  # a signed 64-bit seed: what providers and torch.manual_seed take


@pytest.mark.parametrize(("setting", "message"), [
    ({"temperature": -1}, "temperature must be between 0 and 2, got -1"),
    ({"temperature": 50}, "temperature must be between 0 and 2, got 50"),
    ({"temperature": float("nan")}, "temperature must be a finite number"),
    ({"temperature": float("inf")}, "temperature must be a finite number"),
    ({"top_p": 2}, "top_p must be in (0, 1], got 2"),
    ({"repetition_penalty": 0}, "repetition_penalty must be > 0, got 0"),
    ({"max_tokens": 0}, "max_tokens must be >= 1, got 0"),
    ({"max_tokens": True}, "max_tokens must be an integer, got True"),
    ({"seed": -1}, f"seed must be between 0 and {SEED_MAX}, got -1"),
    ({"seed": 2**70}, f"seed must be between 0 and {SEED_MAX}"),
    ({"stop": ""}, "stop strings must not be empty"),
    ({"stop": ["ok", ""]}, "stop strings must not be empty"),
    ({"stop": "x" * 1_000_000}, "a stop string of 1000000 characters; at most 1000"),
    ({"stop": ["a"] * 100}, "stop gives 100 strings; at most 32"),
    ({"tool_choice": "bogus"}, "tool_choice must be 'auto', 'none', 'required' or an object"),
    ({"tool_gate": "high"}, "tool_gate must be a finite log-probability or false"),
])
def test_the_gateway_refuses_out_of_range_sampling_settings_before_the_provider(setting: dict, message: str) -> None:
    # "fail_first" would raise a provider error on the first attempt: a settings error must come before it
    model = get_model(register_script("audit-gen", [{"text": "never", "fail_first": 1, "error": "bad_request"}]))
    with pytest.raises(UserError) as info:
        asyncio.run(model.generate(MESSAGES, **setting))
    assert message in str(info.value) and str(info.value).startswith("model 'scripted/audit-gen': ")
    assert "\n" not in str(info.value)


def test_valid_edge_values_and_none_pass_and_none_is_not_sent() -> None:
    for ok in ({"temperature": 0, "top_p": 1.0, "seed": SEED_MAX, "max_tokens": 1, "stop": ["\n\n"],
                "tool_choice": "required", "tool_gate": -8.0, "top_k": None},
               {"seed": 0, "tool_choice": {"type": "function", "function": {"name": "f"}}, "tool_gate": False}):
        assert validate_generation(ok) is ok
    model = get_model(register_script("audit-none", ["fine"]))
    reply = asyncio.run(model.generate(MESSAGES, seed=None, max_tokens=None, temperature=0))
    assert reply.text == "fine"


@pytest.mark.parametrize("name", ["", "   ", "openai/", "local/x\n", " local/smollm2-135m", "a\tb"])
def test_malformed_model_strings_are_one_line_user_errors(name: str) -> None:
    with pytest.raises(UserError, match="malformed model string"):
        validate_model_name(name)


def test_a_provider_error_with_an_embedded_traceback_stays_one_short_line() -> None:
    # litellm wraps an exception raised inside a custom provider (local/...) with the traceback in its message
    exc = litellm.APIConnectionError(
        message="expected non-negative integer Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>"
                "\n    raise ValueError\nValueError: expected non-negative integer", llm_provider="local", model="m")
    text = provider_message(exc)
    assert "Traceback" not in text and "File " not in text
    assert text == "APIConnectionError: expected non-negative integer"


@pytest.mark.parametrize("raw", ['{"x": ' + "9" * 5000 + "}", '{"x": ' + "[" * 100_000 + "]" * 100_000 + "}"])
def test_tool_arguments_python_cannot_parse_are_kept_unparsed(raw: str) -> None:
    assert parse_arguments(raw) == {"_unparsed": raw}
