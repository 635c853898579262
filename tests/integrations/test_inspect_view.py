"""``inspect view`` on an exported log (slow: starts Inspect's viewer server on loopback). The viewer's
own API must serve the log with paperworks' numbers; with a Chromium on the machine, a headless
screenshot of the viewer page is taken too (skipped otherwise)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from paperworks.eval import harness  # noqa: E402
from paperworks.integrations.inspect_log import export_inspect  # noqa: E402
from tests.integrations.test_inspect_export import SCRIPT, _suite  # noqa: E402

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (loopback only)
        return bytes(response.read())


@pytest.fixture
def viewer(tmp_path: Path) -> Iterator[tuple[str, Path, harness.Results]]:
    (tmp_path / "model.json").write_text(json.dumps(SCRIPT))
    run = harness.create_eval(harness.EvalArgs(suite=str(_suite(tmp_path)), model=f"scripted/{tmp_path}/model.json",
                                               limit=4, log_dir=str(tmp_path / "runs")))
    results = asyncio.run(harness.run_eval(run))
    out = export_inspect(run.path, tmp_path / "logs" / "export.eval")
    port = _free_port()
    proc = subprocess.Popen([str(Path(sys.executable).parent / "inspect"), "view", "--log-dir", str(out.parent),
                             "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(base + "/")
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    pytest.fail("inspect view did not start")
                time.sleep(0.5)
        yield base, out, results
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_inspect_view_serves_the_exported_log(viewer: tuple[str, Path, harness.Results]) -> None:
    base, out, results = viewer
    listing = json.loads(_get(base + "/api/log-files"))
    assert [Path(urllib.parse.urlparse(f["name"]).path).name for f in listing["files"]] == ["export.eval"]
    log = json.loads(_get(base + "/api/logs/" + urllib.parse.quote(str(out))))
    assert log["eval"]["task"] == "paperworks/echoes" and len(log["samples"]) == 8  # 4 samples x 2 epochs
    accuracy = log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert accuracy == results.metrics["numeric/accuracy"]["value"] == pytest.approx(3 / 4)


BROWSER = next((b for b in ("chromium", "chromium-browser", "google-chrome", "headless_shell") if shutil.which(b)),
               None)


@pytest.mark.skipif(BROWSER is None, reason="no Chromium on this machine")
def test_inspect_view_screenshot(viewer: tuple[str, Path, harness.Results], tmp_path: Path) -> None:
    """The viewer page in headless Chromium (driven by Playwright, Debian's browser): once it has loaded, it
    shows the exported log's task, paperworks' accuracy and its samples; a screenshot is taken."""
    sync_api = pytest.importorskip("playwright.sync_api")
    base, _, results = viewer
    shot = tmp_path / "view.png"
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=shutil.which(str(BROWSER)), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(base + "/")
            page.get_by_text("ACCURACY").first.wait_for(timeout=60_000)
            page.get_by_text("please say 4").first.wait_for(timeout=60_000)
            page.screenshot(path=str(shot))
            text = page.inner_text("body")
        finally:
            browser.close()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    keep = os.environ.get("PAPERWORKS_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
    words = text.split("\n")
    assert "paperworks/echoes" in words and "echoes — 4 x 2 samples" in words
    accuracy = results.metrics["numeric/accuracy"]["value"]
    assert words[words.index("ACCURACY") + 1] == f"{accuracy:.2f}" == "0.75"
