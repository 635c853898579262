"""What the CLI refuses before anything is created or loaded: bad options, settings, scorers, targets,
models and missing credentials (one line, exit 1, no run directory), and a second writer of a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from paperworks.cli.app import _main
from paperworks.eval import harness
from tests.conftest import cli
from tests.core.test_lock import hold_in_child
from tests.eval.test_harness import make_suite


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run the CLI in-process; it must exit 1 with one ``error:`` line and leave no run directory."""
    with pytest.raises(SystemExit) as exc:
        _main(list(argv))
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 1, err
    assert err.startswith("error: ") and "\n" not in err, err
    runs = Path(os.environ["PAPERWORKS_RUNS_DIR"])
    assert not runs.exists() or not any(runs.iterdir()), "a run directory was left behind"
    return err


@pytest.fixture
def suite(tmp_path: Path) -> str:
    return str(make_suite(tmp_path))


@pytest.mark.parametrize(("argv", "expected"), [
    (["--epochs", "0"], "--epochs must be at least 1, got 0"),
    (["--time-limit", "0"], "--time-limit must be greater than 0"),
    (["--working-limit", "-1"], "--working-limit must be greater than 0"),
    (["--token-limit", "0"], "--token-limit must be greater than 0"),
    (["--cost-limit", "0"], "--cost-limit must be greater than 0"),
    (["--timeout", "0"], "--timeout must be greater than 0"),
    (["--max-retries", "-1"], "--max-retries must be 0 or more"),
    (["--gen", "temperature=50"], "--gen: temperature must be between 0 and 2, got 50"),
    (["--gen", "top_p=0"], "--gen: top_p must be in (0, 1], got 0"),
    (["--gen", "max_tokens=0"], "--gen: max_tokens must be >= 1"),
    (["-m", "local/nonexistent"], "unknown local model 'local/nonexistent'; embedded models: local/smollm2-135m"),
    (["-m", "scripted/missing.json"], "scripted model 'scripted/missing.json': no script file missing.json"),
    (["-m", "scripted/nope"], "unknown scripted model 'scripted/nope'"),
    (["-m", "openai/gpt-4o-mini"], "needs the environment variable OPENAI_API_KEY, which is not set"),
    (["-m", "anthropic/claude-3-5-haiku-latest"], "ANTHROPIC_API_KEY"),
])
def test_eval_refuses_bad_options_and_models(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                             suite: str, argv: list[str], expected: str) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    model = [] if "-m" in argv else ["-m", "scripted/echo"]
    assert expected in refused(capsys, "eval", suite, *model, *argv)


@pytest.mark.parametrize(("argv", "expected"), [
    (["-c", "colour=red"], "unknown setting 'colour' for workflow 'agent'; valid settings: max_steps, tools"),
    (["--gen", "temperature=hot"], "--gen: temperature must be a number, got 'hot'"),
    (["--gen", "max_tokens=0"], "--gen: max_tokens must be >= 1"),
    (["--gen", "nucleus=0.9"], "unknown generation setting 'nucleus'"),
    (["--time-limit", "-5"], "--time-limit must be greater than 0"),
    (["-m", "local/nonexistent"], "unknown local model 'local/nonexistent'"),
    (["-m", "scripted/missing.json"], "no script file missing.json"),
])
def test_run_refuses_bad_settings_and_models(capsys: pytest.CaptureFixture[str], argv: list[str],
                                             expected: str) -> None:
    model = [] if "-m" in argv else ["-m", "scripted/echo"]
    assert expected in refused(capsys, "run", "agent", "-i", "hi", *model, *argv)


def _suite(tmp: Path, scorers: str, answer: object = 4) -> str:
    folder = tmp / "s"
    folder.mkdir(parents=True)
    (folder / "suite.yaml").write_text("name: s\nworkflow: agent\ndata: data.jsonl\ninput: {task: '{q}'}\n"
                                       f"target: a\nscorers: {scorers}\n")
    (folder / "data.jsonl").write_text(json.dumps({"q": "say 4", "a": answer}) + "\n")
    return str(folder)


def test_unknown_scorer_and_bad_scorer_arguments_fail_at_suite_load(capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    err = refused(capsys, "eval", _suite(tmp_path / "a", "[numerik]"), "-m", "scripted/echo")
    assert "s/suite.yaml:6: field 'scorers[0]': unknown scorer 'numerik'; known:" in err and "numeric" in err
    err = refused(capsys, "eval", _suite(tmp_path / "b", "[{name: numeric, args: {tolerance: 1}}]"),
                  "-m", "scripted/echo")
    assert "unknown argument(s) ['tolerance']" in err


def test_a_target_the_scorer_cannot_use_fails_at_suite_load(capsys: pytest.CaptureFixture[str],
                                                            tmp_path: Path) -> None:
    err = refused(capsys, "eval", _suite(tmp_path, "[numeric]", answer="four"), "-m", "scripted/echo")
    assert "s/data.jsonl:1" in err and "scorer 'numeric' needs a numeric target, got 'four'" in err


def test_an_unknown_suite_says_where_it_looked(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERWORKS_EVALS_DIR", str(tmp_path / "mine"))
    err = refused(capsys, "eval", "nosuch", "-m", "scripted/echo")
    assert "unknown suite 'nosuch' (looked in" in err and "evals/" in err and str(tmp_path / "mine") in err


def test_a_second_writer_of_an_eval_or_run_is_refused_in_one_line(tmp_path: Path) -> None:
    run = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp_path)), model="scripted/echo", limit=2))
    child = hold_in_child(run.path)
    try:
        proc = cli("eval", "--resume", str(run.path))
        assert proc.returncode == 1
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and f"in use by process {child.pid}" in lines[0], proc.stderr
        assert proc.stdout.strip() == ""
        assert not (run.path / "samples.jsonl").exists()  # the refused process wrote nothing
    finally:
        child.kill()
        child.wait()
    proc = cli("eval", "--resume", str(run.path), "-q")  # the killed holder's lock is taken over
    assert proc.returncode == 0, proc.stderr
    assert len((run.path / "samples.jsonl").read_text().splitlines()) == 2


def test_a_second_run_resume_is_refused(tmp_path: Path) -> None:
    from paperworks.workflows import runner
    from paperworks.workflows.registry import get_workflow

    run = runner.create_run(get_workflow("agent"), "hi", model="scripted/echo")
    child = hold_in_child(run.path)
    try:
        proc = cli("run", "--resume", run.id)
        assert proc.returncode == 1 and f"in use by process {child.pid}" in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout.strip() == ""
    finally:
        child.kill()
        child.wait()


def test_a_provider_error_is_printed_once(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from tests.cli.test_runs_view import run_cli
    from tests.eval.test_harness import script

    failing = script(tmp_path, {"text": "", "fail_first": 1000, "error": "bad_request"})
    code, out, err = run_cli(capsys, "eval", str(make_suite(tmp_path)), "-m", failing, "--limit", "3", "-q")
    assert code == 0
    everything = out + err
    assert everything.count("scripted bad request") == 1, everything
    assert f"error (3 samples): model '{failing}': BadRequestError: scripted bad request" in err
    code, out, err = run_cli(capsys, "run", "agent", "-i", "hi", "-m", failing)
    assert code == 1 and (out + err).count("scripted bad request") == 1, out + err
