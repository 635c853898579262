"""Start langgraph-api's in-memory server (what ``langgraph dev`` runs) on loopback, serving every
built-in workflow, with everything that would phone home switched off.

What langgraph-api 0.4.28 / langgraph-cli 0.4.8 would otherwise send out, and what turns it off here:

- the version check (a thread fetching ``https://pypi.org/pypi/langgraph-api/json`` at start):
  ``LANGGRAPH_NO_VERSION_CHECK=true``;
- the usage "metadata loop" (runs and node counts to ``api.smith.langchain.com``), which starts only
  with ``LANGGRAPH_CLOUD_LICENSE_KEY`` or ``LANGSMITH_API_KEY`` / ``LANGCHAIN_API_KEY`` set: those are
  removed from the server's environment;
- LangSmith tracing of every run (switched on by an API key): ``LANGSMITH_TRACING=false`` and
  ``LANGCHAIN_TRACING_V2=false`` as well;
- the Studio browser tab and its organisation lookup (``open_browser``), the Cloudflare tunnel
  (``tunnel``): never started;
- langgraph-cli's command analytics (only ``langgraph dev``, not used here): ``LANGGRAPH_CLI_NO_ANALYTICS=1``.

The license check of the open-source build is a no-op (``langgraph_license``). Model calls go wherever
the run's model lives (nowhere, for ``local/...`` and ``scripted/...`` models).

What it prints: nothing that links a hosted page (langgraph-api's start-up banner, which links the hosted
Studio at smith.langchain.com, is dropped), one "serving" line once the port answers, and one line per
finished or refused run. A port already in use is refused in one line (exit 1) before anything starts.
The server's ``http.app`` (``paperworks.serve.app``) lets the assistant endpoints take a graph name.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import sys
from collections.abc import MutableMapping

from paperworks.core.errors import UserError

INSTALL_HINT = "pip install -e '.[ecosystem]'"

OFFLINE_ENV: dict[str, str] = {
    "LANGGRAPH_NO_VERSION_CHECK": "true",
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
}
"""Set in the server's environment (they win over the user's)."""

DROPPED_ENV: tuple[str, ...] = ("LANGSMITH_API_KEY", "LANGCHAIN_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY",
                                "LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT")
"""Removed from the server's environment: any of the keys starts the usage beacon and tracing."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> None:
    """Refuse a non-loopback address unless asked for: the server has no authentication."""
    if not is_loopback(host) and not allow_remote:
        raise UserError(f"--host {host} is not a loopback address; the server has no authentication, so "
                        f"binding it to a network needs --allow-remote")


def check_port(port: int) -> None:
    if not 0 < port < 65536:
        raise UserError(f"--port must be between 1 and 65535, got {port}")


def offline_env(environ: MutableMapping[str, str]) -> None:
    """Switch off langgraph-api's phone-home paths in ``environ`` (before langgraph_api is imported)."""
    for key in DROPPED_ENV:
        environ.pop(key, None)
    environ.update(OFFLINE_ENV)


def require_server() -> None:
    """A one-line error naming the extra when langgraph-api's in-memory server is not installed."""
    import importlib.util

    missing = [m for m in ("langgraph_api", "langgraph_runtime_inmem", "langgraph_sdk")
               if importlib.util.find_spec(m) is None]
    if missing:
        raise UserError(f"paperworks serve needs the LangGraph server ({', '.join(missing)} not "
                        f"installed): {INSTALL_HINT}")


def check_port_free(host: str, port: int) -> None:
    """Refuse, in one line, a port something already listens on (before the server prints or starts
    anything; uvicorn would log the bind error among its start-up lines and exit 3)."""
    import errno
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise UserError(f"--host {host}: cannot resolve it ({exc.strerror or exc})") from exc
    family, _, _, _, address = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            sock.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UserError(f"port {port} on {host} is already in use (another server?); stop it or "
                                f"choose another port with --port") from None
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


class _Drop(logging.Filter):
    """Drops langgraph-api's start-up banner (it links a hosted Studio page that needs the internet) and
    the --allow-blocking notice (paperworks sets it on purpose: workflows write files from async nodes)."""

    NEEDLES = ("Welcome to", "smith.langchain.com", "Studio UI", "You've set --allow-blocking")

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = str(record.getMessage())
        except Exception:
            text = str(record.msg)
        return not any(n in text for n in self.NEEDLES)


QUIET_LOGGERS = ("langgraph_api.cli", "langgraph_runtime_inmem.queue", "browser_opener")


def _announce_when_listening(host: str, port: int, graphs: list[str]) -> None:
    """Print the one 'serving' line once the port answers (not before: a failed start prints no such line)."""
    import socket
    import threading
    import time

    from paperworks.core.paths import runs_dir

    def wait() -> None:
        address = host.strip("[]")
        for _ in range(1200):
            try:
                with socket.create_connection((address, port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.1)
        else:
            return
        url = f"http://{'[' + address + ']' if ':' in address else address}:{port}"
        print(f"paperworks: serving {', '.join(graphs)} at {url} for langgraph-sdk and LangGraph Studio (connect "
              f"it to that URL); runs are recorded in {runs_dir().resolve()} (paperworks runs). Ctrl-C stops it.",
              file=sys.stderr, flush=True)

    threading.Thread(target=wait, name="paperworks-serve-announce", daemon=True).start()


def serve(host: str = "127.0.0.1", port: int = 2024, *, allow_remote: bool = False, model: str | None = None,
          jobs: int = 1, log_level: str = "WARNING") -> None:
    """Serve every built-in workflow until interrupted (blocks). Threads and checkpoints are kept in
    ``./.langgraph_api`` across restarts, as ``langgraph dev`` does (langgraph-runtime-inmem 0.14.1 cannot
    run without it: its ``LANGGRAPH_DISABLE_FILE_PERSISTENCE`` path fails at import with langgraph 1.2)."""
    check_host(host, allow_remote)
    check_port(port)
    if jobs < 1:
        raise UserError(f"--jobs must be at least 1, got {jobs}")
    require_server()
    from paperworks.serve.graphs import MODEL_ENV, graph_specs

    if model:
        from paperworks.models.checks import check_model

        check_model(model)
        os.environ[MODEL_ENV] = model
    check_port_free(host, port)
    offline_env(os.environ)
    os.environ["LOG_LEVEL"] = log_level  # langgraph-api's own structlog level
    drop = _Drop()
    for name in QUIET_LOGGERS:
        logging.getLogger(name).addFilter(drop)
    from langgraph_api.cli import run_server

    _announce_when_listening(host, port, list(graph_specs()))
    try:
        run_server(host=host, port=port, reload=False, graphs=graph_specs(), n_jobs_per_worker=jobs,
                   open_browser=False, tunnel=False, http={"app": HTTP_APP},
                   allow_blocking=True,  # workflows write artifacts and run tools from their async nodes
                   server_level=log_level)
    except SystemExit as exc:  # uvicorn's start-up failure (3): say so in one line, exit 1
        if exc.code not in (None, 0):
            raise UserError(f"the LangGraph server did not start on {host}:{port} (exit {exc.code}; see the "
                            "lines above)") from None
        raise


HTTP_APP = "paperworks.serve.app:app"
"""The server's ``http.app``: lets the assistant endpoints take a graph name (``paperworks.serve.app``)."""
