"""``paperworks serve [--port 2024] [--host 127.0.0.1] [--model M] [--jobs N]``: every
built-in workflow on a local LangGraph server (langgraph-api's in-memory server, as ``langgraph dev``)."""

from __future__ import annotations

from typing import Annotated

import typer

_HELP = """Serve every built-in workflow (agent, spada, histagent, dfps, fps, ogmar, steertts) on a local LangGraph
server, for LangGraph Studio and the langgraph-sdk client.

It is langgraph-api's in-memory server, the one `langgraph dev` runs from this repository's langgraph.json,
started with nothing phoning home: no version check, no usage beacon, no LangSmith tracing (LangSmith keys are
dropped from its environment), no browser, no tunnel, and no link to a hosted page in what it prints. It
listens on 127.0.0.1 only unless --host names another address and --allow-remote is given (it has no
authentication); a port already in use is refused in one line. Needs the ecosystem extra: pip install -e
'.\\[ecosystem]'.

Each workflow is a graph (assistant) of its own name; its assistant endpoints (get_schemas, ...) take that
name too. A run's input is what `paperworks run WORKFLOW -i` takes, e.g. {"task": "What is 17*23?"} for
agent, {"request": "..."} for spada, or plain text for a one-field input; a state update such as {"messages":
[...]} is taken too (one user message is a chat turn, as `paperworks chat` takes it), and any other shape fails
the run with the CLI's one-line error. Run settings go in the run's context (or config.configurable): model,
seed, generation, cache, max_retries, timeout_s, artifact_dir, and the workflow's own settings (as `paperworks
run -c`, e.g. max_steps); the assistant's context schema lists them all with types, defaults and descriptions.
A bad one fails the run with a one-line error.

Every stream mode works: model tokens stream as message chunks in messages and messages-tuple, as
on_chat_model_stream in events, and with the run's other events (model and tool calls) in custom. Each run is
recorded under the runs directory like a `paperworks run` (run.json, events.jsonl), so paperworks runs, view
and export show it; the server prints one line per finished run. Thread artifacts go to <runs
dir>/serve/<workflow>/<thread id>/artifacts; threads and checkpoints are kept in ./.langgraph_api across
restarts, as with langgraph dev.

Example (Python, see the README's "Serve the workflows"):

client = langgraph_sdk.get_sync_client(url="http://127.0.0.1:2024")

thread = client.threads.create()

client.runs.wait(thread["thread_id"], "agent", input={"task": "What is 17*23?"},
context={"model": "local/smollm2-135m", "max_steps": 4})
"""


def _unwrap(text: str) -> str:
    """Paragraphs as single lines (the terminal wraps them); a ``\\b`` block keeps its lines."""
    return "\n\n".join(p if p.startswith("\\b") else " ".join(p.split("\n")) for p in text.split("\n\n"))


HELP = _unwrap(_HELP)


def serve_command(
    port: Annotated[int, typer.Option("--port", "-p", help="Port to listen on.")] = 2024,
    host: Annotated[str, typer.Option("--host", help="Address to bind; loopback only unless "
                                      "--allow-remote.")] = "127.0.0.1",
    allow_remote: Annotated[bool, typer.Option("--allow-remote", help="Allow a non-loopback --host (the server "
                                               "has no authentication: anyone who reaches it runs models "
                                               "on your keys).")] = False,
    model: Annotated[str | None, typer.Option("--model", "-m", help="Model of runs whose context names none "
                                              "(default local/smollm2-135m).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", help="Runs executed at the same time.")] = 1,
    log_level: Annotated[str, typer.Option("--log-level", help="Server log level (DEBUG, INFO, WARNING, "
                                           "ERROR).")] = "WARNING",
) -> None:
    from paperworks.core.errors import UserError
    from paperworks.serve.server import serve

    if log_level.upper() not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        raise UserError(f"--log-level must be DEBUG, INFO, WARNING or ERROR, got {log_level!r}")
    serve(host, port, allow_remote=allow_remote, model=model, jobs=jobs, log_level=log_level.upper())


serve_command.__doc__ = HELP
