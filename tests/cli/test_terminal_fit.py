"""``paperworks runs`` and ``paperworks list`` fit an 80-column terminal without cutting a name a user must
type, print tab-separated text with a header line in a pipe, and JSON with ``--format json``;
descriptions end at a sentence boundary."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from paperworks.cli.listing import docstring_summary, sentences
from paperworks.cli.tables import Column, fit_widths
from tests.cli.test_runs_view import run_cli
from tests.conftest import cli

LONG_MODEL = "openai/gpt-4o-mini-2024-07-18"


def fake_run(name: str, run_id: str, record: dict[str, Any], metrics: dict[str, Any] | None = None) -> None:
    folder = Path(os.environ["PAPERWORKS_RUNS_DIR"]) / f"20261201-1200{len(run_id) % 60:02d}_{name}_{run_id}"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"id": run_id, "created_at": "2026-12-01T12:00:00", **record}))
    if metrics is not None:
        (folder / "results.json").write_text(json.dumps({"metrics": metrics, "usage": {"total_tokens": 123456}}))


@pytest.fixture
def runs() -> None:
    fake_run("eval-formal_math500", "1a2b3c4d", {
        "kind": "eval", "suite": "formal_math500", "workflow": "dfps", "model": LONG_MODEL, "status": "succeeded",
        "tags": ["nightly", "lean"], "elapsed_s": 1234.5, "sample_ids": ["a"], "epochs": 1},
        {"symbolic_answer/accuracy": {"value": 0.4, "stderr": 0.0591, "n": 70}})
    fake_run("histagent", "99887766", {"kind": "run", "workflow": "histagent", "model": "local/smollm2-135m",
                                       "status": "failed", "elapsed_s": 3.0})


def lines_of(out: str) -> list[str]:
    return [line.rstrip() for line in out.splitlines()]


def test_runs_fit_80_columns_and_keep_every_name_whole(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch, runs: None) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli(capsys, "runs", "--format", "table")
    assert code == 0, err
    lines = lines_of(out)
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    assert "…" not in out
    for name in ("1a2b3c4d", "99887766", "formal_math500", LONG_MODEL, "local/smollm2-135m", "histagent",
                 "succeeded"):
        assert any(name in line for line in lines), (name, out)
    assert any("0.400 ±" in line for line in lines)


def test_runs_in_a_wide_terminal_show_every_column_on_one_line(capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch, runs: None) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(capsys, "runs", "--format", "table")
    assert code == 0
    row = next(line for line in lines_of(out) if "1a2b3c4d" in line)
    for cell in ("eval", "formal_math500 (dfps)", LONG_MODEL, "symbolic_answer 0.400 ± 0.059", "nightly,lean",
                 "123456", "1234.5", "12-01 12:00"):
        assert cell in row, (cell, row)


def test_runs_in_a_pipe_are_tab_separated_with_a_header_and_as_json(capsys: pytest.CaptureFixture[str],
                                                                     runs: None) -> None:
    code, out, _ = run_cli(capsys, "runs")  # captured output is not a terminal
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split("\t") == ["id", "kind", "task", "model", "status", "score", "tags", "tokens", "seconds",
                                  "created", "dir"]
    by_id = {r.split("\t")[0]: r.split("\t") for r in rows}
    assert by_id["1a2b3c4d"][2:7] == ["formal_math500 (dfps)", LONG_MODEL, "succeeded",
                                      "symbolic_answer 0.400 ± 0.059", "nightly,lean"]
    assert "\x1b" not in out and "│" not in out
    code, out, _ = run_cli(capsys, "runs", "--format", "json")
    data = json.loads(out)
    first = next(r for r in data if r["id"] == "1a2b3c4d")
    assert first["model"] == LONG_MODEL and first["tokens"] == 123456 and first["seconds"] == 1234.5
    assert first["dir"].endswith("_1a2b3c4d")


def test_bad_format_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "runs", "--format", "csv")
    assert code == 1 and err.strip() == "error: --format must be one of table, tsv, json, got 'csv'"
    code, out, err = run_cli(capsys, "list", "suites", "--format", "xml")
    assert code == 1 and err.strip() == "error: --format must be one of table, tsv, json, got 'xml'"


def test_list_fits_80_columns_with_suite_and_workflow_names_whole(capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli(capsys, "list", "--format", "table")
    assert code == 0, err
    lines = lines_of(out)
    assert all(len(line) <= 80 for line in lines), "\n".join(line for line in lines if len(line) > 80)
    assert "…" not in out
    for name in ("formal_math500", "spada_bench_abstract", "steer_instructions", "histagent", "steertts",
                 "local/smollm2-135m-torch", "scripted/<name|file.json>", "evolving_ac"):
        assert any(line.startswith(name + " ") for line in lines), name


def test_list_in_a_pipe_and_as_json(tmp_path: Path) -> None:
    piped = cli("list", "suites")
    header, *rows = piped.stdout.splitlines()
    assert header == "suite\tversion\tsamples\tworkflow\tscorers\tdescription"
    names = [r.split("\t")[0] for r in rows]
    assert "formal_math500" in names and all(len(r.split("\t")) == 6 for r in rows)
    data = json.loads(cli("list", "--format", "json").stdout)
    assert set(data) == {"workflows", "models", "suites", "backends"}
    assert {"workflow": "agent"}.items() <= data["workflows"][0].items()
    for backend in data["backends"]:
        assert backend["description"].rstrip().endswith((".", ")", "!", "?")), backend  # whole sentences


def test_descriptions_keep_whole_sentences() -> None:
    long = ("First sentence is here. " * 6) + "Second part that would overflow the limit by a lot of words."
    cut = sentences(long, limit=60)
    assert cut == "First sentence is here. First sentence is here."
    assert sentences("One very long sentence " * 20 + "ends.", limit=30).endswith("ends.")  # never mid-sentence
    source = '"""CAGNN: capacity-agnostic learning — subnetworks chosen by\ngraph context, so a pass runs one.\n\n' \
             'More detail.\n"""\n'
    assert docstring_summary(source) == "CAGNN: capacity-agnostic learning — subnetworks chosen by graph context, " \
                                        "so a pass runs one."


def test_fit_widths_drops_optional_columns_before_folding_names() -> None:
    columns = [Column("id"), Column("extra", optional=1), Column("model"), Column("note", "text")]
    rows = [["1a2b3c4d", "x" * 30, LONG_MODEL, "a few words of free text that can wrap"]]
    widths = fit_widths(columns, rows, 60)
    assert widths[1] is None  # the optional column went
    assert widths[0] == 8 and widths[2] == len(LONG_MODEL)  # names whole
    assert widths[3] is not None and sum(w for w in widths if w) + 2 * 2 <= 60
    wide = fit_widths(columns, rows, 200)
    assert wide == [8, 30, len(LONG_MODEL), len(rows[0][3])]
    tight = fit_widths(columns, rows, 30)  # cannot fit: names fold, the table stays in 30 columns
    assert sum(w for w in tight if w) + 2 * (sum(1 for w in tight if w) - 1) <= 30


def test_repro_figures_fit_an_80_column_terminal_and_are_tab_separated_in_a_pipe() -> None:
    """``paperworks repro``'s figure table: in 80 columns no figure name is cut (each is shown whole on one
    line or folded, never with an ellipsis) and the notes may be left out; in a pipe, one tab-separated line
    per figure with the note whole (before: a rich table squeezed to 3-5 characters per column)."""
    import io

    from rich.console import Console

    from paperworks.backends.repro import Figure, ReproResult
    from paperworks.cli.repro_cmd import figures_listing
    from paperworks.cli.tables import show

    note = "mean over seeds [1, 2, 3] ± SE 0.009 (per seed: 0.073, 0.102, 0.098); 64 held-out contexts " * 2
    result = ReproResult(name="gradmem", figures={
        "kv_em[GradMem K=5, 16 pairs]": Figure(0.0908203125, paper="96 pairs at 88.4% EM", note=note),
        "kv_capacity_50[Forward writer (1 pass)]": Figure(0, note="largest tested size")})
    listing = figures_listing(result, "repro gradmem: measured vs the paper's claim")

    term = io.StringIO()
    show(Console(file=term, width=80, force_terminal=True, color_system=None), [listing], None)
    text = term.getvalue()
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "…" not in text
    flat = "".join(text.split())
    assert "kv_em[GradMemK=5,16pairs]" in flat and "kv_capacity_50[Forwardwriter(1pass)]" in flat
    assert "0.09082" in text

    pipe = io.StringIO()
    show(Console(file=pipe, force_terminal=False), [listing], None)
    lines = pipe.getvalue().splitlines()
    assert lines[0].split("\t") == ["figure", "measured", "paper's claim", "how measured"]
    assert lines[1].split("\t") == ["kv_em[GradMem K=5, 16 pairs]", "0.09082", "96 pairs at 88.4% EM", note.strip()]
    assert lines[2].split("\t")[:3] == ["kv_capacity_50[Forward writer (1 pass)]", "0", "—"]
