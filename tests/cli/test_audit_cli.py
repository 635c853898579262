"""Audit regressions for the CLI: a resumed eval refuses options that contradict its run, and the
commands that read a run folder (view, compare, export, eval --resume) answer a damaged one in one line."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from paperworks.cli.app import _main
from paperworks.core import lock
from paperworks.eval import harness
from paperworks.eval.samples_log import SamplesLog
from tests.eval.test_harness import make_suite

ROWS = [{"id": f"q{i}", "question": f"please say {i}", "answer": i} for i in (1, 2, 3)]


def outcome(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Run the CLI in-process: (exit code, stderr)."""
    code = 0
    try:
        _main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err.strip()


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished eval (3 samples, scripted echo: all correct)."""
    tmp = tmp_path_factory.mktemp("finished")
    run = harness.create_eval(harness.EvalArgs(suite=str(make_suite(tmp, ROWS)), model="scripted/echo",
                                               log_dir=str(tmp / "logs")))
    asyncio.run(harness.run_eval(run))
    return run.path


@pytest.mark.parametrize(("argv", "expected"), [
    (["OTHER"], "is a run of suite 'echoes', not '/"),
    (["-m", "scripted/other.json"], "was started with --model 'scripted/echo', not 'scripted/other.json'"),
    (["--limit", "5"], "was started with --limit 2, not 5"),
    (["--epochs", "3"], "was started with --epochs 1, not 3"),
    (["--seed", "7"], "was started with --seed 0, not 7"),
    (["-c", "max_steps=9"], "was started with --config {'max_steps': 2}, not {'max_steps': 9}"),
])
def test_resume_refuses_options_that_contradict_the_run(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                       argv: list[str], expected: str) -> None:
    """``eval --resume RUN`` used to ignore SUITE, --model, --limit ... and silently go on with the run's own."""
    suite = make_suite(tmp_path, ROWS)
    make_suite(tmp_path, ROWS, name="OTHER")
    run = harness.create_eval(harness.EvalArgs(suite=str(suite), model="scripted/echo", limit=2,
                                               config={"max_steps": 2}, log_dir=str(tmp_path / "logs")))
    args = [str(tmp_path / "OTHER") if a == "OTHER" else a for a in argv]
    suite_arg = [args.pop(0)] if argv[0] == "OTHER" else []
    code, err = outcome(capsys, "eval", *suite_arg, "--resume", str(run.path), *args)
    assert code == 1 and err.startswith("error: ") and "\n" not in err and expected in err, err
    assert not (run.path / "samples.jsonl").exists()  # nothing ran
    assert str(run.path.resolve()) not in lock._held  # and the lock was given back
    # the same suite (by path) and the same options resume it
    code, err = outcome(capsys, "eval", str(suite), "--resume", str(run.path), "-m", "scripted/echo", "--limit", "2",
                        "-q")
    assert code == 0, err
    assert sorted(r.id for r in SamplesLog(run.path / "samples.jsonl").read()) == ["q1", "q2"]


def _garbage_samples(d: Path) -> None:
    (d / "samples.jsonl").write_bytes(b"garbage\n\xff\xfe\n[1]\nnull\n" + (d / "samples.jsonl").read_bytes())


def _typed_samples(d: Path) -> None:
    good = (d / "samples.jsonl").read_text().splitlines()
    bad = {**json.loads(good[0]), "scores": [1], "usage": "u", "time_s": "slow"}
    (d / "samples.jsonl").write_text(json.dumps(bad) + "\n" + "\n".join(good[1:]) + "\n")


def _samples_dir(d: Path) -> None:
    (d / "samples.jsonl").unlink()
    (d / "samples.jsonl").mkdir()


def _record(**changes: object) -> Callable[[Path], None]:
    def change(d: Path) -> None:
        record = json.loads((d / "run.json").read_text())
        for key, value in changes.items():
            if value is None:
                record.pop(key, None)
            else:
                record[key] = value
        (d / "run.json").write_text(json.dumps(record))
    return change


def _nonutf8_record(d: Path) -> None:
    (d / "run.json").write_bytes((d / "run.json").read_bytes().replace(b'"eval"', b'"ev\xffal"', 1))


@pytest.mark.parametrize(("damage", "kept"), [
    (_nonutf8_record, None),  # run.json with bytes that are not UTF-8: was UnicodeDecodeError everywhere
    (_garbage_samples, 3),  # undecodable bytes, arrays, nulls: skipped, the 3 good records kept
    (_typed_samples, 2),  # a record whose fields have the wrong types: skipped (resume recomputes it)
    (_samples_dir, None),
    (_record(suite_path=None, suite_data=None), None),
    (_record(sample_ids=7, epochs="x"), None),
])
def test_damaged_run_folders_get_one_line_answers(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  finished: Path, damage: Callable[[Path], None],
                                                  kept: int | None) -> None:
    run = tmp_path / finished.name
    shutil.copytree(finished, run)
    (run / "lock").unlink(missing_ok=True)
    damage(run)
    for argv in (["view", str(run), "-q"], ["compare", str(finished), str(run)],
                 ["export", str(run), "--out", str(tmp_path / "x.json")], ["eval", "--resume", str(run), "-q"]):
        code, err = outcome(capsys, *argv)
        assert "internal error" not in err and "Traceback" not in err and len(err.splitlines()) <= 1, (argv, err)
        assert code == 0 or err.startswith("error: "), (argv, code, err)
    if kept is not None:  # the resumed eval finished: every sample once, none lost
        records = SamplesLog(run / "samples.jsonl").read()
        assert sorted(r.id for r in records) == ["q1", "q2", "q3"]
        assert json.loads((run / "results.json").read_text())["metrics"]["numeric/accuracy"]["value"] == 1.0


@pytest.mark.parametrize("where", ["file", "under_file", "proc"])
def test_a_log_dir_that_cannot_hold_a_run_is_refused_in_one_line(capsys: pytest.CaptureFixture[str],
                                                                 tmp_path: Path, where: str) -> None:
    """``--log-dir`` naming a file (or a place no folder can be made) was an 'internal error' line."""
    suite = make_suite(tmp_path, ROWS)
    (tmp_path / "afile").write_text("x")
    log_dir = {"file": tmp_path / "afile", "under_file": tmp_path / "afile" / "sub", "proc": Path("/proc/nope")}[where]
    before = sorted(tmp_path.rglob("*"))
    code, err = outcome(capsys, "eval", str(suite), "-m", "scripted/echo", "--log-dir", str(log_dir))
    assert code == 1 and err.startswith(f"error: cannot create a run directory in {log_dir}: ") and "\n" not in err
    assert sorted(tmp_path.rglob("*")) == before


def test_view_and_export_refuse_an_out_path_they_cannot_write(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              finished: Path) -> None:
    """``view --out`` a folder, a path under a file, or an unwritable place (and ``export --out`` there) were
    'internal error' lines, and a folder as ``--out`` left ``<folder>.tmp`` behind."""
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    before = sorted(tmp_path.rglob("*"))
    for argv, expected in (
        (["view", str(finished), "-q", "--out", str(tmp_path / "adir")], "is a folder; give the HTML file"),
        (["view", str(finished), "-q", "--out", str(tmp_path / "afile" / "r.html")], "is a file, not a folder"),
        (["view", str(finished), "-q", "--out", "/proc/r.html"], "--out /proc/r.html: cannot write the report"),
        (["export", str(finished), "--out", "/proc/x.json"], f"cannot export {finished}: cannot write /proc/"),
    ):
        code, err = outcome(capsys, *argv)
        assert code == 1 and err.startswith("error: ") and expected in err and "\n" not in err, (argv, err)
    assert sorted(tmp_path.rglob("*")) == before
    code, err = outcome(capsys, "view", str(finished), "-q", "--out", str(tmp_path / "new" / "r.html"))
    assert code == 0 and (tmp_path / "new" / "r.html").read_text().startswith("<!")  # a good --out still works
