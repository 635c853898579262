"""``paperworks lean info [--lean-project DIR] [--json]``: which Lean toolchain, Mathlib project and REPL
binary D-FPS would use here; one line when there is no Lean at all (exit status 0 either way)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

lean_app = typer.Typer(name="lean", help="The Lean layer of D-FPS: what Lean is available here.",
                       no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

ProjectOpt = Annotated[Path | None, typer.Option("--lean-project", help="A Lake project with Mathlib and the "
                                                 "REPL (default $PAPERWORKS_LEAN_PROJECT).")]


@lean_app.command("info")
def info(
    lean_project: ProjectOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as one JSON object.")] = False,
) -> None:
    """Show the Lean toolchain, project (Lean and Mathlib versions) and REPL binary that were found."""
    from paperworks.tools.lean.project import HOW_TO, find_lean

    setup = find_lean(lean_project)
    if as_json:
        print(json.dumps(setup.as_dict(), ensure_ascii=False))
        return
    if setup.lean is None and setup.lake is None and setup.project is None and setup.repl is None:
        console.print(f"Lean isn't available here: no lean or lake on PATH or in ~/.elan/bin and no project; "
                      f"{HOW_TO}.", markup=False, highlight=False)
        return
    rows = [
        ("lean", f"{setup.lean} ({setup.lean_version or 'version unknown'})" if setup.lean else "not found"),
        ("lake", str(setup.lake) if setup.lake else "not found"),
        ("project", str(setup.project) if setup.project else "not given"),
        ("toolchain", setup.toolchain or "-"),
        ("mathlib", setup.mathlib_rev or "-"),
        ("repl", str(setup.repl) if setup.repl else "not found"),
        ("status", "ready: D-FPS steps and RPE checks can run in Lean" if setup.ready
         else "not ready: " + "; ".join(setup.problems)),
    ]
    for key, value in rows:
        console.print(f"{key + ':':11}{escape(value)}", highlight=False)


def main(argv: list[str] | None = None) -> None:
    """Run the sub-app on its own (``python -m paperworks.cli.lean_cmd``)."""
    import sys

    command = typer.main.get_command(lean_app)
    try:
        rc = command.main(args=argv, prog_name="paperworks lean", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
