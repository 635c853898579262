"""``paperworks archive add PATH... | search QUERY | list | remove PATH...`` with ``--archive DIR``:
the HistAgent document archive (chromadb + BM25). chromadb loads inside the commands only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

archive_app = typer.Typer(name="archive", help="The document archive: add files, search them with citations.",
                          no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
console = Console()
err_console = Console(stderr=True, soft_wrap=True)

ArchiveOpt = Annotated[Path | None, typer.Option("--archive", "-a", help="Archive folder (default "
                                                 "$PAPERWORKS_ARCHIVE or <PAPERWORKS_HOME>/archive).")]


def _open(archive: Path | None, ocr_languages: str | None = None) -> Any:
    from paperworks.tools.archive import Archive

    return Archive(archive, ocr_languages=ocr_languages)


@archive_app.command("add")
def add(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (searched recursively).")],
    archive: ArchiveOpt = None,
    ocr_languages: Annotated[str | None, typer.Option("--ocr-languages", help="Tesseract languages for "
                                                      "images and scans, e.g. deu+lat (default eng).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only the summary line.")] = False,
) -> None:
    """Ingest files incrementally: unchanged files are skipped, changed ones re-indexed. A file that
    cannot be read is reported and the others go on (exit status 1 if any failed)."""
    arc = _open(archive, ocr_languages)

    def progress(path: Path, status: str) -> None:
        if not quiet and status != "failed":
            console.print(f"{status:9} {escape(str(path))}", highlight=False)

    report = arc.add(paths, on_file=progress)
    for line in report.failed:
        err_console.print(f"error: {escape(line)}", highlight=False)
    console.print(f"{len(report.added)} added, {len(report.updated)} updated, {len(report.unchanged)} unchanged, "
                  f"{len(report.failed)} failed; {report.chunks} passages in {report.seconds:.1f} s "
                  f"({escape(str(arc.root))})", highlight=False)
    arc.close()
    if report.failed:
        raise typer.Exit(1)


@archive_app.command("search")
def search(
    query: Annotated[str, typer.Argument(help="Words or a question.")],
    archive: ArchiveOpt = None,
    k: Annotated[int, typer.Option("--k", "-k", min=1, max=100, help="Passages to show.")] = 5,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, dense or lexical.")] = "hybrid",
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False,
) -> None:
    """Search the archive; each passage with its citation (document, page, lines)."""
    import json

    arc = _open(archive)
    hits = arc.search(query, k=k, mode=mode)
    if not hits:
        console.print("no passages found")
    for i, hit in enumerate(hits, 1):
        if as_json:
            print(json.dumps({"rank": i, "document": hit.document, "page": hit.chunk.page,
                              "lines": [hit.chunk.line_start, hit.chunk.line_end], "citation": hit.citation,
                              "score": hit.score, "text": hit.chunk.text}, ensure_ascii=False))
        else:
            console.print(f"[bold][{i}] {escape(hit.citation)}[/bold]  (score {hit.score:.4f})")
            console.print(escape(hit.chunk.text), highlight=False)
    arc.close()


@archive_app.command("list")
def list_cmd(archive: ArchiveOpt = None) -> None:
    """List the archived files with their type and number of passages."""
    arc = _open(archive)
    docs = arc.documents()
    for d in docs:
        console.print(f"{escape(d.path)}\t{d.kind}\t{d.chunks} passages\t{d.sha256[:12]}", highlight=False)
    console.print(f"{len(docs)} documents, {sum(d.chunks for d in docs)} passages", highlight=False)
    arc.close()


@archive_app.command("remove")
def remove(
    paths: Annotated[list[Path], typer.Argument(help="Files, or folders (everything under them).")],
    archive: ArchiveOpt = None,
) -> None:
    """Remove files from the archive (the files themselves are not touched)."""
    arc = _open(archive)
    removed, missing = arc.remove(paths)
    for path in removed:
        console.print(f"removed {escape(path)}", highlight=False)
    for path in missing:
        err_console.print(f"error: {escape(path)}: not in the archive", highlight=False)
    arc.close()
    if missing:
        raise typer.Exit(1)


def main(argv: list[str] | None = None) -> None:
    """Run the sub-app on its own (``python -m paperworks.cli.archive_cmd``): one-line errors, exit 1."""
    import sys

    from paperworks.core.errors import PaperworksError

    command = typer.main.get_command(archive_app)
    try:
        rc = command.main(args=argv, prog_name="paperworks archive", standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except PaperworksError as exc:
        err_console.print(f"error: {escape(str(exc))}", highlight=False)
        sys.exit(exc.exit_code)
    sys.exit(rc if isinstance(rc, int) else 0)


if __name__ == "__main__":
    main()
