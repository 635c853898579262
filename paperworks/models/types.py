"""Plain data types of the model gateway. No litellm or torch here, so anything may import them."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from paperworks.core.budget import Usage

__all__ = ["Message", "ModelResponse", "ToolCall", "Usage"]

Message = dict[str, Any]
"""An OpenAI-style chat message: ``{"role": ..., "content": ..., "tool_calls"?: ..., "tool_call_id"?: ...}``."""


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict; unparseable JSON is kept as ``{"_unparsed": raw}`` so that
    the tool can answer the model with a clear error instead of the run failing."""
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, TypeError, RecursionError):  # bad JSON, a 5000-digit number, nesting too deep
        return {"_unparsed": str(raw)}
    return value if isinstance(value, dict) else {"_unparsed": str(raw)}


@dataclass
class ToolCall:
    """One tool call requested by a model."""

    id: str
    """Call id; echoed back in the ``tool`` message that answers it."""
    name: str
    """Tool (function) name."""
    arguments: dict[str, Any]
    """Parsed JSON arguments (``{}`` when the model sent none)."""

    @classmethod
    def from_openai(cls, raw: dict[str, Any]) -> ToolCall:
        """From an OpenAI ``tool_calls`` entry (arguments as a JSON string or an object)."""
        fn = raw.get("function", {})
        return cls(id=str(raw.get("id", "")), name=str(fn.get("name", "")),
                   arguments=parse_arguments(fn.get("arguments")))

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``tool_calls`` entry for an assistant message."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": json.dumps(self.arguments)},
        }


@dataclass
class ModelResponse:
    """What ``Model.generate`` returns."""

    text: str
    """Assistant text (tool-call markup removed)."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    """Wall time of the call, retries included (0 for a cache hit)."""
    model: str = ""
    finish_reason: str = ""
    cached: bool = False

    def to_message(self) -> Message:
        """The assistant message to append to a conversation."""
        msg: Message = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            msg["tool_calls"] = [tc.to_openai() for tc in self.tool_calls]
        return msg

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "tool_calls": [asdict(tc) for tc in self.tool_calls],
            "usage": self.usage.to_dict(),
            "latency_s": self.latency_s,
            "model": self.model,
            "finish_reason": self.finish_reason,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelResponse:
        return cls(
            text=d.get("text", ""),
            tool_calls=[ToolCall(**tc) for tc in d.get("tool_calls", [])],
            usage=Usage.from_dict(d.get("usage", {})),
            latency_s=float(d.get("latency_s", 0.0)),
            model=d.get("model", ""),
            finish_reason=d.get("finish_reason", ""),
        )


_NUMBER_KEYS = {"temperature": (0.0, 2.0), "top_p": (0.0, 1.0), "repetition_penalty": (0.0, None),
                "presence_penalty": (-2.0, 2.0), "frequency_penalty": (-2.0, 2.0), "timeout": (0.0, None)}
_INT_KEYS: dict[str, tuple[int, int | None]] = {"max_tokens": (1, None), "top_k": (0, None), "seed": (0, 2**63 - 1)}
SEED_MAX = 2**63 - 1
"""The largest seed: providers and torch take a signed 64-bit seed; the local sampler needs one >= 0."""
MAX_STOPS, MAX_STOP_CHARS = 32, 1000
"""Most stop strings, and longest one, a request may give (every generated token is checked against each)."""
TOOL_CHOICES = ("auto", "none", "required")
_ABOVE_LOW = ("top_p", "timeout", "repetition_penalty")
"""Settings that must be strictly above their lower bound (0)."""
GENERATION_SETTINGS = sorted([*_NUMBER_KEYS, *_INT_KEYS, "stop", "tool_choice", "response_format", "tool_gate",
                              "logprobs"])
"""Generation settings a model call takes (``--gen key=value``, a suite's ``generation``)."""


def _finite_number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def validate_generation(settings: dict[str, Any], where: str = "--gen") -> dict[str, Any]:
    """Check generation settings' names, types and ranges; a one-line ``UserError`` naming the bad one.

    ``temperature=hot``, ``temperature=nan``, ``top_p=2``, ``max_tokens=0``, ``seed=-1``, an empty stop string
    or ``tool_choice=bogus`` fail here, before a run exists (and before a request: the gateway checks every
    call), not deep in a provider. A value ``None`` means "not set" and passes."""
    from paperworks.core.errors import UserError

    for key, value in settings.items():
        if key not in GENERATION_SETTINGS:
            raise UserError(f"{where}: unknown generation setting '{key}'; known: {', '.join(GENERATION_SETTINGS)}")
        if value is None:
            continue
        if key in _NUMBER_KEYS:
            low, high = _NUMBER_KEYS[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise UserError(f"{where}: {key} must be a number, got {value!r:.80}")
            if not math.isfinite(value):
                raise UserError(f"{where}: {key} must be a finite number, got {value!r}")
            if value < low or (high is not None and value > high) or (key in _ABOVE_LOW and value <= 0):
                span = f"in ({low:g}, {high:g}]" if key == "top_p" else (
                    f"between {low:g} and {high:g}" if high is not None else
                    (f"> {low:g}" if key in _ABOVE_LOW else f">= {low:g}"))
                raise UserError(f"{where}: {key} must be {span}, got {value!r}")
        elif key in _INT_KEYS:
            if isinstance(value, bool) or not isinstance(value, int):
                raise UserError(f"{where}: {key} must be an integer, got {value!r}")
            minimum, maximum = _INT_KEYS[key]
            if value < minimum or (maximum is not None and value > maximum):
                span = f"between {minimum} and {maximum}" if maximum is not None else f">= {minimum}"
                raise UserError(f"{where}: {key} must be {span}, got {value!r}")
        elif key == "stop":
            stops = [value] if isinstance(value, str) else value
            if not isinstance(stops, list) or not all(isinstance(v, str) for v in stops):
                raise UserError(f"{where}: stop must be a string or a list of strings, got {value!r:.80}")
            if len(stops) > MAX_STOPS:
                raise UserError(f"{where}: stop gives {len(stops)} strings; at most {MAX_STOPS}")
            for v in stops:
                if not v:
                    raise UserError(f"{where}: stop strings must not be empty")
                if len(v) > MAX_STOP_CHARS:
                    raise UserError(f"{where}: a stop string of {len(v)} characters; at most {MAX_STOP_CHARS}")
        elif key == "tool_choice" and not (value in TOOL_CHOICES or (isinstance(value, dict) and value)):
            raise UserError(f"{where}: tool_choice must be 'auto', 'none', 'required' or an object, got {value!r:.80}")
        elif key == "response_format" and not isinstance(value, dict):
            raise UserError(f"{where}: response_format must be an object, got {value!r:.80}")
        elif key == "logprobs" and not isinstance(value, bool):
            raise UserError(f"{where}: logprobs must be true or false, got {value!r:.80}")
        elif key == "tool_gate" and value is not False and not _finite_number(value):
            raise UserError(f"{where}: tool_gate must be a finite log-probability or false, got {value!r:.80}")
    return settings
