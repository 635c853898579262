"""The thread tuner picks the measured-faster thread count per step size and follows a change of load."""

from __future__ import annotations

import pytest

from paperworks.models.local.threads import ThreadTuner


def drive(tuner: ThreadTuner, n_tokens: int, cost: dict[int, float], steps: int) -> list[int]:
    """Run ``steps`` steps where a token costs ``cost[threads]`` seconds; the thread counts used."""
    used = []
    for _ in range(steps):
        t = tuner.choose(n_tokens)
        tuner.record(n_tokens, t, cost[t] * n_tokens)
        used.append(t)
    return used


def test_warms_up_then_uses_the_faster() -> None:
    tuner = ThreadTuner((1, 2), warmup=3, explore_every=50, probe=2)
    used = drive(tuner, 4, {1: 2e-3, 2: 1e-3}, 40)
    assert used[:6] == [1, 1, 1, 2, 2, 2]
    assert used[6:] == [2] * 34
    assert tuner.estimate(4, 2) == pytest.approx(1e-3)
    assert tuner.estimate(4, 1) == pytest.approx(2e-3)


def test_follows_a_change_of_load() -> None:
    tuner = ThreadTuner((1, 2), warmup=2, explore_every=10, probe=2, window=3, max_interval=20)
    drive(tuner, 8, {1: 2e-3, 2: 1e-3}, 30)
    assert tuner.best(8) == 2
    # another process now competes for the cores: two threads become ten times slower
    used = drive(tuner, 8, {1: 2e-3, 2: 2e-2}, 40)
    assert tuner.best(8) == 1
    assert used[-20:].count(1) >= 16
    assert used.count(2) <= 2 + 2 * (40 // 10)  # the window's turnover, then at most one 2-step probe per 10
    # and back: the periodic probe of 2 threads finds the cores free again
    used = drive(tuner, 8, {1: 2e-3, 2: 1e-3}, 40)
    assert tuner.best(8) == 2 and used[-20:].count(2) >= 16


def test_step_sizes_are_tuned_apart() -> None:
    tuner = ThreadTuner((1, 2), warmup=1, explore_every=100)
    drive(tuner, 1, {1: 1e-3, 2: 3e-3}, 10)  # one request alone: one thread wins
    drive(tuner, 6, {1: 1e-3, 2: 4e-4}, 10)  # several together: two threads win
    assert tuner.best(1) == 1 and tuner.best(5) == 2
    assert ThreadTuner.bucket_of(4) == ThreadTuner.bucket_of(7) != ThreadTuner.bucket_of(8)
    summary = tuner.summary()
    assert summary["1"]["steps_1_threads"] == 9 and summary["4-7"]["steps_2_threads"] == 9


def test_probes_of_a_losing_choice_back_off() -> None:
    tuner = ThreadTuner((1, 2), warmup=1, explore_every=20, probe=2, max_interval=80)
    used = drive(tuner, 4, {1: 2e-3, 2: 1e-3}, 400)
    # warm-up at 0; probes of the slower one at 20, then after 40, 80, 80, ... steps (doubling, capped)
    assert [i for i, t in enumerate(used) if t == 1] == [0, 20, 21, 62, 63, 144, 145, 226, 227, 308, 309, 390, 391]


def test_a_winning_probe_resets_the_interval() -> None:
    tuner = ThreadTuner((1, 2), warmup=1, explore_every=10, probe=2, window=2, max_interval=80)
    drive(tuner, 4, {1: 2e-3, 2: 1e-3}, 100)  # 1 loses every probe: the interval has grown
    assert tuner.best(4) == 2
    used = drive(tuner, 4, {1: 1e-3, 2: 2e-3}, 200)  # now 1 is faster: its next probe wins
    switch = used.index(1)
    assert used[switch:switch + 8] == [1] * 8 and tuner.best(4) == 1
    probes = [i for i, t in enumerate(used) if t == 2 and i > switch and used[i - 1] == 1]
    assert probes[0] - switch <= 12  # back to probing every 10 steps, not every 80
    assert probes[1] - probes[0] >= 20  # that probe lost: the interval doubles again


def test_bad_choices() -> None:
    with pytest.raises(ValueError):
        ThreadTuner(())
    with pytest.raises(ValueError):
        ThreadTuner((0, 2))
    with pytest.raises(ValueError):
        ThreadTuner((1, 2), explore_every=50, max_interval=10)
    assert ThreadTuner((2,)).choose(5) == 2
