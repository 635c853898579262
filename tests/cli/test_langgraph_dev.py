"""``langgraph dev`` on the project's own langgraph.json (slow: starts LangGraph's dev server): its ``http.app``
lets the SDK's ``get_schemas`` take a graph name, as under ``paperworks serve``. Without that entry
langgraph-api 0.4.28 answers 422 (``Invalid assistant ID: must be a UUID``).

``--allow-blocking`` is given as ``paperworks serve`` gives it: the workflows' nodes (and the first schema
request, which imports the model gateway) do blocking file I/O that ``langgraph dev`` refuses otherwise.
The server runs in a network namespace with only loopback where ``unshare -n`` works."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytest.importorskip("langgraph_cli")
pytest.importorskip("langgraph_sdk")

pytestmark = pytest.mark.slow

CLIENT = """
import json, sys, time, urllib.request
from langgraph_sdk import get_sync_client
url = f"http://127.0.0.1:{sys.argv[1]}"
deadline = time.monotonic() + 120
while True:
    try:
        urllib.request.urlopen(url + "/ok", timeout=5).read()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("langgraph dev did not start")
        time.sleep(0.3)
client = get_sync_client(url=url)
out = {}
for graph in ("agent", "spada"):
    s = client.assistants.get_schemas(graph)
    out[graph] = {"graph_id": s["graph_id"], "input": s["input_schema"].get("title"),
                  "context": sorted((s.get("context_schema") or {}).get("properties", {}))}
print("SCHEMAS " + json.dumps(out))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


def test_get_schemas_by_graph_name_under_langgraph_dev(tmp_path: Path) -> None:
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["http"] == {"app": "paperworks.serve.app:app"}
    config["dependencies"] = [str(ROOT)]  # the same file, run from a scratch folder (its .langgraph_api goes there)
    (tmp_path / "langgraph.json").write_text(json.dumps(config))
    (tmp_path / "client.py").write_text(CLIENT)
    port = _free_port()
    dev = shlex.join([str(Path(sys.executable).parent / "langgraph"), "dev", "--config", "langgraph.json",
                      "--host", "127.0.0.1", "--port", str(port), "--no-browser", "--no-reload", "--allow-blocking"])
    client = shlex.join([sys.executable, "client.py", str(port)])
    shell = f"{{ {dev} & }} && pid=$! && {client}; rc=$?; kill $pid; wait $pid; exit $rc"
    argv = ["unshare", "-n", "sh", "-c", "ip link set lo up && " + shell] if _can_unshare() else ["sh", "-c", shell]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PAPERWORKS_RUNS_DIR": str(tmp_path / "runs"),
           **{k: str(v) for k, v in config["env"].items()}}
    done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("SCHEMAS "))
    schemas = json.loads(line.removeprefix("SCHEMAS "))
    assert schemas["agent"]["graph_id"] == "agent" and schemas["agent"]["input"] == "AgentInput"
    assert {"max_steps", "tools", "system", "tool_choice", "seed"} <= set(schemas["agent"]["context"])
    assert schemas["spada"]["graph_id"] == "spada"
