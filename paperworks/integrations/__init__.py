"""Bridges to tools users already have: Inspect AI logs and tasks (``inspect_log``, ``inspect_tasks``).

Each module imports its third-party library lazily or only when used, so ``paperworks`` itself runs
without the ``ecosystem`` extra.
"""
