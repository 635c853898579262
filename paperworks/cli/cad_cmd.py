"""``paperworks cad check PROGRAM.py [--tests TESTS.py] [--set name=value ...] [--out DIR] [--json]``:
any CadQuery program through the SPADA sandbox, checks, exports and renders. The sandbox loads
inside the command (typer and rich only at import)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

cad_app = typer.Typer(name="cad", help="CadQuery tools: run a program in the sandbox with its tests and checks.",
                      no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console()
err_console = Console(stderr=True)


def parse_set(items: list[str]) -> dict[str, Any]:
    """``name=value`` pairs → dict; values are JSON when they parse (numbers, true/false), else strings."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise typer.BadParameter(f"'{item}' is not name=value", param_hint="--set")
        try:
            out[name.strip()] = json.loads(value)
        except ValueError:
            out[name.strip()] = value
    return out


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        err_console.print(f"error: cannot read {what} {path}: {exc.__class__.__name__}: {exc}")
        raise typer.Exit(1) from None


def _mark(passed: bool) -> str:
    return "[green]pass[/green]" if passed else "[red]FAIL[/red]"


def report(result: Any, program: Path) -> None:
    """The readable report: verdict, stage, error, tests, checks, parts, artifacts."""
    verdict = "[bold green]OK[/bold green]" if result.ok else "[bold red]FAILED[/bold red]"
    console.print(f"{verdict}  {escape(str(program))}  stage [bold]{result.stage}[/bold]  ({result.time_s:.1f} s)")
    if result.error:
        console.print(f"[red]error:[/red] {escape(result.error)}")
    if result.source:
        console.print(f"shapes from: {escape(result.source)}")
    if result.params:
        console.print("params: " + ", ".join(f"{k}={v!r}" for k, v in result.params.items()))
    if result.tests:
        table = Table("test", "result", "message", title="tests", title_justify="left")
        for t in result.tests:
            table.add_row(escape(t.name), _mark(t.passed), escape(t.message))
        console.print(table)
    if result.checks:
        table = Table("check", "result", "message", title="checks", title_justify="left")
        for c in result.checks:
            table.add_row(escape(c.name), _mark(c.passed), escape(c.message))
        console.print(table)
    if result.parts:
        table = Table("part", "valid", "volume mm³", "centre", "size x × y × z", "mass g", title="parts",
                      title_justify="left")
        for p in result.parts:
            b, c = p.get("bbox") or [0] * 6, p.get("center") or [0] * 3
            table.add_row(escape(str(p.get("name"))), _mark(bool(p.get("valid"))), f"{p.get('volume', 0):.4g}",
                          "(" + ", ".join(f"{x:.3g}" for x in c) + ")",
                          " × ".join(f"{b[i + 3] - b[i]:.4g}" for i in range(3)),
                          f"{p['mass']:.4g}" if "mass" in p else "-")
        console.print(table)
    for key, path in result.artifacts.items():
        console.print(f"{key}: {escape(path)}")
    if result.stdout_tail.strip():
        console.print("[dim]output (tail):[/dim]\n" + escape(result.stdout_tail[-2000:]))


@cad_app.command("check")
def check_command(
    program: Annotated[Path, typer.Argument(help="CadQuery program (PARAMS + build(params), result, "
                                            "show_object calls, final_result or another shape variable).")],
    tests: Annotated[Path | None, typer.Option("--tests", "-t", help="Tests file with test_*(ctx) functions.")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="Override a PARAMS value: name=value.")] = None,
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Folder for STEP, STL and PNG renders "
                                             "(default: PROGRAM's name + '_out' next to it).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    no_renders: Annotated[bool, typer.Option("--no-renders", help="Skip the PNG renders.")] = False,
    envelope: Annotated[str | None, typer.Option(help="Largest overall size 'X,Y,Z' in mm.")] = None,
    timeout: Annotated[float, typer.Option(help="Wall-clock seconds for the program.")] = 60,
    memory_mb: Annotated[int, typer.Option(help="Memory limit in MB.")] = 2048,
) -> None:
    """Run PROGRAM (and its tests) in the sandbox; report tests, checks, parts and artifacts.
    Exit 0 when everything passes, 1 otherwise."""
    code = _read(program, "program")
    test_code = _read(tests, "tests file") if tests else None
    params = parse_set(set_ or [])
    env: tuple[float, float, float] | None = None
    if envelope:
        try:
            x, y, z = (float(v) for v in envelope.split(","))
            env = (x, y, z)
        except ValueError:
            raise typer.BadParameter(f"'{envelope}' is not X,Y,Z", param_hint="--envelope") from None
    from paperworks.tools.cad.sandbox import CheckOptions, SandboxLimits, check_program

    out_dir = out or program.with_name(program.stem + "_out")
    result = check_program(code, test_code, params=params, out_dir=out_dir,
                           limits=SandboxLimits(wall_s=timeout, cpu_s=max(1, int(timeout)), memory_mb=memory_mb),
                           options=CheckOptions(envelope=env, renders=not no_renders))
    if json_out:
        print(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        report(result, program)
    raise typer.Exit(0 if result.ok else 1)


@cad_app.command("info")
def info_command() -> None:
    """Which sandbox protections are active on this machine (isolation, memory cgroup, disk quota, how
    verdicts are made) and what does not hold here."""
    from paperworks.tools.cad.isolation import sandbox_info

    print(json.dumps(sandbox_info(), indent=2))
