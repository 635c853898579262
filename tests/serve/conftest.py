"""The loopback ``paperworks serve`` the serve tests talk to: one server per test module, started with the real
CLI in a process of its own, with an audit hook that records every attempt to reach beyond loopback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.workflows.spada.test_graph import GOOD, OVERLAP, SPEC, TESTS

CALC = {"text": "", "tool_calls": [{"name": "calculate", "arguments": {"expression": "17*23"}}]}

# Runs in the server process before anything else: records every DNS lookup or connection that is not
# loopback (the server and the workflows would never notice; the test reads the record at the end).
GUARD = r"""
import ipaddress, json, sys
LOG = sys.argv[1]
def _local(host):
    if host is None or host in ("", "localhost"):
        return True
    try:
        return ipaddress.ip_address(str(host).split("%")[0]).is_loopback
    except ValueError:
        return False
def _hook(event, args):
    host = None
    if event in ("socket.connect", "socket.sendto") and isinstance(args[1], tuple):
        host = args[1][0]
    elif event == "socket.getaddrinfo":
        host = args[0]
    else:
        return
    if isinstance(host, bytes):
        host = host.decode()
    if not _local(host):
        with open(LOG, "a") as f:
            f.write(json.dumps([event, str(host)]) + "\n")
sys.addaudithook(_hook)
from paperworks.cli.app import main
main(sys.argv[2:])
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return f"scripted/{path}"


class Server:
    def __init__(self, url: str, root: Path, netlog: Path, models: dict[str, str]) -> None:
        self.url, self.root, self.netlog, self.models = url, root, netlog, models
        import langgraph_sdk

        self.client = langgraph_sdk.get_sync_client(url=url, timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    root = tmp_path_factory.mktemp("serve")
    models = {
        "agent": _write(root / "agent.json", [CALC, "17*23 = 391"]),
        "loop": _write(root / "loop.json", {"replies": [CALC], "repeat_last": True}),
        "spada": _write(root / "spada.json", [
            {"when": "Reply with JSON only", "text": SPEC},
            {"when": "You write CadQuery assembly programs", "text": OVERLAP},
            {"when": "You write tests for CadQuery", "text": TESTS},
            {"when": "You repair CadQuery", "text": GOOD},
        ]),
    }
    port, netlog = _free_port(), root / "net.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPERWORKS_RUNS_DIR": str(root / "runs"),
           "LANGSMITH_API_KEY": "lsv2_pt_fake", "LANGCHAIN_TRACING_V2": "true"}
    log = (root / "server.log").open("w")
    proc = subprocess.Popen([sys.executable, "-c", GUARD, str(netlog), "serve", "--port", str(port)],
                            cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("server did not start: " + (root / "server.log").read_text()[-3000:]) from None
                time.sleep(0.2)
        yield Server(url, root, netlog, models)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


