"""paperworks: ICML 2026 agent and training papers, runnable from one package and one CLI."""

__version__ = "0.1.0"
