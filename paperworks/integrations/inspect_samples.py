"""One paperworks sample record as an Inspect ``EvalSample``.

A record of ``samples.jsonl`` (or a single workflow run's record) with its events becomes one
``EvalSample``: the input and target as Inspect shows them, the answer the scorers read as the output
completion, the conversation and events (``inspect_transcript``), one ``Score`` and ``ScoreEvent`` per
paperworks scorer (``inspect_scores``), usage as ``ModelUsage``, the error as an ``EvalError`` and a
limit hit as an ``EvalSampleLimit`` holding run.json's bound. The paperworks status, output, error kind
and artifacts go to the sample's metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paperworks.eval.records import SampleRecord
from paperworks.integrations.inspect_scores import inspect_score
from paperworks.integrations.inspect_transcript import _LIMIT, _model_output, _when, conversation, inspect_events

if TYPE_CHECKING:
    from inspect_ai.log import EvalSample

_LIMIT_FIELD = {"time": "time_s", "working_time": "working_time_s", "tokens": "tokens", "cost": "cost"}
"""paperworks' limit kinds → the field of run.json ``limits`` holding the bound."""


def _input_text(value: Any) -> str:
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), str):
        return str(next(iter(value.values())))
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _target(value: Any) -> str | list[str]:
    if value is None:
        return ""
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value)


def answer_text(output: Any, scores: dict[str, dict[str, Any]]) -> str:
    """The completion Inspect shows: the answer the scorers read, else the output's ``answer``."""
    for score in scores.values():
        if isinstance(score, dict) and score.get("answer") is not None:
            return str(score["answer"])
    if isinstance(output, dict) and output.get("answer") is not None:
        return str(output["answer"])
    return "" if output is None else (output if isinstance(output, str) else json.dumps(output, default=str))


def _usage(model: str, usage: dict[str, Any]) -> dict[str, Any]:
    from inspect_ai.model import ModelUsage

    if not usage:
        return {}
    prompt, completion = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
    total = usage.get("total_tokens")
    return {model: ModelUsage(input_tokens=prompt, output_tokens=completion,
                              total_tokens=int(total) if isinstance(total, int | float) else prompt + completion,
                              total_cost=float(usage.get("cost") or 0.0))}


def _error(message: str | None) -> Any:
    from inspect_ai._util.error import EvalError

    return EvalError(message=message, traceback="", traceback_ansi="") if message else None


def _iso(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def eval_sample(rec: SampleRecord, events: list[dict[str, Any]], run_dir: Path, model: str,
                uuid: str | None = None, limits: dict[str, Any] | None = None) -> EvalSample:
    """One paperworks record (with its events) as an Inspect ``EvalSample``; ``limits``: run.json's."""
    from inspect_ai.event import ScoreEvent
    from inspect_ai.log import EvalSample, EvalSampleLimit

    messages = conversation(events, run_dir)
    answer = answer_text(rec.output, rec.scores)
    last = next((e for e in reversed(events) if e.get("type") == "model_call"), None)
    output = _model_output(model, answer, None, (last or {}).get("finish_reason") or "stop",
                           int(rec.usage.get("prompt_tokens") or 0), int(rec.usage.get("completion_tokens") or 0),
                           rec.usage.get("cost"), rec.time_s)
    scores = {name: inspect_score(s) for name, s in rec.scores.items() if isinstance(s, dict)}
    evts = inspect_events(events, run_dir)
    end = next((e.get("t") for e in reversed(events) if isinstance(e.get("t"), int | float)), None)
    for name, score in scores.items():
        evts.append(ScoreEvent(score=score, target=_target(rec.target), scorer=name,
                               timestamp=_when(end), working_start=float(rec.time_s or 0.0)))
    limit = None
    if rec.limit:
        bound = (limits or {}).get(_LIMIT_FIELD.get(rec.limit, rec.limit))
        limit = EvalSampleLimit(type=_LIMIT.get(rec.limit, "custom"),  # type: ignore[arg-type]
                                limit=float(bound) if isinstance(bound, int | float) else 0.0, reason=rec.error)
    if not messages:
        from inspect_ai.model import ChatMessageUser

        messages = [ChatMessageUser(content=_input_text(rec.input))]
    return EvalSample(
        id=rec.id, epoch=rec.epoch, input=_input_text(rec.input), target=_target(rec.target),
        messages=messages, output=output, scores=scores or None,
        metadata={**(rec.metadata or {}), "paperworks": {"status": rec.status, "output": rec.output,
                                                         "error_kind": rec.error_kind, "artifacts": rec.artifacts,
                                                         "waiting_s": rec.waiting_s}},
        events=evts, model_usage=_usage(model, rec.usage), started_at=_iso(rec.started_at),
        completed_at=_iso(rec.finished_at), total_time=rec.time_s, working_time=rec.working_s,
        uuid=uuid, error=_error(rec.error), limit=limit)
