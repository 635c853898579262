"""``paperworks eval`` · ``view`` · ``compare``. Heavy modules load inside the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True, soft_wrap=True)  # one-line errors stay one line


def eval_command(
    suite: Annotated[str | None, typer.Argument(help="Suite name (evals/<name>) or folder.")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="litellm model string.")] = None,
    judge_model: Annotated[str | None, typer.Option(help="Model for model-graded scorers.")] = None,
    limit: Annotated[str | None, typer.Option(help="Only the first N samples, or samples A-B (from 1, both "
                                              "included, e.g. 2-5); for testing.")] = None,
    sample_id: Annotated[list[str] | None, typer.Option("--sample-id", help="Only these samples: a comma list "
                                                        "(a,b,c); repeatable.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Runs per sample (default: the suite's).")] = None,
    seed: Annotated[int, typer.Option(help="Base seed (epoch e uses seed + e - 1).")] = 0,
    max_samples: Annotated[int | None, typer.Option(
        "--max-samples", help="Samples run at once (default 4; 1 for the torch-served local/...-torch "
        "models).")] = None,
    concurrency: Annotated[int | None, typer.Option(help="The same as --max-samples (older name).")] = None,
    cache: Annotated[bool, typer.Option(help="Answer repeated model requests from the response cache.")] = False,
    time_limit: Annotated[float | None, typer.Option(help="Wall-clock seconds per sample.")] = None,
    working_limit: Annotated[float | None, typer.Option(help="Working seconds per sample: wall time minus "
                                                         "time queued for the model.")] = None,
    token_limit: Annotated[int | None, typer.Option(help="Tokens per sample.")] = None,
    message_limit: Annotated[int | None, typer.Option(help="Model messages per sample; the call past it is "
                                                      "refused and the sample ends with a limit error.")] = None,
    cost_limit: Annotated[float | None, typer.Option(help="US dollars per sample.")] = None,
    tags: Annotated[list[str] | None, typer.Option("--tags", help="Tags for the run: a comma list (a,b); "
                                                   "shown by `paperworks runs` and `view`.")] = None,
    metadata: Annotated[list[str] | None, typer.Option("--metadata", help="Run metadata key=value (repeatable); "
                                                       "shown by `paperworks view`.")] = None,
    display: Annotated[str | None, typer.Option(help="Progress: full, conversation, rich, plain (a line per "
                                                "sample, no control characters) or none.")] = None,
    log_level: Annotated[str | None, typer.Option(help="Log lines to stderr from: debug, info, warning "
                                                  "(default) or error.")] = None,
    log_dir: Annotated[str | None, typer.Option(help="Where the run directory goes (default ./runs, "
                                                "or $PAPERWORKS_RUNS_DIR).")] = None,
    fail_on_error: Annotated[float | None, typer.Option(help="Exit 1 when the fraction of failed samples "
                                                         "exceeds this (default: any error is tolerated).")] = None,
    executor: Annotated[str, typer.Option(help="local (asyncio) or ray.")] = "local",
    ray_address: Annotated[str | None, typer.Option(help="Existing Ray cluster (default: start a local one).")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Eval run directory (or id) to finish.")] = None,
    max_retries: Annotated[int | None, typer.Option("--max-retries", help="Retries of a failed model call "
                                                    "(default 4, 0 for local/...).")] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", help="Seconds one model request may take "
                                                  "before it is retried.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress; print only the results.")] = False,
    data: Annotated[str | None, typer.Option(help="Your copy of a suite's data, for suites not shipped "
                                             "(histbench: the HistBench .xlsx, or its folder).")] = None,
    attachments: Annotated[str | None, typer.Option(help="That data's attachment folder (default: beside it).")] = None,
    config: Annotated[list[str] | None, typer.Option("--config", "-c", help="Workflow setting key=value, over "
                                                     "the suite's own (e.g. -c mode=knn).")] = None,
    gen: Annotated[list[str] | None, typer.Option("--gen", help="Generation setting key=value over the suite's "
                                                  "own (temperature, max_tokens, top_p, ...).")] = None,
) -> None:
    """Evaluate a workflow on a benchmark suite with a model; resumable after any interruption."""
    from rich.markup import escape

    from paperworks.cli.eval_display import log_level as logging_at
    from paperworks.cli.eval_display import make_view
    from paperworks.cli.inputs import parse_settings
    from paperworks.core.lock import RunLock
    from paperworks.core.runs import RunDir
    from paperworks.eval import harness
    from paperworks.eval.metrics import format_table
    from paperworks.eval.options import (
        DISPLAYS,
        LOG_LEVELS,
        check_choice,
        parse_limit,
        parse_metadata,
        parse_tags,
        split_list,
    )
    from paperworks.models import DEFAULT_MODEL
    from paperworks.workflows.runner import run_sync

    # every option is checked before a run directory is made or opened
    samples_at_once = _max_samples(max_samples, concurrency)
    display = check_choice(display, DISPLAYS, "--display")
    log_level = check_choice(log_level, LOG_LEVELS, "--log-level")
    limit_value = parse_limit(limit)
    sample_ids, tag_list, meta = split_list(sample_id, "--sample-id"), parse_tags(tags), parse_metadata(metadata)
    if resume:
        run = RunDir.open(resume)
        lock = RunLock(run.path).acquire()  # a second writer is refused in one line, before any output
        try:
            record = run.read_record()
            _check_resume(run, record, suite=suite, model=model, judge_model=judge_model, limit=limit_value,
                          sample_ids=sample_ids, epochs=epochs, seed=seed, config=config, data=data, gen=gen,
                          message_limit=message_limit, tags=tag_list if tags else None,
                          metadata=meta if metadata else None)
            args = dict(record.get("args") or {})
            changed = {k: v for k, v in (("concurrency", samples_at_once), ("display", display),
                                         ("log_level", log_level)) if v is not None and v != args.get(k)}
            if changed:  # how the eval is run and shown may change on resume; what it measures may not
                run.update_record(args={**args, **changed})
                record = run.read_record()
        except BaseException:
            lock.release()
            raise
        args = record.get("args") or {}
        fail_on_error = fail_on_error if fail_on_error is not None else args.get("fail_on_error")
        display, log_level = args.get("display") or "full", args.get("log_level") or "warning"
    else:
        if suite is None:
            raise typer.BadParameter("give a SUITE (or --resume RUN_DIR)", param_hint="SUITE")
        run = harness.create_eval(harness.EvalArgs(
            suite=suite, model=DEFAULT_MODEL if model is None else model, judge_model=judge_model, limit=limit_value,
            sample_ids=sample_ids, epochs=epochs, seed=seed, cache=cache,
            concurrency=samples_at_once if samples_at_once is not None else
            (1 if (model or "").endswith("-torch") else 4),  # llama.cpp batches; torch serialises
            time_limit=time_limit, working_limit=working_limit, token_limit=token_limit, cost_limit=cost_limit,
            log_dir=log_dir, fail_on_error=fail_on_error, executor=executor, ray_address=ray_address,
            max_retries=max_retries, timeout=timeout, data=data, attachments=attachments,
            config=parse_settings(config or [], "setting"),
            generation=parse_settings(gen or [], "generation setting"), message_limit=message_limit,
            tags=tag_list, metadata=meta, display=display or "full", log_level=log_level or "warning"))
        lock = RunLock(run.path).acquire()
        record = run.read_record()
        display, log_level = display or "full", log_level or "warning"
    out = Console(color_system=None, highlight=False, soft_wrap=True) if display == "plain" else console
    say = (lambda *a, **k: None) if quiet else out.print
    if resume:
        say(f"resuming eval {run.id} ({record.get('suite')}, model {record.get('model')})")
    say(f"[dim]run dir: {escape(str(run.path))}[/dim]", soft_wrap=True)  # a path is never broken across lines
    for name, reason in (record.get("skipped_scorers") or {}).items():  # shown even with -q: it changes the figures
        err_console.print(f"scorer '{name}' skipped: {reason}", markup=False, highlight=False)
    if record.get("limited"):
        say("[yellow]--limit/--sample-id given: these results are for testing only[/yellow]")
    view = make_view("none" if quiet and display == "full" else display, out, run.path)
    try:
        with logging_at(log_level):
            if view is None:
                results = run_sync(harness.run_eval(run))
            else:
                with view.showing():
                    results = run_sync(harness.run_eval(run, view))
    except KeyboardInterrupt:
        err_console.print(f"cancelled; finish with: paperworks eval --resume {run.path}")
        from paperworks.cli.exits import hard_exit

        hard_exit(130)
        return
    finally:
        lock.release()
    out.print(format_table(results))
    _print_errors(run.path)
    frac = harness.error_fraction(results, run)
    out.print(f"view it: paperworks view {run.path}", markup=False, highlight=False, soft_wrap=True)
    if fail_on_error is not None and frac > fail_on_error:
        err_console.print(f"error: {frac:.1%} of samples failed (more than --fail-on-error {fail_on_error:g})")
        raise typer.Exit(1)


def _max_samples(max_samples: int | None, concurrency: int | None) -> int | None:
    """``--max-samples`` (Inspect's name) or ``--concurrency`` (the older one): the same setting."""
    from paperworks.core.errors import UserError

    if max_samples is not None and concurrency is not None and max_samples != concurrency:
        raise UserError(f"--max-samples {max_samples} and --concurrency {concurrency} are the same setting; "
                        "give one of them")
    value = max_samples if max_samples is not None else concurrency
    if value is not None and value < 1:
        flag = "--max-samples" if max_samples is not None else "--concurrency"
        raise UserError(f"{flag} must be at least 1, got {value}")
    return value


def _check_resume(run: Any, record: dict[str, Any], *, suite: str | None, model: str | None,
                  judge_model: str | None, limit: Any, sample_ids: list[str] | None, epochs: int | None,
                  seed: int, config: list[str] | None, data: str | None,
                  gen: list[str] | None = None, message_limit: int | None = None, tags: list[str] | None = None,
                  metadata: dict[str, str] | None = None) -> None:
    """``eval SUITE --resume RUN`` with options that contradict the run (another suite, model, limit ...) is
    refused in one line: the run would silently go on with its own, and the figures would not be what was asked."""
    from paperworks.core.errors import UserError
    from paperworks.eval.suite_paths import find_suite

    if record.get("kind") != "eval":
        raise UserError(f"{run.path} is not an evaluation run (it is a '{record.get('kind') or 'workflow'}' run)")
    args = record.get("args") or {}
    if suite is not None and suite != record.get("suite"):
        try:
            same = str(find_suite(suite)) == str(record.get("suite_path"))
        except Exception:
            same = False
        if not same:
            raise UserError(f"eval {run.id} is a run of suite '{record.get('suite')}', not '{suite}'; "
                            "give only --resume RUN to finish it")
    kept_limit = args.get("limit")
    given: dict[str, tuple[Any, Any]] = {
        "--model": (model, record.get("model")), "--judge-model": (judge_model, record.get("judge_model")),
        "--limit": (_shown_limit(limit), _shown_limit(kept_limit)),
        "--epochs": (epochs, record.get("epochs")),
        "--sample-id": (list(sample_ids) if sample_ids else None, args.get("sample_ids") or None),
        "--data": (str(Path(data).resolve()) if data else None, record.get("suite_data")),
        "--message-limit": (message_limit, (record.get("limits") or {}).get("messages")),
        "--tags": (tags, record.get("tags") or []), "--metadata": (metadata, record.get("metadata") or {})}
    if seed != 0:
        given["--seed"] = (seed, record.get("seed"))
    if config:
        from paperworks.cli.inputs import parse_settings

        asked, kept = parse_settings(config, "setting"), args.get("config") or {}
        given["--config"] = (asked, {k: kept[k] for k in asked if k in kept})
    if gen:
        from paperworks.cli.inputs import parse_settings

        asked, kept = parse_settings(gen, "generation setting"), args.get("generation") or {}
        given["--gen"] = (asked, {k: kept[k] for k in asked if k in kept})
    for flag, (value, recorded) in given.items():
        if value is not None and value != recorded:
            raise UserError(f"eval {run.id} was started with {flag} {recorded!r}, not {value!r}; a resumed "
                            "eval keeps its own options (give only --resume RUN)")


def _shown_limit(limit: Any) -> Any:
    """A limit as compared and shown on resume: ``5`` or ``'2-5'``."""
    from paperworks.eval.options import limit_text

    return limit_text(limit) if isinstance(limit, (list, tuple)) else limit


def _print_errors(run_path: Path, limit: int = 3) -> None:
    """Each distinct sample error once, with how many samples it failed (not one line per sample)."""
    from collections import Counter

    from paperworks.eval.samples_log import SamplesLog

    counts = Counter(r.error for r in SamplesLog(run_path / "samples.jsonl").read()
                     if r.error and r.error_kind not in ("step_limit", "limit_exceeded"))
    from paperworks.eval.transcript import without_error_prefix

    for message, n in counts.most_common(limit):
        err_console.print(f"error ({n} sample{'s' if n > 1 else ''}): {without_error_prefix(str(message))}",
                          markup=False, highlight=False)
    if len(counts) > limit:
        err_console.print(f"... and {len(counts) - limit} other errors (paperworks view {run_path})")


def view_command(
    run_dir: Annotated[str, typer.Argument(help="Run directory (or id): an eval, or a single run.")],
    out: Annotated[Path | None, typer.Option(help="HTML file to write (default RUN_DIR/report.html).")] = None,
    sample: Annotated[list[str] | None, typer.Option("--sample", help="Only these samples' transcripts "
                                                     "(id or id#epoch).")] = None,
    transcripts: Annotated[int, typer.Option(help="Most sample transcripts to print.")] = 20,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary, no transcripts.")] = False,
) -> None:
    """Summarise a run: metrics, then each sample's conversation as a transcript; writes report.html."""
    from rich.markup import escape

    from paperworks.core.events import read_events
    from paperworks.core.runs import RunDir
    from paperworks.eval.transcript import build_transcript, render_transcript, without_error_prefix

    found = RunDir.open(run_dir)
    if out is not None:
        from paperworks.eval.view import check_report_path

        check_report_path(out)  # a bad --out is refused before the summary is printed
    if found.read_record().get("kind") != "eval":  # a single run or chat: its one conversation
        console.print(render_transcript(build_transcript(read_events(found.events_path), found.path)))
        from paperworks.eval.view import rejump_table

        table = rejump_table(found.path)  # after `paperworks rejump RUN_DIR`
        if table is not None:
            console.print(table)
        return
    from paperworks.eval.view import load_run, summary, write_report

    run = load_run(found.path)
    for part in _as_list(summary(run)):
        console.print(part)
    if not quiet:
        wanted = set(sample or [])
        chosen = [s for s in run.samples if not wanted or s.id in wanted or s.key in wanted]
        for record in chosen[:transcripts]:
            extra = f" ({record.limit} limit)" if record.limit else ""
            timing = f"{record.time_s:.1f}s" + (f", working {record.working_s:.1f}s, waiting {record.waiting_s:.1f}s"
                                                if record.working_s is not None and record.waiting_s else "")
            console.rule(f"{record.key} · {record.status}{extra} · {timing}", align="left")
            console.print(render_transcript(build_transcript(run.events.get(record.key, []), run.path)))
            if record.error:
                console.print(f"[red]error:[/red] {escape(without_error_prefix(record.error))}", highlight=False)
        if len(chosen) > transcripts:
            console.print(f"[dim]{len(chosen) - transcripts} more samples: --transcripts N or --sample ID[/dim]")
    console.print(f"report: {write_report(run, out)}")


def compare_command(
    run_a: Annotated[str, typer.Argument(help="Baseline eval run directory (or id).")],
    run_b: Annotated[str, typer.Argument(help="Eval run directory (or id) to compare with it.")],
) -> None:
    """Metric deltas with their uncertainty, and the samples that flipped."""
    from paperworks.core.runs import RunDir
    from paperworks.eval.compare import compare_runs, print_comparison

    print_comparison(compare_runs(RunDir.open(run_a).path, RunDir.open(run_b).path), console)


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else [value]
