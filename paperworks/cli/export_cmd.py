"""``paperworks export RUN --format inspect``: a run in another tool's format. Heavy modules load inside."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

console = Console()


def export_command(
    run_dir: Annotated[str, typer.Argument(help="Run directory (or id): an eval run, or a single workflow run.")],
    format: Annotated[str, typer.Option("--format", "-f", help="Output format: inspect (an Inspect AI eval "
                                        "log that `inspect view` and read_eval_log open).")] = "inspect",
    out: Annotated[Path | None, typer.Option(help="File to write, .eval or .json (default "
                                             "RUN_DIR/inspect/<created>_<task>_<id>.eval).")] = None,
) -> None:
    """Export a run for other tools: samples, scores, metrics, usage, messages and events."""
    from paperworks.core.errors import UserError
    from paperworks.integrations.inspect_log import FORMATS, export_inspect

    if format not in FORMATS:
        raise UserError(f"--format must be one of {', '.join(FORMATS)}, got '{format}'")
    try:
        path = export_inspect(run_dir, out)
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:  # damaged run files
        from paperworks.core.errors import one_line

        raise UserError(f"cannot export {run_dir}: a file of the run is damaged or hand-edited "
                        f"({one_line(exc, 160)})") from exc
    except OSError as exc:  # --out in a folder that cannot be written
        where = exc.filename or out or run_dir
        raise UserError(f"cannot export {run_dir}: cannot write {where} ({exc.strerror or exc})") from exc
    console.print(f"wrote {path}  ·  inspect view --log-dir {path.parent}", markup=False, highlight=False,
                  soft_wrap=True)
