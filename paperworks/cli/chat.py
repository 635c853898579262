"""``paperworks chat``: a multi-turn REPL over a workflow; the conversation lives in the run's
checkpointer, so ``--resume RUN`` continues it in a new process."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from paperworks.core.errors import UserError
from paperworks.core.lock import RunLock

HELP = "commands: /exit (or Ctrl-D) to leave, /usage for tokens so far, /help"


def _show_history(console: Console, state: dict[str, Any], last: int = 6) -> None:
    messages = [m for m in state.get("messages", []) if m.get("role") in ("user", "assistant") and m.get("content")]
    for msg in messages[-last:]:
        who = "you" if msg["role"] == "user" else "assistant"
        console.print(f"[dim]{who}> {msg['content']}[/dim]", highlight=False)


def chat_loop(console: Console, err_console: Console, *, workflow: str, model: str | None,
              resume: str | None, seed: int, limits: Any, max_retries: int | None = None,
              timeout: float | None = None) -> None:
    """Read user lines until EOF or /exit; each line is one turn of the workflow."""
    from paperworks.models import DEFAULT_MODEL
    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    lock: RunLock | None = None
    if resume:
        run = runner.open_for_resume(resume)
        lock = RunLock(run.path).acquire()  # refused before anything is printed if another process has it
        record = run.read_record()
        spec = get_workflow(record["workflow"])
        console.print(f"resuming chat {run.id} ({spec.name}, model {model or record.get('model')})")
        _show_history(console, runner.run_sync(runner.read_state(run)))
    else:
        spec = get_workflow(workflow)
        if spec.chat_turn is None:
            raise UserError(f"workflow '{workflow}' does not support chat; use 'paperworks run {workflow}'")
        model = DEFAULT_MODEL if model is None else model  # an empty -m is refused, not the default
        run = runner.create_run(spec, None, model=model, limits=limits, seed=seed, kind="chat",
                                max_retries=max_retries, timeout=timeout)
    try:
        if spec.chat_turn is None:
            raise UserError(f"workflow '{spec.name}' does not support chat")
        with RunLock(run.path):
            _turns(console, err_console, run, spec, model if resume else None)
    finally:
        if lock is not None:
            lock.release()


def _turns(console: Console, err_console: Console, run: Any, spec: Any, model: str | None) -> None:
    """The REPL itself, while the chat holds its run directory's lock."""
    from paperworks.cli.display import LiveView
    from paperworks.workflows import runner

    console.print(f"[dim]run dir: {run.path} · {HELP}[/dim]")
    view = LiveView(console, verbose=False, stream_prefix="[bold]assistant>[/bold] ")
    while True:
        try:
            text = console.input("[bold green]you>[/bold green] ")
        except EOFError:
            console.print()
            break
        text = text.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            break
        if text == "/help":
            console.print(HELP)
            continue
        if text == "/usage":
            usage = run.read_record().get("usage", {})
            console.print(f"{usage.get('total_tokens', 0)} tokens, ${usage.get('cost', 0):.4f}, "
                          f"{usage.get('calls', 0)} model calls")
            continue
        view.streamed = ""
        try:
            outcome = runner.run_sync(runner.execute(run, spec.chat_turn(text), listeners=[view], stream=True,
                                                     model=model))
        except KeyboardInterrupt:
            err_console.print("turn cancelled")
            continue
        output = outcome.output if isinstance(outcome.output, dict) else {}
        answer = str(output.get("answer", outcome.output))
        if outcome.status == "succeeded":
            if view.streamed.strip() != answer.strip():  # not already shown as it was generated
                console.print(f"[bold]assistant>[/bold] {answer}", highlight=False)
        else:
            err_console.print(f"{outcome.status}: {outcome.error or answer}")
            if outcome.status == "limit_exceeded":
                break
    console.print(f"[dim]conversation saved; continue with: paperworks chat --resume {run.id}[/dim]")
