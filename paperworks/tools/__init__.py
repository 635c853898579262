"""Deterministic capabilities that agents call. ``registry`` turns typed functions into tools."""
