"""Compute backends in PyTorch, one folder per paper. Never import langgraph or litellm here."""
