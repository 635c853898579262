"""Supervised warm start on scripted oracle trajectories of generated problems (``--sft-from oracle``).

For the ``agent`` workflow an oracle trajectory is what the workflow would record if the model made the
calls a generated problem's own expression implies: first a ``calculate`` call with that expression,
then, after the tool's real result, the final number. Each model call becomes one example whose prompt
token ids are built exactly as a rollout's are: the agent's own message list (its system prompt, the tool
schemas of its settings, the assistant's tool-call turn, the tool's observation from the real tool), put
through the embedded provider's rendering and the served model's chat template and tokenizer. The
targets are the replies the provider parses: ``<tool_call>[{...}]</tool_call>`` (generation stops at that
closing tag), then the number and the end-of-turn token.

For the ``spada`` workflow (``gen:spada``) the oracle's calls are the replies of a run that passes first
time: ``write_spec``, ``write_code`` (the reference program) and ``write_tests``; each prompt is the one the
graph sends for that node (``paperworks.agents.spada.prompts``, the spec as the graph parses it from the
oracle's reply), rendered without tools; the target is the reply and the end-of-turn token.
"""

from __future__ import annotations

import json
from typing import Any

from paperworks.core.errors import UserError
from paperworks.workflows.runner import run_sync

END_OF_TURN = "<|im_end|>"


def oracle_examples(items: list[tuple[dict[str, Any], dict[str, Any]]], oracle: Any, workflow: str,
                    config: dict[str, Any], engine: Any) -> list[tuple[list[int], list[int]]]:
    """``(prompt_ids, target_ids)`` per model call of each oracle trajectory. ``items``: (the workflow input
    the suite renders for a row, the generated row).

    ``oracle(row)`` gives the calls (``[{"tool", "arguments"}, ..., {"answer"}]``); ``engine`` is the
    served model (``prompt_ids(messages)``, ``core.tokenize``)."""
    if workflow == "spada":
        return spada_examples(items, oracle, config, engine)
    if workflow != "agent":
        raise UserError(f"--sft-from oracle: no scripted oracle trajectories for workflow '{workflow}' "
                        "(only agent and spada); pass an adapter folder instead")
    from paperworks.agents.react import build_messages, tool_message
    from paperworks.models.local.toolcalls import TOOL_CALL_CLOSE, TOOL_CALL_OPEN, to_plain_messages
    from paperworks.models.types import ToolCall
    from paperworks.tools.registry import ToolContext, execute_call, get_tools
    from paperworks.workflows.agent import AgentConfig

    cfg = AgentConfig.model_validate(config)
    tools = {t.name: t for t in get_tools(cfg.tools)}
    schemas = [t.schema() for t in tools.values()] or None
    examples: list[tuple[list[int], list[int]]] = []
    for inp, row in items:
        history: list[Any] = [{"role": "user", "content": inp["task"]}]
        for k, step in enumerate(oracle(row)):
            prompt = engine.prompt_ids(to_plain_messages(build_messages(history, cfg.system), schemas))
            if "tool" in step:
                call = ToolCall(id=f"oracle-{k}", name=step["tool"], arguments=dict(step["arguments"]))
                text = f"{TOOL_CALL_OPEN}{json.dumps([{'name': call.name, 'arguments': call.arguments}])}" \
                       f"{TOOL_CALL_CLOSE}"
                examples.append((prompt, engine.core.tokenize(text, special=False)))
                observation, ok = run_sync(execute_call(call, tools, ToolContext()))
                if not ok:
                    raise UserError(f"oracle trajectory of {row.get('id')}: the tool failed: {observation}")
                history += [{"role": "assistant", "content": "", "tool_calls": [call.to_openai()]},
                            tool_message(call.id, call.name, observation)]
            else:
                target = engine.core.tokenize(str(step["answer"]), special=False) + \
                    engine.core.tokenize(END_OF_TURN, special=True)
                examples.append((prompt, target))
                history.append({"role": "assistant", "content": str(step["answer"])})
    return examples


def spada_examples(items: list[tuple[dict[str, Any], dict[str, Any]]], oracle: Any, config: dict[str, Any],
                   engine: Any) -> list[tuple[list[int], list[int]]]:
    """``(prompt_ids, target_ids)`` per model call of SPADA oracle trajectories (``oracle(row)``:
    ``[{"node", "reply"}, ...]`` for write_spec, write_code, write_tests)."""
    from paperworks.agents.spada import prompts
    from paperworks.agents.spada.parse import extract_code, extract_json, normalise_spec
    from paperworks.models.local.toolcalls import to_plain_messages
    from paperworks.workflows.spada import SpadaConfig

    cfg = SpadaConfig.model_validate(config)
    if cfg.fcgraft_references:
        raise UserError("--sft-from oracle: spada with fcgraft_references writes its code outside the chat "
                        "template; set -c fcgraft_references=0")
    examples: list[tuple[list[int], list[int]]] = []
    for inp, row in items:
        request = str(inp["request"])
        replies = {str(c["node"]): str(c["reply"]) for c in oracle(row)}
        spec = normalise_spec(extract_json(replies["write_spec"]), request)
        calls = [(prompts.spec_messages(request), replies["write_spec"]),
                 (prompts.code_messages(request, spec), replies["write_code"])]
        if cfg.write_tests:
            code = extract_code(replies["write_code"])
            calls.append((prompts.tests_messages(request, spec, code), replies["write_tests"]))
        for messages, reply in calls:
            prompt = engine.prompt_ids(to_plain_messages(messages, None))
            target = engine.core.tokenize(reply, special=False) + engine.core.tokenize(END_OF_TURN, special=True)
            examples.append((prompt, target))
    return examples
