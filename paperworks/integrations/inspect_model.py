"""The paperworks model of an Inspect task: its name in the log, its usage, and its calls as events.

The suites' workflows call their models through paperworks' gateway (litellm), not through Inspect's
model API. So that ``inspect eval paperworks/<suite>`` still logs what Inspect users expect, this module

- checks the model a task will run with when the task loads (``resolve_model``: ``-T model=...``, else
  Inspect's ``--model`` when litellm can route it), as one-line ``UserError``s;
- gives that model an Inspect ``Model`` whose name is the paperworks model string (``inspect_model``), which
  the task pins, so the log's model is ``local/smollm2-135m`` or ``scripted/...`` rather than Inspect's
  ``--model`` (``mockllm/model``, or ``none/none`` when none was given);
- registers the in-process providers ``local`` and ``scripted`` as Inspect model APIs, so that
  ``inspect eval paperworks/arith --model local/smollm2-135m`` works as it reads (their models answer only
  through paperworks' own workflows: Inspect's ``generate()`` on them is refused with one line);
- replays a sample's paperworks events into the sample's Inspect transcript (``record_sample``): each model
  call as a ``ModelEvent`` and each tool call as a ``ToolEvent`` (``inspect_transcript.inspect_events``),
  and the model calls' tokens and cost as the sample's per-model usage.

Only the functions of inspect_ai that the log needs are used; the two private ones (the usage
accumulators and the working-time clock) are pinned by the ``ecosystem`` extra's exact inspect-ai version.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig, Model, ModelAPI, ModelOutput, ModelUsage, modelapi

from paperworks.core.errors import UserError

IN_PROCESS = ("local", "scripted")
"""paperworks' in-process model providers, registered as Inspect model APIs of the same names."""

NO_MODEL = "none/none"
"""Inspect's model when ``--model`` (and ``INSPECT_EVAL_MODEL``) is not given."""


class PaperworksModelAPI(ModelAPI):
    """An Inspect model API standing for a paperworks model (a litellm model string).

    It names the model in Inspect's log; the calls themselves are made by the paperworks workflow through
    paperworks' gateway and recorded into the transcript afterwards (``record_sample``)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)

    async def generate(self, input: Any, tools: Any, tool_choice: Any, config: GenerateConfig) -> ModelOutput:
        """Refused: a paperworks model answers through a paperworks task's workflow, not Inspect's solvers."""
        from inspect_ai._util.error import PrerequisiteError

        name = getattr(self, "qualified_model_name", None) or self.model_name
        raise PrerequisiteError(f"error: model '{name}' is a paperworks model: it runs the paperworks "
                                "tasks (inspect eval paperworks/<suite>), not Inspect's generate()")


def _api_class() -> type[ModelAPI]:
    return PaperworksModelAPI


for _provider in IN_PROCESS:
    modelapi(name=_provider)(_api_class)


def inspect_name(name: str) -> str:
    """The ``provider/model`` name Inspect logs for a paperworks model string (litellm also routes a bare
    name such as ``gpt-4o-mini``; Inspect needs the provider, so such a name is logged as ``litellm/<name>``)."""
    return name if "/" in name else f"litellm/{name}"


def inspect_model(name: str, active: Model | None = None) -> Model:
    """An Inspect ``Model`` whose name is the paperworks model ``name`` (``active`` when it is already that)."""
    from inspect_ai._util.registry import RegistryInfo, registry_tag

    logged = inspect_name(name)
    if active is not None and str(active) == logged:
        return active
    provider, _, rest = logged.partition("/")
    api = PaperworksModelAPI(model_name=rest)
    registry_tag(PaperworksModelAPI, api, RegistryInfo(type="modelapi", name=f"paperworks/{provider}"),
                 model_name=rest)
    model = Model(api, GenerateConfig())
    api.qualified_model_name = str(model)
    return model


def resolve_model(active: str, model: Any) -> str:
    """The paperworks model a task runs with: the task argument ``model``, else Inspect's ``--model`` (named
    ``active``) when litellm can route it; checked now (routable, the script or embedded model exists, the
    provider's key is set), each failure one ``UserError`` line saying what to pass."""
    from paperworks.models.gateway import check_model, validate_model_name

    if model is not None:
        if not isinstance(model, str) or not model.strip():
            raise UserError(f"-T model={model!r}: expected a model string such as local/smollm2-135m")
        check_model(model)
        return model
    if active == NO_MODEL:
        raise UserError("no model given: pass --model <litellm model> (e.g. --model local/smollm2-135m) "
                        "or -T model=<paperworks model>")
    if active.partition("/")[0] not in IN_PROCESS:
        try:
            validate_model_name(active)
        except UserError:
            raise UserError(f"--model {active} is not a model paperworks can call (not a litellm model string): "
                            "pass the paperworks model as a task argument, e.g. -T model=local/smollm2-135m") from None
    check_model(active)
    return active


def _usage(events: list[dict[str, Any]]) -> dict[str, ModelUsage]:
    """Tokens and cost per model (Inspect's name) of the calls that reached a model (cache hits excluded)."""
    out: dict[str, ModelUsage] = {}
    for e in events:
        if e.get("type") != "model_call" or e.get("cached"):
            continue
        prompt, completion = int(e.get("prompt_tokens") or 0), int(e.get("completion_tokens") or 0)
        cost = e.get("cost")
        usage = ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion,
                           total_cost=float(cost) if isinstance(cost, int | float) else None)
        name = inspect_name(str(e.get("model") or "unknown"))
        out[name] = out[name] + usage if name in out else usage
    return out


def working_clock() -> float:
    """The wall-clock instant the sample's working time started from (for the replayed events' offsets)."""
    from inspect_ai._util.working import sample_working_time

    return time.time() - sample_working_time()


def record_sample(events: list[dict[str, Any]], run_dir: Path, clock: float) -> dict[str, ModelUsage]:
    """Put one sample's paperworks events into its Inspect transcript (model, tool and limit events) and its
    model usage (the sample's and the eval's); returns the usage recorded. ``clock``: ``working_clock()``
    taken when the sample started."""
    from inspect_ai.log import transcript
    from inspect_ai.model._model import model_usage_context_var, sample_model_usage_context_var, set_model_usage

    from paperworks.integrations.inspect_transcript import inspect_events

    record = transcript()
    for event in inspect_events(events, run_dir, start=clock):
        record._event(event)
    usage = _usage(events)
    for name, u in usage.items():
        set_model_usage(name, u, sample_model_usage_context_var.get(None))
        set_model_usage(name, u, model_usage_context_var.get(None))
    return usage
