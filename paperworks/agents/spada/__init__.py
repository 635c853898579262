"""SPADA's LLM roles: spec writer, code writer, test writer and repairer (prompt + parse each)."""
