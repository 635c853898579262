"""Tests of the SPADA CAD tools (sandbox, checks, exports, CLI)."""
