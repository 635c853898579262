"""The evaluation harness (issue 3)."""
