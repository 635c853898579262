"""``paperworks eval`` · ``view`` · ``compare``. Heavy modules load inside the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

console = Console()
err_console = Console(stderr=True)


class _ProgressView:
    """Live progress bar: done/total, running accuracy, errors, tokens, elapsed."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]eval[/bold]"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[stats]}"), TimeElapsedColumn(), console=console,
                            transient=False)
        self.task = self.bar.add_task("eval", total=1, stats="")

    def __call__(self, progress: Any, record: Any) -> None:
        acc = progress.accuracy
        stats = (f"acc {acc:.3f}" if acc is not None else "acc -") + \
            f" · errors {progress.errors} · {progress.usage.total_tokens} tok"
        self.bar.update(self.task, total=progress.total, completed=progress.done, stats=stats)


def eval_command(
    suite: Annotated[str | None, typer.Argument(help="Suite name (evals/<name>) or folder.")] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help="litellm model string.")] = None,
    judge_model: Annotated[str | None, typer.Option(help="Model for model-graded scorers.")] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N samples (testing only).")] = None,
    sample_id: Annotated[list[str] | None, typer.Option("--sample-id", help="Only these samples.")] = None,
    epochs: Annotated[int | None, typer.Option(help="Runs per sample (default: the suite's).")] = None,
    seed: Annotated[int, typer.Option(help="Base seed (epoch e uses seed + e - 1).")] = 0,
    concurrency: Annotated[int | None, typer.Option(
        help="Samples in flight at once (default 4; 1 for the in-process local model).")] = None,
    cache: Annotated[bool, typer.Option(help="Answer repeated model requests from the response cache.")] = False,
    time_limit: Annotated[float | None, typer.Option(help="Seconds per sample.")] = None,
    token_limit: Annotated[int | None, typer.Option(help="Tokens per sample.")] = None,
    cost_limit: Annotated[float | None, typer.Option(help="US dollars per sample.")] = None,
    log_dir: Annotated[str | None, typer.Option(help="Where the run directory goes (default ./runs).")] = None,
    fail_on_error: Annotated[float | None, typer.Option(help="Exit 1 when the fraction of failed samples "
                                                         "exceeds this (default: any error is tolerated).")] = None,
    executor: Annotated[str, typer.Option(help="local (asyncio) or ray.")] = "local",
    ray_address: Annotated[str | None, typer.Option(help="Existing Ray cluster (default: start a local one).")] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Eval run directory (or id) to finish.")] = None,
) -> None:
    """Evaluate a workflow on a benchmark suite with a model; resumable after any interruption."""
    from paperworks.core.runs import RunDir
    from paperworks.eval import harness
    from paperworks.eval.metrics import format_table
    from paperworks.models import DEFAULT_MODEL
    from paperworks.workflows.runner import run_sync

    if resume:
        run = RunDir.open(resume)
        record = run.read_record()
        fail_on_error = fail_on_error if fail_on_error is not None else (record.get("args") or {}).get("fail_on_error")
        console.print(f"resuming eval {run.id} ({record.get('suite')}, model {record.get('model')})")
    else:
        if suite is None:
            raise typer.BadParameter("give a SUITE (or --resume RUN_DIR)", param_hint="SUITE")
        run = harness.create_eval(harness.EvalArgs(
            suite=suite, model=model or DEFAULT_MODEL, judge_model=judge_model, limit=limit,
            sample_ids=list(sample_id or []), epochs=epochs, seed=seed, cache=cache,
            concurrency=concurrency if concurrency is not None else
            (1 if (model or DEFAULT_MODEL).startswith("local/") else 4),
            time_limit=time_limit, token_limit=token_limit, cost_limit=cost_limit, log_dir=log_dir,
            fail_on_error=fail_on_error, executor=executor, ray_address=ray_address))
        record = run.read_record()
    console.print(f"[dim]run dir: {run.path}[/dim]")
    if record.get("limited"):
        console.print("[yellow]--limit/--sample-id given: these results are for testing only[/yellow]")
    view = _ProgressView()
    try:
        with view.bar:
            results = run_sync(harness.run_eval(run, view))
    except KeyboardInterrupt:
        err_console.print(f"cancelled; finish with: paperworks eval --resume {run.path}")
        from paperworks.cli.app import hard_exit

        hard_exit(130)
        return
    console.print(format_table(results))
    frac = harness.error_fraction(results, run)
    console.print(f"run dir: {run.path}  ·  paperworks view {run.path}")
    if fail_on_error is not None and frac > fail_on_error:
        err_console.print(f"error: {frac:.1%} of samples failed (more than --fail-on-error {fail_on_error:g})")
        raise typer.Exit(1)


def view_command(
    run_dir: Annotated[str, typer.Argument(help="Eval run directory (or id).")],
    out: Annotated[Path | None, typer.Option(help="HTML file to write (default RUN_DIR/report.html).")] = None,
) -> None:
    """Summarise an eval run and write a self-contained HTML report."""
    from paperworks.core.runs import RunDir
    from paperworks.eval.view import load_run, summary, write_report

    run = load_run(RunDir.open(run_dir).path)
    for part in _as_list(summary(run)):
        console.print(part)
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
