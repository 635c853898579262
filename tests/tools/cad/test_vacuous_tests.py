"""A model's own test that asserts nothing passes whatever the geometry: the judge's checks child (our code)
reads the tests' source and such a test counts as failed, however the tests child reports it."""

from __future__ import annotations

import pytest

from paperworks.tools.cad.judge import vacuous_tests
from paperworks.tools.cad.sandbox import WorkerPool
from tests.tools.cad.test_sandbox import PIN_IN_PLATE

SOURCE = '''
def helper(x):
    assert x > 0, "x must be positive"

def deeper(x):
    helper(x)

def test_through_helpers(ctx):
    deeper(ctx.volume("pin"))

def test_only_reads(ctx):
    ctx.volume("pin")

def test_fit_checks(ctx):
    ctx.fit("pin", "plate", max_mm=1)

def test_raises(ctx):
    if ctx.volume("pin") < 0:
        raise ValueError("negative volume")

def test_constant_assert(ctx):
    assert True, "always"

def test_always_fails(ctx):
    assert False, "never passes, so it is not vacuous"

def test_redefined(ctx):
    pass

def test_redefined(ctx):
    assert ctx.volume("pin") > 0

def test_nested_def_only(ctx):
    def inner():
        return 1
    inner()
'''


def test_which_tests_can_check_nothing() -> None:
    assert vacuous_tests(SOURCE) == ["test_only_reads", "test_constant_assert", "test_nested_def_only"]
    assert vacuous_tests("def test_a(ctx):\n    assert ctx.params['w'] == 20\n") == []


@pytest.mark.slow
def test_a_vacuous_test_fails_the_candidate_in_the_sandbox(pool: WorkerPool) -> None:
    tests = "def test_real(ctx):\n    assert ctx.volume('pin') > 0, 'pin has no volume'\n" \
            "def test_empty(ctx):\n    ctx.bbox('pin')\n"
    r = pool.check(PIN_IN_PLATE, tests, params={"pin_z": 0})
    outcome = {t.name: (t.passed, t.message) for t in r.tests}
    assert outcome["test_real"] == (True, "passed")
    assert outcome["test_empty"][0] is False and "asserts nothing" in outcome["test_empty"][1]
    assert not r.ok
    alone = pool.check(PIN_IN_PLATE, "def test_real(ctx):\n    assert ctx.volume('pin') > 0\n", params={"pin_z": 0})
    assert [t.passed for t in alone.tests] == [True]
