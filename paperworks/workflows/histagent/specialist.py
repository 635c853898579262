"""A HistAgent specialist as a LangGraph subgraph: a ReAct loop with its own tools and step budget.

    START → think ─(tool calls)→ act → think … ─(text)→ END        (the text is the report)
                 └─(tool calls, budget spent)→ cut_off → END         (the report says so)

It reads the delegation in ``active`` ({id, specialist, task}) and writes ``sub_report``; every tool
call (a tool's error included, as its observation) is appended to ``tools_used``. The image analyst of a
vision model (the ``vision`` setting) also sees its image attachments and video frames as images
(``paperworks.agents.histagent.vision``).
"""

from __future__ import annotations

from typing import Any, TypedDict

from paperworks.agents.histagent import prompts, vision
from paperworks.agents.react import tool_message
from paperworks.models.types import Message, ToolCall
from paperworks.workflows.context import RunContext, base_dir
from paperworks.workflows.histagent.state import HistConfig
from paperworks.workflows.histagent.tools import (
    Specialist,
    attachment_path,
    clip,
    record_use,
    resolve_archive,
    resolve_paths,
    tools_for,
)


class SpecialistState(TypedDict, total=False):
    """The keys a specialist shares with the manager's graph."""

    question: str
    attachments: list[str]
    active: dict[str, Any] | None
    sub_messages: list[Message]
    sub_steps: int
    sub_report: str
    tools_used: list[dict[str, Any]]


def build_specialist(spec: Specialist, max_steps: int, archive: str, observation_chars: int = 4000,
                     config: HistConfig | None = None) -> Any:
    """The uncompiled subgraph of one specialist (``config``: the vision settings)."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    from paperworks.tools.registry import ToolContext, execute_call

    tools = tools_for(spec, archive)
    schemas = [t.schema() for t in tools.values()]
    cfg = config or HistConfig.model_validate({})
    system = prompts.SPECIALIST.replace("{duty}", prompts.DUTIES.get(spec.name, "")).replace(
        "{name}", spec.name.replace("_", " ")).replace("{tools}", ", ".join(tools) or "none")

    async def think(state: SpecialistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        step = state.get("sub_steps", 0) + 1
        task = (state.get("active") or {}).get("task", "")
        messages: list[Message] = [
            {"role": "system", "content": system.replace("{step}", str(step)).replace("{budget}", str(max_steps))},
            {"role": "user", "content": prompts.specialist_task(state.get("question", ""),
                                                                state.get("attachments", []), task)},
            *state.get("sub_messages", []),
        ]
        if spec.name == IMAGE_ANALYST and sees_images(cfg.vision, ctx.model):
            messages = vision.with_images(messages, resolve_paths(state.get("attachments", []), base_dir(ctx.run_dir)),
                                          ctx.artifacts.root if ctx.artifacts else None,
                                          max_images=cfg.vision_images, max_side=cfg.vision_side)
        reply = await ctx.get_model().generate(messages, schemas or None, stream=False,
                                               **{"seed": ctx.seed, **ctx.generation})
        update: dict[str, Any] = {"sub_messages": [*state.get("sub_messages", []), reply.to_message()],
                                  "sub_steps": step}
        if not reply.tool_calls:
            update["sub_report"] = reply.text.strip() or "(the specialist reported nothing)"
        return update

    async def act(state: SpecialistState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        base = base_dir(runtime.context.run_dir)
        files = resolve_paths(state.get("attachments", []), base)  # readable after a resume too
        bound = tools_for(spec, resolve_archive(archive, base)) if archive else tools
        tool_ctx = ToolContext(artifacts=runtime.context.artifacts)
        out: list[Message] = []
        used = list(state.get("tools_used", []))
        for raw in state["sub_messages"][-1].get("tool_calls", []):
            call = attachment_path(ToolCall.from_openai(raw), files)
            observation, ok = await execute_call(call, bound, tool_ctx)
            out.append(tool_message(call.id, call.name, clip(observation, observation_chars)))
            used.append(record_use(spec.name, call, observation, ok))
        return {"sub_messages": [*state["sub_messages"], *out], "tools_used": used}

    def cut_off(state: SpecialistState) -> dict[str, Any]:
        seen = [m["content"] for m in state.get("sub_messages", []) if m.get("role") == "tool"]
        last = f" Last observation: {seen[-1][:1500]}" if seen else ""
        return {"sub_report": f"(stopped after its budget of {max_steps} steps, still calling tools){last}"}

    def route(state: SpecialistState) -> str:
        if state.get("sub_report"):
            return END
        return "act" if state.get("sub_steps", 0) < max_steps else "cut_off"

    graph = StateGraph(SpecialistState, context_schema=RunContext)
    graph.add_node("think", think)
    graph.add_node("act", act)
    graph.add_node("cut_off", cut_off)
    graph.add_edge(START, "think")
    graph.add_conditional_edges("think", route, ["act", "cut_off", END])
    graph.add_edge("act", "think")
    graph.add_edge("cut_off", END)
    return graph


IMAGE_ANALYST = "image_analyst"
"""The specialist that a vision model shows images to."""


def sees_images(mode: str, model: str) -> bool:
    """Whether the image analyst sends images: ``always``, ``never``, or (``auto``) when the gateway knows
    ``model`` to accept them."""
    if mode != "auto":
        return mode == "always"
    from paperworks.models.gateway import supports_vision

    return supports_vision(model)
