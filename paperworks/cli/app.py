"""``paperworks``: list · run · chat · runs. Heavy libraries are imported inside commands only."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console

from paperworks import __version__
from paperworks.cli.exits import exit_promptly, hard_exit
from paperworks.core.errors import PaperworksError, UserError

app = typer.Typer(
    name="paperworks",
    help="ICML 2026 agent and training papers, runnable: workflows, backends, evaluation.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
err_console = Console(stderr=True, soft_wrap=True)  # one-line errors stay one line


def _version(value: bool) -> None:
    if value:
        console.print(f"paperworks {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    """paperworks: run ICML 2026 systems as workflows, call their backends, evaluate them."""


FormatOpt = Annotated[str | None, typer.Option("--format", help="table, tsv or json (default: a table on a "
                                              "terminal, tab-separated text with a header line in a pipe; json: an "
                                              "array of rows, or for `list` of everything an object by kind).")]


@app.command("list")
def list_cmd(
    what: Annotated[str, typer.Argument(help="workflows, models, suites, backends or all")] = "all",
    format: FormatOpt = None,
) -> None:
    """List workflows, models, benchmark suites and compute backends."""
    from paperworks.cli import listing
    from paperworks.cli.tables import check_format, show

    kinds = ["workflows", "models", "suites", "backends"]
    if what not in [*kinds, "all"]:
        raise typer.BadParameter(f"'{what}' is not one of {', '.join(kinds)}, all", param_hint="WHAT")
    fmt = check_format(format)
    show(console, [getattr(listing, kind)() for kind in (kinds if what == "all" else [what])], fmt)


def _limits(time_limit: float | None, token_limit: int | None, cost_limit: float | None,
            working_limit: float | None = None, message_limit: int | None = None) -> Any:
    from paperworks.core.budget import Limits

    return Limits(time_s=time_limit, working_time_s=working_limit, tokens=token_limit, cost=cost_limit,
                  messages=message_limit).validate()


ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="litellm model string "
                                              "(default local/smollm2-135m).")]
TimeOpt = Annotated[float | None, typer.Option("--time-limit", help="Wall-clock seconds for the run.")]
WorkingOpt = Annotated[float | None, typer.Option("--working-limit", help="Working seconds for the run: wall "
                                                  "time minus time queued for the model.")]
RetriesOpt = Annotated[int | None, typer.Option("--max-retries", help="Retries of a failed model call "
                                                "(rate limit, timeout, 5xx; default 4, 0 for local/...).")]
TimeoutOpt = Annotated[float | None, typer.Option("--timeout", help="Seconds one model request may take "
                                                  "before it is retried.")]
TokenOpt = Annotated[int | None, typer.Option("--token-limit", help="Total tokens for the run.")]
CostOpt = Annotated[float | None, typer.Option("--cost-limit", help="US dollars for the run.")]
MessageOpt = Annotated[int | None, typer.Option("--message-limit", help="Model messages (replies) for the run: "
                                                "the call past it is not made and the run ends with a limit "
                                                "error.")]


@app.command()
def run(
    workflow: Annotated[str | None, typer.Argument(help="Workflow name (or module:SPEC).")] = None,
    input: Annotated[str | None, typer.Option("--input", "-i", help="Input: JSON object, @file.json, "
                                               "file.yaml, or plain text for one-field inputs.")] = None,
    model: ModelOpt = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Run id or directory to continue.")] = None,
    config: Annotated[list[str] | None, typer.Option("--config", "-c", help="Workflow setting key=value.")] = None,
    gen: Annotated[list[str] | None, typer.Option("--gen", help="Generation setting key=value "
                                                  "(temperature, max_tokens, top_p, ...).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for sampling and the run.")] = 0,
    time_limit: TimeOpt = None,
    working_limit: WorkingOpt = None,
    token_limit: TokenOpt = None,
    cost_limit: CostOpt = None,
    message_limit: MessageOpt = None,
    max_retries: RetriesOpt = None,
    timeout: TimeoutOpt = None,
    recursion_limit: Annotated[int, typer.Option(help="Most graph steps (LangGraph recursion limit).")] = 100,
    cache: Annotated[bool, typer.Option(help="Answer repeated model requests from the response cache.")] = False,
    stream: Annotated[bool, typer.Option(help="Show model text as it is generated.")] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print the result.")] = False,
    edit: Annotated[str | None, typer.Option("--edit", help="Finished run to redo with new parameter values "
                                             "(--set), without a model call.")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="Parameter name=value for --edit.")] = None,
    log_dir: Annotated[str | None, typer.Option(help="Where the run directory goes, and where --resume ID "
                                                "looks (default ./runs, or $PAPERWORKS_RUNS_DIR).")] = None,
) -> None:
    """Run one workflow graph on one input; the run is recorded and can be resumed."""
    with _runs_dir(log_dir):
        _run(workflow, input, model, resume, config, gen, seed,
             _limits(time_limit, token_limit, cost_limit, working_limit, message_limit),
             max_retries, timeout, recursion_limit, cache, stream, quiet, edit, set_)


@contextmanager
def _runs_dir(log_dir: str | None) -> Iterator[None]:
    """``--log-dir``: the same meaning as ``$PAPERWORKS_RUNS_DIR``, for this command only."""
    if log_dir is None:
        yield
        return
    if not log_dir.strip():
        raise UserError("--log-dir: empty path")
    before = os.environ.get("PAPERWORKS_RUNS_DIR")
    os.environ["PAPERWORKS_RUNS_DIR"] = log_dir
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PAPERWORKS_RUNS_DIR", None)
        else:
            os.environ["PAPERWORKS_RUNS_DIR"] = before


def _run(workflow: str | None, input: str | None, model: str | None, resume: str | None, config: list[str] | None,
         gen: list[str] | None, seed: int, limits: Any, max_retries: int | None, timeout: float | None,
         recursion_limit: int, cache: bool, stream: bool, quiet: bool, edit: str | None,
         set_: list[str] | None) -> None:
    from paperworks.cli.display import LiveView, print_outcome
    from paperworks.cli.inputs import parse_settings, read_input
    from paperworks.core.lock import RunLock
    from paperworks.models import DEFAULT_MODEL
    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    view = LiveView(console)
    if edit:
        _edit_run(workflow, edit, parse_settings(set_ or [], "--set"))
        return
    if resume:
        run_dir = runner.open_for_resume(resume)
        lock = RunLock(run_dir.path).acquire()  # a second writer is refused before anything is printed
        record = run_dir.read_record()
        if workflow and workflow != record.get("workflow"):
            raise UserError(f"run {run_dir.id} is a '{record.get('workflow')}' run, not '{workflow}'")
        if record.get("status") == "succeeded":
            lock.release()
            console.print(f"run {run_dir.id} already finished; nothing to resume")
            print_outcome(console, err_console, record, str(run_dir.path), quiet)
            return
        update = None
    else:
        if workflow is None or input is None:
            raise typer.BadParameter("give WORKFLOW and --input (or --resume RUN)", param_hint="'--input'")
        spec = get_workflow(workflow)
        raw = read_input(input)
        model = DEFAULT_MODEL if model is None else model  # an empty -m is refused, not the default
        run_dir = runner.create_run(
            spec, raw, model=model, config_values=parse_settings(config or [], "setting"),
            limits=limits, seed=seed,
            generation=parse_settings(gen or [], "generation setting"), cache=cache,
            recursion_limit=recursion_limit, max_retries=max_retries, timeout=timeout,
        )
        lock = RunLock(run_dir.path).acquire()
        update = spec.make_state(spec.parse_input(raw))
    try:  # the run dir is printed once, with the outcome (the live view names the run id as it starts)
        listeners: list[Any] = [] if quiet else [view]
        outcome = runner.run_sync(runner.execute(run_dir, update, listeners=listeners, stream=stream and not quiet,
                                                 model=model if resume else None))
    except KeyboardInterrupt:
        err_console.print(f"cancelled; continue with: paperworks run --resume {run_dir.id}")
        hard_exit(130)
    finally:
        lock.release()
    print_outcome(console, err_console, run_dir.read_record(), str(run_dir.path), quiet)
    if outcome.status != "succeeded":
        raise typer.Exit(1)


def _edit_run(workflow: str | None, ref: str, overrides: dict[str, Any]) -> None:
    from paperworks.cli.display import print_outcome
    from paperworks.core.runs import RunDir, now_iso
    from paperworks.workflows.registry import get_workflow

    source = RunDir.open(ref)
    record = source.read_record()
    spec = get_workflow(workflow or record.get("workflow", ""))
    if record.get("workflow") != spec.name:
        raise UserError(f"run {source.id} is a '{record.get('workflow')}' run, not '{spec.name}'")
    if spec.edit is None:
        raise UserError(f"workflow '{spec.name}' does not support --edit")
    if not overrides:
        raise UserError("--edit needs at least one --set name=value")
    new = RunDir.create(f"{spec.name}-edit", {"kind": "edit", "workflow": spec.name, "source_run": str(source.path),
                                              "set": overrides})
    output = spec.edit(source.path, overrides, new.path)
    status = "succeeded" if output.get("ok") else "failed"
    error = None if status == "succeeded" else "; ".join(output.get("failures", [])[:3]) or output.get("error")
    new.update_record(status=status, output=output, error=error, finished_at=now_iso())
    if output.get("unknown_params"):
        err_console.print(f"warning: the program has no parameter(s) {output['unknown_params']}")
    print_outcome(console, err_console, new.read_record(), str(new.path))
    if status != "succeeded":
        raise typer.Exit(1)


@app.command()
def chat(
    workflow: Annotated[str, typer.Option("--workflow", "-w", help="Workflow that answers.")] = "agent",
    model: ModelOpt = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Chat run id or directory to continue.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for sampling.")] = 0,
    token_limit: TokenOpt = None,
    cost_limit: CostOpt = None,
    message_limit: Annotated[int | None, typer.Option("--message-limit", help="Model messages (replies) for "
                                                      "the whole conversation, resumed sessions included: the "
                                                      "call past it is not made, the turn ends with a limit "
                                                      "error and the chat stops.")] = None,
    max_retries: RetriesOpt = None,
    timeout: TimeoutOpt = None,
) -> None:
    """Multi-turn chat with a workflow; the conversation persists and can be resumed."""
    from paperworks.cli.chat import chat_loop

    chat_loop(console, err_console, workflow=workflow, model=model, resume=resume, seed=seed,
              limits=_limits(None, token_limit, cost_limit, message_limit=message_limit), max_retries=max_retries,
              timeout=timeout)


@app.command()
def runs(limit: Annotated[int, typer.Option(help="How many recent runs.")] = 20, format: FormatOpt = None) -> None:
    """Recent runs and their status (a killed run shows as interrupted); evals with suite, score and tags."""
    from paperworks.cli.listing import runs_listing
    from paperworks.cli.tables import check_format, show, table_format
    from paperworks.core.runs import list_runs

    if limit < 1:
        raise UserError(f"--limit must be at least 1, got {limit}")
    fmt = check_format(format)
    records = list_runs(limit=limit)
    if not records and table_format(console, fmt) == "table":
        console.print("no runs yet (they are created under ./runs, or $PAPERWORKS_RUNS_DIR)")
        return
    show(console, [runs_listing(records)], fmt)


def _register_eval_commands() -> None:
    from paperworks.cli.archive_cmd import archive_app
    from paperworks.cli.cad_cmd import cad_app
    from paperworks.cli.eval_cmd import compare_command, eval_command, view_command
    from paperworks.cli.export_cmd import export_command
    from paperworks.cli.lean_cmd import lean_app
    from paperworks.cli.ogmar_cmd import ogmar_app
    from paperworks.cli.rejump_cmd import rejump_command
    from paperworks.cli.repro_cmd import repro_command
    from paperworks.cli.serve_cmd import serve_command
    from paperworks.cli.train_cmd import train_command
    from paperworks.cli.tts_cmd import tts_app

    app.command("eval")(eval_command)
    app.command("view")(view_command)
    app.command("compare")(compare_command)
    app.command("export")(export_command)
    app.command("repro")(repro_command)
    app.command("rejump")(rejump_command)
    app.command("serve")(serve_command)
    app.command("train")(train_command)
    app.add_typer(cad_app, name="cad")
    app.add_typer(archive_app, name="archive")
    app.add_typer(lean_app, name="lean")
    app.add_typer(tts_app, name="tts")
    app.add_typer(ogmar_app, name="ogmar")


_register_eval_commands()


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors, exit 1 for user errors, 2 for usage errors, 130 for Ctrl-C.

    The process exits as soon as the command's results are written (``exit_promptly``)."""
    try:
        _main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        exit_promptly(code)
    exit_promptly(0)


def _main(argv: list[str] | None) -> None:
    command = typer.main.get_command(app)
    try:
        rc = command.main(args=argv, prog_name="paperworks", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.TyperException as exc:  # usage errors (exit 2), shown the way click shows them
        show = getattr(exc, "show", None)
        if show is not None:
            show()
        else:
            err_console.print(f"error: {exc}")
        sys.exit(getattr(exc, "exit_code", 2))
    except (typer.Abort, KeyboardInterrupt):
        err_console.print("cancelled")
        sys.exit(130)
    except PaperworksError as exc:
        from paperworks.core.errors import one_line

        err_console.print(f"error: {one_line(exc)}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except Exception as exc:
        if os.environ.get("PAPERWORKS_DEBUG"):
            raise
        from paperworks.core.errors import one_line

        err_console.print(f"internal error: {one_line(exc)} (PAPERWORKS_DEBUG=1 shows the traceback)",
                          markup=False, highlight=False, soft_wrap=True)
        sys.exit(1)
    if isinstance(rc, int) and rc:
        sys.exit(rc)


if __name__ == "__main__":
    main()
