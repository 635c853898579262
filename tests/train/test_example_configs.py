"""Every ``examples/train_*.yaml`` is a valid ``paperworks train`` config: its settings validate and pass the
CLI's pre-flight checks (workflow, suites, scorer, shaping terms, model), so a README command never fails on
its own example file."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperworks.cli.train_cmd import _check
from paperworks.train.settings import read_yaml, settings_from

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("train_*.yaml"))


def test_there_are_examples() -> None:
    assert {p.name for p in EXAMPLES} >= {"train_arith.yaml", "train_spada.yaml", "train_spada_rl.yaml"}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_config_passes_the_preflight(path: Path) -> None:
    settings = settings_from(read_yaml(str(path)), str(path))
    _check(settings)
