"""Procedural generators of training problems (``paperworks train --suite gen:NAME``): an explicit table.

A generator module has ``LIKE`` (the suite its problems are shaped like), ``generate(n, seed, *, phrasing)``,
``overlap(rows, suite_rows)``, ``oracle_calls(row)`` and ``write_suite(rows, folder, like)``.
"""

from __future__ import annotations

from types import ModuleType

from paperworks.train.generators import arith, arith_wide, ogmar, spada

GENERATORS: dict[str, ModuleType] = {"arith": arith, "arith_wide": arith_wide, "ogmar": ogmar, "spada": spada}
