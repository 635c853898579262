"""Experiment tracking: scalars read back from the TensorBoard event files equal what was tracked and what
results.json holds; ``paperworks repro cagnn --quick --tensorboard DIR`` writes the training curves; a bad
DIR is a one-line error before the run; tracking changes no seeded result; no tracker, no cost."""

from __future__ import annotations

import json
import math
import threading
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paperworks.core import tracking
from paperworks.core.tracking import TrackingWarning, recording, scope, track
from tests.conftest import cli

pytest.importorskip("tensorboard")
torch = pytest.importorskip("torch")


def read_events(log_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar in ``log_dir``'s event files, by tag, as (step, value)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(log_dir), size_guidance={"scalars": 0})  # 0: keep every event, no sampling
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def f32(x: float) -> float:
    """What an event file stores (a float32 simple_value)."""
    return float(np.float32(x))


def test_tracked_values_round_trip_through_event_files(tmp_path: Path) -> None:
    losses = [2.5, 1.25, 0.1 + 0.2, 1 / 3]
    with recording(tmp_path) as tr:
        for step, loss in enumerate(losses):
            track("train/loss", loss, step * 10)
        with scope("GRPO N=4"), scope("seed0"):
            track("reward", torch.tensor(0.75))  # a 0-d tensor; no step: 0, then 1
            track("reward", np.float32(0.5))
        track("auto", 7)
    expected = {"train/loss": [[10 * i, v] for i, v in enumerate(losses)],
                "grpo_n_4/seed0/reward": [[0, 0.75], [1, 0.5]], "auto": [[0, 7.0]]}
    assert tr.scalars() == expected
    events = read_events(tmp_path)
    assert set(events) == set(expected)
    for tag, points in expected.items():
        assert events[tag] == [(s, f32(v)) for s, v in points], tag


def test_bad_values_are_skipped_and_counted(tmp_path: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with recording(tmp_path) as tr:
            for i, v in enumerate([1.0, float("nan"), "x", None, float("inf"), torch.ones(3), 2.0]):
                track("m", v, i)
    assert tr.scalars() == {"m": [[0, 1.0], [6, 2.0]]}
    assert tr.skipped == {"m": 5}
    texts = [str(w.message) for w in caught if issubclass(w.category, TrackingWarning)]
    assert len(texts) == 2  # the first skip of the tag, then the summary at close
    assert "skipped 5 non-numeric or non-finite value(s): m (5)" in texts[1]
    assert read_events(tmp_path) == {"m": [(0, 1.0), (6, 2.0)]}


def test_no_tracker_is_a_cheap_no_op() -> None:
    class Exploding:
        def item(self) -> float:
            raise AssertionError("read without a tracker")

    assert tracking.current() is None
    track("x", Exploding(), 0)  # nothing is read or converted
    with recording() as tr:  # in memory only: no event files anywhere
        track("x", 1.0, 0)
        assert tracking.current() is tr
    assert tracking.current() is None
    track("x", 2.0, 1)
    assert tr.scalars() == {"x": [[0, 1.0]]}


def test_threads_started_inside_record_into_the_run() -> None:
    with recording() as tr:
        def work(k: int) -> None:
            for i in range(200):
                track(f"t{k}", float(i), i)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert tr.scalars() == {f"t{k}": [[i, float(i)] for i in range(200)] for k in range(4)}


@pytest.mark.slow
def test_repro_cli_writes_training_curves_and_the_same_scalars_to_results(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from paperworks.cli.app import app

    out, tb = tmp_path / "out", tmp_path / "tb"
    res = CliRunner().invoke(app, ["repro", "cagnn", "--quick", "--out", str(out), "--tensorboard", str(tb)])
    assert res.exit_code == 0, res.output
    data = json.loads((out / "results.json").read_text())
    scalars: dict[str, list[list[float]]] = data["scalars"]
    assert data["command"].endswith(f"--tensorboard {tb}")
    events = read_events(tb / "cagnn")
    assert set(events) == set(scalars)
    for tag, points in scalars.items():
        assert events[tag] == [(int(s), f32(v)) for s, v in points], tag
    # a training curve: one loss per epoch for every task of every method, falling while CAGNN learns task 0
    epochs = data["config"]["train"]["epochs"]
    curve = [v for _, v in scalars["cagnn/seed0/task0/loss"]]
    assert [s for s, _ in scalars["cagnn/seed0/task0/loss"]] == list(range(epochs))
    assert curve[-1] < 0.5 * curve[0]
    for method in ("fine-tune", "ewc", "replay_er-gnn", "expanding"):
        assert len(scalars[f"{method}/seed0/task4/loss"]) == epochs, method
    # the per-task accuracy curve is the accuracy matrix the repro reports, row means
    acc = data["extra"]["runs"]["CAGNN"][0]["acc"]
    assert [v for _, v in scalars["cagnn/seed0/stream/avg_acc_seen"]] == pytest.approx(
        [sum(row) / len(row) for row in acc], abs=1e-12)
    # every numeric headline figure, at step 0
    for key, fig in data["figures"].items():
        if isinstance(fig["value"], int | float) and math.isfinite(fig["value"]):
            assert scalars[f"figures/{key}"] == [[0, fig["value"]]], key


def test_each_run_gets_its_own_folder(tmp_path: Path) -> None:
    from paperworks.cli.repro_cmd import tensorboard_run_dir

    first = tensorboard_run_dir(tmp_path / "tb", "otb")
    second = tensorboard_run_dir(tmp_path / "tb", "otb")
    assert first == tmp_path / "tb" / "otb" and first.is_dir()
    assert second.parent == first.parent and second.name.startswith("otb-") and second.is_dir()
    assert tensorboard_run_dir(tmp_path / "tb", "otb") not in (first, second)


def _seeded(figures: dict[str, Any]) -> dict[str, Any]:
    """Figures that do not depend on wall/CPU time."""
    return {k: v["value"] for k, v in figures.items() if "time" not in k and "cpu_s" not in k}


@pytest.mark.slow
def test_untracked_run_gives_the_same_results(tmp_path: Path) -> None:
    """The experiment function called with no tracker at all against a tracked ``run_repro`` with event files:
    identical seeded figures and accuracy matrices."""
    from paperworks.backends.cagnn.repro import run
    from paperworks.backends.repro import run_repro

    plain = run(out=tmp_path / "plain", quick=True)
    tracked, _ = run_repro("cagnn", tmp_path / "tracked", quick=True, tensorboard=tmp_path / "tb")
    assert _seeded({k: {"value": f.value} for k, f in plain.figures.items()}) == \
        _seeded({k: {"value": f.value} for k, f in tracked.figures.items()})
    assert plain.scalars == {} and tracked.scalars
    assert _accuracy(plain.extra) == _accuracy(tracked.extra)
    assert plain.extra["cagnn_unit_reuse"] == tracked.extra["cagnn_unit_reuse"]


def _accuracy(extra: dict[str, Any]) -> dict[str, list[Any]]:
    """Each method's accuracy matrices (per seed) and counted costs: everything but wall times."""
    return {n: [(r["acc"], r["params"], r["macs"], r["stored"]) for r in runs] for n, runs in extra["runs"].items()}


@pytest.mark.parametrize("kind", ["file", "unwritable"])
def test_bad_tensorboard_dir_is_a_one_line_error_before_the_run(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "tb"
    if kind == "file":
        target.write_text("x")
    else:
        import os

        if os.geteuid() == 0:
            target = Path("/proc/paperworks-tb")  # root may write anywhere else
        else:
            target.mkdir(mode=0o500)
    out = cli("repro", "cagnn", "--quick", "--out", str(tmp_path / "out"), "--tensorboard", str(target))
    assert out.returncode == 1
    text = (out.stdout + out.stderr).strip()
    assert f"--tensorboard {target}" in text and "Traceback" not in text
    assert len(text.splitlines()) == 1, text
    assert not (tmp_path / "out").exists()  # nothing ran


def test_tensorboard_without_the_package_is_one_line_before_anything_is_created(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    from paperworks.cli.repro_cmd import tensorboard_run_dir
    from paperworks.core.errors import UserError

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "tensorboard" else real(name, *a))
    with pytest.raises(UserError, match="needs the tensorboard package"):
        tensorboard_run_dir(tmp_path / "tb", "cagnn")
    assert not (tmp_path / "tb").exists()
