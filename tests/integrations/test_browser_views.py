"""The two ways a user looks at an eval run, in a real browser (headless Chromium from Debian, driven by
Playwright; no browser is downloaded): ``paperworks view RUN``'s self-contained report.html, and the run
exported with ``paperworks export`` opened in ``inspect view``. Each must render the sample list (in suite
order), a sample's transcript (its model and tool calls) and the scores, read from the page's text.

The run: 4 samples x 2 epochs on a scripted model that calls ``calculate(1+1)`` and then echoes the task;
q04's target is 5, so q01-q03 pass and q04 fails both epochs (accuracy 6/8 = 0.75)."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import cli

pytestmark = pytest.mark.slow

CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - the ecosystem extra installs it
    sync_playwright = None  # type: ignore[assignment]
    PlaywrightError = AssertionError  # type: ignore[assignment,misc]

IDS = ["q01", "q01", "q02", "q02", "q03", "q03", "q04", "q04"]  # suite order, each sample's 2 epochs
VERDICTS = ["pass"] * 6 + ["fail"] * 2


def _rows() -> list[dict[str, Any]]:
    return [{"id": f"q{i:02d}", "question": f"please say {i}", "answer": i if i % 4 else i + 1} for i in range(1, 9)]


SCRIPT = {"replies": [{"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "1+1"}}]},
                      {"echo": True}], "repeat_last": True}


@pytest.fixture(scope="module")
def browser_page() -> Iterator[Page]:
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine (Debian package chromium; scripts/setup.sh installs it)")
    if sync_playwright is None:
        pytest.skip("playwright is not installed (the ecosystem extra installs it)")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 900})
        finally:
            browser.close()


@pytest.fixture(scope="module")
def run_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real eval made, viewed and exported through the CLI: the run folder, report.html and the .eval log."""
    tmp = tmp_path_factory.mktemp("browser")
    suite = tmp / "echoes"
    suite.mkdir()
    (suite / "suite.yaml").write_text(
        "name: echoes\nversion: '1'\ndescription: echo test\nworkflow: agent\ndata: [data.jsonl]\n"
        "id_field: id\ninput: {task: '{question}'}\ntarget: answer\nscorers: [numeric]\nepochs: 2\n"
        "config: {max_steps: 3, tools: [calculate]}\n")
    (suite / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    (tmp / "model.json").write_text(json.dumps(SCRIPT))
    done = cli("eval", str(suite), "-m", f"scripted/{tmp}/model.json", "--limit", "4", "--display", "none",
               "--log-dir", str(tmp / "runs"))
    assert done.returncode == 0, done.stderr
    (run,) = [p.parent for p in (tmp / "runs").glob("*/run.json")]
    done = cli("view", str(run), "-q")
    assert done.returncode == 0, done.stderr
    done = cli("export", str(run), "--out", str(tmp / "logs" / "export.eval"))
    assert done.returncode == 0, done.stderr
    return {"run": run, "report": run / "report.html", "log": tmp / "logs" / "export.eval"}


# -- paperworks view: report.html ------------------------------------------------------------------------

def check_report(page: Page, url: str, wait_ms: int = 20_000) -> None:
    """The report at ``url`` shows the metrics, the 8 samples in suite order with their scores, and q02's
    transcript (the tool call and its result, the model's answer) once the sample is opened."""
    page.goto(url)
    metrics = page.locator("table", has=page.locator("th", has_text="metric")).first.inner_text(timeout=wait_ms)
    assert re.search(r"^numeric/accuracy\t0\.750 ± 0\.250\t4$", metrics, re.M), metrics
    samples = page.locator("#samples details.sample")
    samples.nth(7).wait_for(timeout=wait_ms)
    assert samples.count() == 8
    assert [s.locator(".sid").inner_text() for s in samples.all()] == IDS
    assert [s.locator(".badge").inner_text() for s in samples.all()] == VERDICTS
    summaries = [s.locator("summary").inner_text() for s in samples.all()]
    assert all("numeric: 1 ✓" in t for t in summaries[:6]) and all("numeric: 0 ✗" in t for t in summaries[6:])
    q02 = samples.nth(2)
    q02.locator("summary").click()
    transcript = q02.locator("h3", has_text="Transcript").locator("xpath=following-sibling::ol[1]")
    lines = transcript.inner_text(timeout=wait_ms).splitlines()
    assert "user please say 2" in lines
    assert '→ calculate({"expression": "1+1"})' in lines
    assert 'tool calculate ({"expression": "1+1"}) ok: 2' in lines
    assert lines[-1] == "assistant please say 2"
    scores = q02.locator("table").inner_text()
    assert scores.splitlines()[1].split("\t") == ["numeric", "1", "true", "please say 2", "2 == 2"]


def test_report_html_renders_samples_transcript_and_scores(browser_page: Page, run_files: dict[str, Path]) -> None:
    html = run_files["report"].read_text(encoding="utf-8")
    assert "<script src" not in html and "<link" not in html  # self-contained: nothing fetched
    check_report(browser_page, run_files["report"].as_uri())


@pytest.mark.parametrize("breakage", [
    pytest.param(lambda h: h.replace('<div id="samples"></div>', ""), id="sample-list-removed"),
    pytest.param(lambda h: re.sub(r'"transcript":\[.*?\]\],"artifacts"', '"transcript":[],"artifacts"', h),
                 id="transcripts-dropped"),
    pytest.param(lambda h: h.replace("<h2>Metrics</h2>", "").replace("numeric/accuracy", "numeric/acc"),
                 id="scores-missing"),
])
def test_a_broken_report_fails_the_check(browser_page: Page, run_files: dict[str, Path], tmp_path: Path,
                                         breakage: Callable[[str], str]) -> None:
    html = run_files["report"].read_text(encoding="utf-8")
    broken = breakage(html)
    assert broken != html
    path = tmp_path / "broken.html"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises((AssertionError, PlaywrightError)):
        check_report(browser_page, path.as_uri(), wait_ms=2_000)


# -- inspect view on the exported log ---------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def inspect_view(run_files: dict[str, Path]) -> Iterator[str]:
    """``inspect view --log-dir DIR`` on loopback; its base URL once it answers."""
    inspect = Path(sys.executable).parent / "inspect"
    if not inspect.exists():
        pytest.skip("inspect-ai is not installed (the ecosystem extra installs it)")
    port = _free_port()
    proc = subprocess.Popen([str(inspect), "view", "--log-dir", str(run_files["log"].parent), "--host", "127.0.0.1",
                             "--port", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=5):  # noqa: S310 (loopback only)
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("inspect view did not start")
                time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def _words(page: Page) -> list[str]:
    return [w.strip() for w in page.inner_text("body").split("\n") if w.strip()]


def test_inspect_view_renders_samples_transcript_and_scores(browser_page: Page, inspect_view: str) -> None:
    page = browser_page
    page.goto(inspect_view + "/")
    page.get_by_text("8 Samples").first.wait_for(timeout=60_000)
    words = _words(page)
    assert "paperworks/echoes" in words and "echoes — 4 x 2 samples" in words
    assert words[words.index("ACCURACY") + 1] == "0.75"
    # the sample list: a row per sample and epoch, in suite order, with input, target, answer and score
    grid = words[words.index("SCORE") + 1:words.index("8 Samples")]
    rows = [grid[i:i + 8] for i in range(0, len(grid), 8)]
    assert [(r[0], r[1]) for r in rows] == [(sid, str(e)) for sid, e in zip(IDS, [1, 2] * 4, strict=True)]
    assert [r[2] for r in rows] == [f"please say {int(sid[1:])}" for sid in IDS]
    assert [r[3] for r in rows] == ["1", "1", "2", "2", "3", "3", "5", "5"]
    assert [r[7] for r in rows] == ["1"] * 6 + ["0"] * 2
    # a sample's transcript: the model call, the tool call and its result, then the score
    page.get_by_text("please say 2").first.click()
    page.get_by_text("TOOL: CALCULATE").first.wait_for(timeout=30_000)
    words = _words(page)
    assert "Sample q02 (Epoch 1)" in words
    model_calls = [i for i, w in enumerate(words) if w.startswith("MODEL CALL: SCRIPTED//")]
    tools = [i for i, w in enumerate(words) if w.startswith("TOOL: CALCULATE (")]
    assert len(model_calls) == 2 and len(tools) == 1 and model_calls[0] < tools[0] < model_calls[1]
    tool = tools[0]
    assert words[tool + 1:tool + 4] == ["calculate", 'expression: "1+1"', "2"]
    last = len(words) - 1 - words[::-1].index("EXPLANATION")  # the scorer's, after the column headers
    assert words[last - 2:last + 4] == ["ANSWER", "please say 2", "EXPLANATION", "2 == 2", "SCORE", "1"]
    assert words[words.index("SCORE") + 1] == "1"
