"""Audit regressions for the CAD sandbox and SPADA's reply parsing: hostile data that crosses a
sandbox boundary (deeply nested JSON from a candidate's manifest or from model-written tests' answer
pipe, a model reply) ends as a clean failure with a reason, never as an exception in the host; and
the ``unshare`` fallback gives the sandbox its own /proc (no view of the caller's processes, so no
reading their environment, and zygotes stay warm instead of being replaced after every job)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from paperworks.agents.spada.parse import extract_json, normalise_spec
from paperworks.tools.cad import isolation
from paperworks.tools.cad.sandbox import CheckOptions, SandboxLimits, WorkerPool
from tests.tools.cad.conftest import sandbox_uids

LIMITS = SandboxLimits(wall_s=10, cpu_s=8, memory_mb=512, output_kb=16, files_mb=8)
OPTIONS = CheckOptions(renders=False, exports=False)
PLATE = "import cadquery as cq\nresult = cq.Assembly().add(cq.Workplane().box(5, 5, 5), name='plate')\n"
PASSING = "def test_a(ctx):\n    assert ctx is not None\n"


def _at_depth(frames: int, fn: Callable[[], object]) -> object:
    """Call ``fn`` ``frames`` Python frames deeper (a host that calls the sandbox from deep in its stack:
    LangGraph, asyncio, pytest)."""
    return fn() if frames <= 0 else _at_depth(frames - 1, fn)


@pytest.mark.slow
def test_deeply_nested_manifest_fails_cleanly(pool: WorkerPool) -> None:
    """A candidate that writes ``[[[[...]]]]`` as its manifest (or nests PARAMS ~1000 deep) used to raise
    RecursionError out of ``pool.check`` in the host."""
    forger = "import os\nopen('manifest.json', 'w').write('[' * 200000 + ']' * 200000)\nos._exit(0)\n"
    r = pool.check(forger, PASSING, options=OPTIONS, limits=LIMITS)
    assert not r.ok and r.stage == "build" and "manifest.json is malformed" in (r.error or ""), r
    deep = ("import cadquery as cq\nx = []\nfor _ in range(985):\n    x = [x]\nPARAMS = {'a': x}\n"
            "def build(p):\n    return cq.Assembly().add(cq.Workplane().box(5, 5, 5), name='plate')\n")
    r = _at_depth(100, lambda: pool.check(deep, PASSING, options=OPTIONS, limits=LIMITS))
    assert not r.ok and "nested deeper than 32 levels" in (r.error or ""), r  # type: ignore[union-attr]
    assert not sandbox_uids(pool)
    assert pool.check(PLATE, PASSING, options=OPTIONS, limits=LIMITS).ok  # the pool still works


@pytest.mark.parametrize("depth", [970, 200000])
def test_deeply_nested_answer_of_model_tests_fails_cleanly(pool: WorkerPool, depth: int) -> None:
    """Model-written tests write a nested answer straight onto their pipe: ~970 levels parsed in the judge
    zygote but raised RecursionError in the host's parse of its reply (deeper stack); 200000 levels
    made the judge zygote answer with an error (replaced). Both now: the tests gave no answer."""
    answer = (b'{"error": null, "tests": [{"name": "test_a", "passed": true, "message": "x", "junk": '
              + b"[" * depth + b"]" * depth + b"}]}")
    tests = f"import os\nos.write(3, {answer!r})\nos._exit(0)\ndef test_a(ctx):\n    assert False\n"
    replaced = pool.replaced
    r = _at_depth(60, lambda: pool.check(PLATE, tests, options=OPTIONS, limits=LIMITS))
    assert not r.ok and r.stage == "tests" and r.error == "the tests gave no answer", r  # type: ignore[union-attr]
    assert [(t.name, t.passed) for t in r.tests] == [("test_a", False)]  # type: ignore[union-attr]
    assert pool.replaced == replaced  # the judge zygote stayed healthy


def test_a_test_defined_twice_runs_once_as_in_python(pool: WorkerPool) -> None:
    """A tests file that redefines a test (copy-paste) was an error on every run ("extra or repeated:
    test_a"), which SPADA's repair loop, rewriting only the program, could never fix."""
    twice = "def test_a(ctx):\n    assert False, 'first'\ndef test_a(ctx):\n    assert ctx.volume('plate') > 100\n"
    r = pool.check(PLATE, twice, options=OPTIONS, limits=LIMITS)
    assert r.ok and [(t.name, t.passed) for t in r.tests] == [("test_a", True)], (r.error, r.tests)
    r = pool.check(PLATE, twice.replace("> 100", "> 1000, 'small'"), options=OPTIONS, limits=LIMITS)
    assert not r.ok and [(t.name, t.message) for t in r.tests] == [("test_a", "small")]


@pytest.mark.parametrize(("tests", "kind"), [
    ("async def test_a(ctx):\n    assert False\n", "async"),
    ("def test_a(ctx):\n    yield\n    assert False\n", "a generator"),
])
def test_tests_whose_body_never_runs_fail(pool: WorkerPool, tests: str, kind: str) -> None:
    """An ``async def`` test was not enumerated at all (zero tests: ok) and a generator test "passed":
    neither ran a line of its body, so ``assert False`` passed vacuously."""
    r = pool.check(PLATE, tests, options=OPTIONS, limits=LIMITS)
    assert not r.ok and [(t.name, t.passed) for t in r.tests] == [("test_a", False)], (r.error, r.tests)
    assert r.tests[0].message.startswith(f"test_a is {kind}: calling it runs none of its body")


def test_spada_reply_with_deeply_nested_json_is_not_a_spec() -> None:
    """``extract_json`` "never raises on garbage": a reply nested 100000 deep raised RecursionError, and
    one nested 900 deep parsed but could not be dumped into the next prompt from a deeper stack."""
    assert extract_json('{"parts": ' + "[" * 100000 + "]" * 100000 + "}") is None
    nested = '{"parts": [' + '{"a": ' * 900 + "1" + "}" * 900 + "]}"
    spec = normalise_spec(extract_json(nested), "a hinge")
    assert spec["parts"] == [] and spec["request"] == "a hinge"
    assert extract_json('x ```json\n{"parts": [{"name": "leaf", "d": [[1, 2]]}]}\n```') == \
        {"parts": [{"name": "leaf", "d": [[1, 2]]}]}


def test_spada_reply_of_many_braces_parses_quickly() -> None:
    """A brace matcher run from every ``{`` was quadratic: 20,000 ``{`` (a degenerate small-model reply
    within a large max_tokens) took ~18 s here; 200,000, many minutes."""
    start = time.perf_counter()
    assert extract_json("{" * 20000) is None
    assert extract_json("{" * 20000 + ' {"parts": []}') == {"parts": []}
    assert time.perf_counter() - start < 2


SPY = """import glob
pids = [p.split('/')[2] for p in glob.glob('/proc/[0-9]*')]
seen = []
for pid in pids:
    try:
        seen.append(open(f'/proc/{pid}/cmdline', 'rb').read())
    except OSError:
        pass
assert not any(b'pytest' in c for c in seen), 'the host processes are visible'
assert len(pids) < 8, f'{len(pids)} processes visible'
""" + PLATE


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="unshare mode needs root")
def test_unshare_mode_has_its_own_proc(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Without --mount-proc the candidate saw the host's /proc (the caller's processes, whose environment a
    same-uid program can read), and every job left the zygote 'unclean' (replaced each time)."""
    if isolation.PRIVATE_PROC not in isolation.unshare_args():
        pytest.skip("a private /proc cannot be mounted here (sandbox_info lists the gap)")
    monkeypatch.setenv("PAPERWORKS_CAD_ISOLATION", "unshare")
    monkeypatch.setattr(isolation, "_warned", True)
    assert "--mount-proc" in isolation.worker_command("unshare", "build", tmp_path, 8, None, "none")[0]
    with WorkerPool(1, LIMITS) as pool:
        for _ in range(2):
            r = pool.check(SPY, PASSING, options=OPTIONS)
            assert r.ok, (r.error, r.stdout_tail)
        assert pool.replaced == 0

