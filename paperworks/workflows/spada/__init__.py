"""SPADA (``spada``): CadQuery assembly code plus its own deterministic tests, in a compile-test-repair loop.

- ``graph``: the LangGraph graph (``build_graph``), its input, settings, state and ``SPEC``;
- ``sandbox``: the process's warm CAD sandbox pool, where the program and its tests run;
- ``score``: the ``spada`` scorer (hidden tests and engineering checks, judged outside the program).

The model's roles (prompts and parsing) are in ``paperworks.agents.spada``.
"""

from paperworks.workflows.spada.graph import SPEC, SpadaConfig, SpadaInput, SpadaState, build_graph
from paperworks.workflows.spada.score import score_spada

SCORERS = SPEC.scorers

__all__ = ["SCORERS", "SPEC", "SpadaConfig", "SpadaInput", "SpadaState", "build_graph", "score_spada"]
