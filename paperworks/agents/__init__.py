"""LLM roles: a prompt and the parsing of its reply, one module or folder per system."""
