"""``paperworks eval --display full`` (and ``rich``) is Inspect's live task display: a panel titled with the
suite, its sample count and the model, the eval's settings under the title, a progress bar with the running
accuracy, and a footer with errors, tokens and calls; redrawn in place on a terminal, drawn once on a pipe."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from paperworks.cli.eval_display import PanelView, make_view
from paperworks.eval import harness
from tests.cli.test_runs_view import run_cli
from tests.eval.test_harness import make_suite

# the scripted echo model answers "say N": s1-s3 pass, s4's target is 99 (accuracy 3/4)
ROWS = [{"id": f"s{i}", "question": f"say {i}", "answer": i if i < 4 else 99} for i in range(1, 5)]
CURSOR_UP = "\x1b[1A"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

pytestmark = pytest.mark.slow  # 2-3 s each here (real evals on the scripted model)


def _run_with_view(tmp_path: Path, console: Console) -> tuple[PanelView, harness.Results]:
    run = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp_path, ROWS)), model="scripted/echo",
                                               epochs=2, message_limit=5, generation={"temperature": 0.5},
                                               tags=["smoke"], log_dir=str(tmp_path / "runs")))
    view = make_view("full", console, run.path)
    assert isinstance(view, PanelView)
    with view.showing():
        results = asyncio.run(harness.run_eval(run, view))
    return view, results


def _final_panel(text: str) -> list[str]:
    """The lines of the last panel drawn."""
    lines = ANSI.sub("", text).splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("╭─"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("╰"))
    return [line.strip("│ ").strip() for line in lines[start:end + 1]]


def test_full_is_a_live_panel_redrawn_in_place_on_a_terminal(tmp_path: Path) -> None:
    out = io.StringIO()
    _, results = _run_with_view(tmp_path, Console(file=out, force_terminal=True, width=160, color_system=None))
    text = out.getvalue()
    assert text.count(CURSOR_UP) >= 6  # the 7-line panel was redrawn over itself at least once
    panel = _final_panel(text)
    assert panel[0].startswith("╭─ echoes (4 x 2 samples): scripted/echo ─")
    assert panel[1] == ("workflow: agent, max_steps: 2, tools: ['calculate'], temperature: 0.5, epochs: 2, "
                        "max_samples: 4, message_limit: 5, tags: smoke")
    assert re.fullmatch(r"eval ━+ 8/8 accuracy 0\.750 \d:\d\d:\d\d", panel[3]), panel[3]
    tokens = int(results.metrics["tokens/mean"]["value"] * 8)
    assert re.fullmatch(rf"errors 0 +{tokens:,} tokens · 8 calls", panel[5]), panel[5]


def test_full_on_a_pipe_draws_the_final_panel_once_without_control_characters(tmp_path: Path) -> None:
    out = io.StringIO()
    _run_with_view(tmp_path, Console(file=out, width=110))  # a file: not a terminal
    text = out.getvalue()
    assert "\x1b" not in text and "\r" not in text
    assert text.count("╭─ echoes (4 x 2 samples)") == 1
    assert re.search(r"eval ━+ 8/8 accuracy 0\.750", text)


@pytest.mark.parametrize("display", ["full", "rich"])
def test_eval_display_full_and_rich_show_the_panel(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                   display: str) -> None:
    code, out, err = run_cli(capsys, "eval", str(make_suite(tmp_path, ROWS)), "-m", "scripted/echo",
                             "--display", display, "--limit", "2")
    assert code == 0, err
    assert "╭─ echoes (2 samples): scripted/echo" in out
    assert re.search(r"eval ━+ 2/2 accuracy 1\.000", out), out
    assert out.index("╭─ echoes") < out.index("numeric/accuracy")  # then the results table
