"""Deterministic capabilities that agents call. ``base`` turns typed functions into tools;
``registry`` names them (an explicit table, modules loaded on first use)."""
