"""The HTTP app ``paperworks serve`` hands langgraph-api (its ``http.app``): no routes of its own, one
middleware that lets every ``GET /assistants/{id}...`` endpoint take a graph name for the id.

langgraph-api 0.4.28 takes a graph name where an assistant id goes for runs (``client.runs.stream(thread,
"agent", ...)``), but its assistant endpoints (``/assistants/{id}``, ``/schemas``, ``/graph``,
``/subgraphs``) answer 422 unless the id is a UUID. The middleware rewrites ``/assistants/agent/schemas``
to the graph's own assistant, ``/assistants/<uuid5(graph)>/schemas``, as langgraph-api itself does for
runs (``langgraph_api.graph.get_assistant_id``); any other path is left as it is.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware


def assistant_path(path: str, graphs: set[str] | frozenset[str]) -> str:
    """``/assistants/<graph name>[/...]`` -> ``/assistants/<its assistant id>[/...]``; else ``path``."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "" and parts[1] == "assistants" and parts[2] in graphs:
        from uuid import UUID, uuid5

        namespace = UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")  # langgraph_api.graph.NAMESPACE_GRAPH
        parts[2] = str(uuid5(namespace, parts[2]))
        return "/".join(parts)
    return path


class GraphNameAssistants:
    """ASGI middleware: ``GET /assistants/<graph name>...`` is served as that graph's assistant."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope.get("type") == "http" and scope.get("method") == "GET":
            from paperworks.serve.graphs import FACTORIES

            path = scope.get("path", "")
            new = assistant_path(path, frozenset(FACTORIES))
            if new != path:
                scope = {**scope, "path": new, "raw_path": new.encode()}
        await self.app(scope, receive, send)


app = Starlette(middleware=[Middleware(GraphNameAssistants)])
# langgraph-api 0.4.28 merges a custom app's lifespan after checking ``app.router.on_startup`` and
# ``on_shutdown``, which Starlette 1.0 no longer has: empty lists pass that check.
for _hook in ("on_startup", "on_shutdown"):
    if not hasattr(app.router, _hook):
        setattr(app.router, _hook, [])
