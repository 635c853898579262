"""Serving the workflows on a LangGraph server (``langgraph dev`` or ``paperworks serve``).

``graphs`` holds one graph factory per built-in workflow (named in ``langgraph.json``) and ``ServedGraph``,
the compiled graph as the server runs it: ``inputs`` (the CLI's input shape or a state update), ``streaming``
(model tokens into every stream mode), ``record`` (each run recorded under the runs directory) and
``schemas`` (input, output and context JSON schemas). ``server`` starts langgraph-api's in-memory server on
loopback with its phone-home paths switched off; ``app`` is its ``http.app`` (graph names for assistant ids).
``server`` and ``app`` need the ``ecosystem`` extra (langgraph-api, langgraph-runtime-inmem, langgraph-cli).
"""
