"""``paperworks repro``: progress lines, a labelled table whose cells are markup-escaped, the command and the
measured time recorded in results.json."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from paperworks.backends.repro import REPROS, Figure, Progress, ReproResult, command_line
from paperworks.cli import repro_cmd
from tests.conftest import cli


def fake_run(out: Path, quick: bool, scale: str, progress: Progress) -> ReproResult:
    """A stand-in experiment whose names and notes look like rich markup."""
    progress("stage one [of two]")
    progress("stage two")
    res = ReproResult(name="fake")
    res.figures["hit_rate[least-stale, no prefetch]"] = Figure(0.123456, paper=">88% [at 5%]", note="[bold]x[/bold]")
    res.figures["hit_rate[lru, no prefetch]"] = Figure(0.5, note="plain")
    res.figures["collision_ratio[prefetch]"] = Figure(None, paper="up to 85x", note="LRU 12 vs Least-Stale 0")
    return res


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    monkeypatch.setitem(REPROS, "fake", f"{__name__}:fake_run")
    buf = io.StringIO()
    monkeypatch.setattr(repro_cmd, "console", Console(file=buf, width=220, force_terminal=False))
    return buf


def test_table_rows_are_labelled_and_escaped(captured: io.StringIO, tmp_path: Path) -> None:
    repro_cmd.repro_command(name="fake", quick=True, out=tmp_path, scale="cpu")
    text = captured.getvalue()
    for line in ("stage one [of two]", "stage two"):  # progress, in order
        assert line in text
    assert text.index("stage one") < text.index("stage two") < text.index("hit_rate[least-stale, no prefetch]")
    for cell in ("hit_rate[least-stale, no prefetch]", "hit_rate[lru, no prefetch]", "collision_ratio[prefetch]",
                 ">88% [at 5%]", "[bold]x[/bold]", "0.1235", "n/a", "measured", "paper's claim"):
        assert cell in text, cell
    assert text.count("hit_rate[") == 2  # each figure under its own name, not a bare "hit_rate"
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["command"] == f"paperworks repro fake --quick --out {tmp_path}"
    assert data["figures"]["collision_ratio[prefetch]"]["value"] is None
    assert 0 <= data["elapsed_s"] < 60


def test_command_line() -> None:
    assert command_line("otb") == "paperworks repro otb"
    assert command_line("specmd", True, "gpu", Path("x")) == "paperworks repro specmd --quick --scale gpu --out x"


@pytest.mark.slow
def test_unknown_experiment_is_a_user_error() -> None:
    out = cli("repro", "nosuch")
    assert out.returncode == 1
    assert "unknown experiment 'nosuch'" in out.stdout + out.stderr
