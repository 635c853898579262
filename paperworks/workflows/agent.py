"""``agent``: a general tool-using agent, a ReAct loop as a LangGraph graph.

    START → call_model ─(tool calls)→ run_tools → call_model … ─(answer)→ END
                      └─(tool calls, step budget spent)→ stop_at_limit → END

Every model turn counts one step; the loop stops with status "step_limit" when ``max_steps`` turns
all asked for tools. A tool's error goes back to the model as the observation.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, field_validator

from paperworks.agents.react import build_messages, tool_message
from paperworks.models.types import Message, ToolCall
from paperworks.workflows.context import RunContext
from paperworks.workflows.registry import WorkflowSpec

DEFAULT_TOOLS = ["calculate", "write_file", "read_file", "list_files", "list_workflows"]


class AgentInput(BaseModel):
    """Input of the ``agent`` workflow."""

    model_config = ConfigDict(extra="forbid")  # a misspelt field is an error, not silently dropped

    task: str = Field(min_length=1, description="What the agent should do or answer.")


class AgentConfig(BaseModel):
    """Settings of the ``agent`` workflow (``-c key=value``)."""

    max_steps: int = Field(8, ge=1, le=200, description="Model turns per task before stopping.")
    tools: list[str] = Field(default_factory=lambda: list(DEFAULT_TOOLS),
                             description="Tools offered (default: calculate, the artifact files, list_workflows).")
    system: str | None = Field(None, description="System prompt (default: the agent's own).")
    tool_choice: Literal["auto", "first", "none"] = Field(
        "auto", description="auto: the model decides; first: the first turn of each task must call a tool "
                            "(OpenAI's tool_choice='required'), later turns decide; none: no tool calls.")

    @field_validator("tools")
    @classmethod
    def _known_tools(cls, names: list[str]) -> list[str]:
        from paperworks.tools.registry import get_tools

        get_tools(names)  # raises a one-line UserError naming the unknown ones
        return names


class AgentState(TypedDict, total=False):
    messages: Annotated[list[Message], operator.add]
    steps: int
    status: str
    answer: str


def build_graph(config: AgentConfig | None = None) -> Any:
    """The uncompiled ReAct graph."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.runtime import Runtime

    from paperworks.tools.registry import ToolContext, execute_call, get_tools

    cfg = config or AgentConfig.model_validate({})
    tools = {t.name: t for t in get_tools(cfg.tools)}
    schemas = [t.schema() for t in tools.values()]

    async def call_model(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        ctx = runtime.context
        messages = build_messages(state.get("messages", []), cfg.system)
        gen = {"seed": ctx.seed, **ctx.generation}
        if schemas and cfg.tool_choice != "auto" and "tool_choice" not in gen:
            first = state.get("steps", 0) == 0
            gen["tool_choice"] = "none" if cfg.tool_choice == "none" else ("required" if first else "auto")
        reply = await ctx.get_model().generate(messages, schemas or None, stream=ctx.stream, **gen)
        steps = state.get("steps", 0) + 1
        update: dict[str, Any] = {"messages": [reply.to_message()], "steps": steps}
        if not reply.tool_calls:
            update.update(status="done", answer=reply.text.strip())
        return update

    async def run_tools(state: AgentState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        last = state["messages"][-1]
        tool_ctx = ToolContext(artifacts=runtime.context.artifacts)
        out: list[Message] = []
        for raw in last.get("tool_calls", []):
            call = ToolCall.from_openai(raw)
            observation, _ok = await execute_call(call, tools, tool_ctx)
            out.append(tool_message(call.id, call.name, observation))
        return {"messages": out}

    def stop_at_limit(state: AgentState) -> dict[str, Any]:
        return {"status": "step_limit",
                "answer": f"stopped: the model still asked for tools after {state.get('steps', 0)} steps"}

    def route(state: AgentState) -> str:
        if state.get("status") == "done":
            return END
        return "run_tools" if state.get("steps", 0) < cfg.max_steps else "stop_at_limit"

    graph = StateGraph(AgentState, context_schema=RunContext)
    graph.add_node("call_model", call_model)
    graph.add_node("run_tools", run_tools)
    graph.add_node("stop_at_limit", stop_at_limit)
    graph.add_edge(START, "call_model")
    graph.add_conditional_edges("call_model", route, ["run_tools", "stop_at_limit", END])
    graph.add_edge("run_tools", "call_model")
    graph.add_edge("stop_at_limit", END)
    return graph


def make_state(inp: AgentInput) -> dict[str, Any]:
    """Initial state for a task."""
    return chat_turn(inp.task)


def chat_turn(text: str) -> dict[str, Any]:
    """State update for one user turn: the message, and a fresh step budget."""
    return {"messages": [{"role": "user", "content": text}], "steps": 0, "status": "running", "answer": ""}


def output(state: dict[str, Any]) -> dict[str, Any]:
    """The answer, the status and how many model turns it took."""
    return {"answer": state.get("answer", ""), "status": state.get("status", ""), "steps": state.get("steps", 0)}


def status(state: dict[str, Any]) -> str:
    """``step_limit`` when the loop was cut off, else ``succeeded``."""
    return "step_limit" if state.get("status") == "step_limit" else "succeeded"


SPEC = WorkflowSpec(
    name="agent",
    description="General tool-using agent (ReAct loop): calculator, artifact files, paperworks info.",
    build_graph=build_graph,
    input_model=AgentInput,
    config_model=AgentConfig,
    make_state=make_state,
    output=output,
    status=status,
    chat_turn=chat_turn,
)
