"""``paperworks repro gradmem --quick`` runs end to end and writes results.json and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch")


@pytest.mark.slow
def test_repro_gradmem_quick_writes_results(tmp_path: Path) -> None:
    from paperworks.backends.repro import repro_names, run_repro

    assert "gradmem" in repro_names()
    res, path = run_repro("gradmem", tmp_path, quick=True)
    data = json.loads(path.read_text())
    assert data["name"] == "gradmem" and data["quick"] is True
    assert data["command"] == f"paperworks repro gradmem --quick --out {tmp_path}"
    figs = data["figures"]
    for label in ("GradMem K=1", "GradMem K=2", "GradMem K=5", "Forward writer (1 pass)"):
        for n in (1, 2, 4):
            assert 0.0 <= figs[f"kv_em[{label}, {n} pairs]"]["value"] <= 1.0
    assert "88.4%" in figs["kv_best_gradmem_em_at_largest"]["paper"]
    assert figs["kv_gradmem_minus_forward_mean"]["paper"]
    assert len(set(data["extra"]["memory_parameters"].values())) == 1  # every writer has the same memory size
    for name in data["plots"]:
        assert (tmp_path / name).stat().st_size > 1000
    if "story_floor" in figs:  # the embedded model is installed
        assert 0.0 <= figs["story_floor"]["value"] <= 1.0
        assert {f"story_em[K={k}]" for k in (0, 1, 2)} <= set(figs)
        assert "story_em_vs_steps.png" in data["plots"]
    assert data["config"]["reported_seeds"] == [1] and data["config"]["validation_seeds"] == [0]
    diffs = data["extra"]["definition_differences"]
    assert diffs and all(set(d) == {"item", "authors", "ours", "reason"} for d in diffs)
    grid = data["extra"]["kv_capacity_grid"]
    assert set(grid) == {"m=4", "m=8"} and set(grid["m=4"]) == {"20", "40"}
    # the grid's m = 8 cell at the main run's step count is the main comparison's K = 2 writer
    assert grid["m=8"]["40"]["per_seed"]["1"] == data["extra"]["kv_em_per_seed"]["GradMem K=2"]["1"]
    assert "kv_capacity_grid.png" in data["plots"]
    assert data["elapsed_s"] < 600  # a hang guard; speed is a benchmark's job


def test_repro_tasks_cover_every_writer_and_grid_cell_largest_first() -> None:
    from dataclasses import replace

    from paperworks.backends.gradmem.repro import _tasks, preset

    cfg = replace(preset(False), grid="m=4,8,16;steps=100,300", grid_seeds=(1,))
    tasks = _tasks(cfg)
    main = [t for t in tasks if t[0] == "main"]
    assert {(s, label) for _, s, _, label in main} == {
        (s, label) for s in (1, 2, 3)
        for label in ("GradMem K=1", "GradMem K=2", "GradMem K=5", "Forward writer (1 pass)")}
    # m = 8 comes from the main comparison's K = 2 writer; the others only for the grid seeds
    assert [(s, m) for kind, s, m, _ in tasks if kind == "grid"] == [(1, 16), (1, 4)]
    assert tasks[0][3] == "GradMem K=5"  # 8 vectors x 5 steps is the most expensive task
    assert set(cfg.reported_seeds).isdisjoint(cfg.validation_seeds)


def test_reused_story_part_is_copied_and_labelled(tmp_path: Path) -> None:
    from paperworks.backends.gradmem.repro import _reuse_story
    from paperworks.backends.repro import ReproResult

    old = {"command": "paperworks repro gradmem --out X", "elapsed_s": 443.8, "plots": ["story_em_vs_steps.png"],
           "figures": {"story_floor": {"value": 0.25, "paper": None, "unit": "", "note": "kept stories"},
                       "kv_em[x]": {"value": 1.0, "note": ""}},
           "extra": {"story": {"floor": 0.25}}}
    (tmp_path / "results.json").write_text(json.dumps(old))
    (tmp_path / "story_em_vs_steps.png").write_bytes(b"png")
    res = ReproResult(name="gradmem")
    _reuse_story(res, tmp_path)
    assert set(res.figures) == {"story_floor"}
    assert res.figures["story_floor"].value == 0.25
    assert res.figures["story_floor"].note.startswith("carried over unchanged from the previous run")
    assert res.extra["story"] == {"floor": 0.25} and res.plots == ["story_em_vs_steps.png"]
