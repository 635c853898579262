"""Serving the workflows on a LangGraph server (``langgraph dev`` or ``paperworks serve``).

``graphs`` holds one graph factory per built-in workflow (named in ``langgraph.json``); ``server``
starts langgraph-api's in-memory server on loopback with its phone-home paths switched off.
Both need the ``ecosystem`` extra (langgraph-api, langgraph-runtime-inmem, langgraph-cli).
"""
