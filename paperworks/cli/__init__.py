"""The typer CLI. Importing it must stay cheap: no torch, transformers, litellm or langgraph."""
