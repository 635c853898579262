"""D-FPS (``dfps``) and its FPS baseline (``fps``): formal problem solving in Lean 4.

- ``graph``: D-FPS's LangGraph graph (``build_graph``): forward derivation, backward verification;
  its input, settings and ``SPEC``;
- ``fps``: the one-reply FPS baseline's graph and ``SPEC`` (workflow ``fps``);
- ``lean``: what both ask of Lean (``paperworks.tools.lean``), and where Lean is absent;
- ``score``: the ``rpe`` (Lean-verified) and ``symbolic_answer`` (SymPy) scorers.

The model's roles are in ``paperworks.agents.dfps``.
"""

from paperworks.workflows.dfps.graph import SPEC, DfpsConfig, DfpsInput, build_graph
from paperworks.workflows.dfps.score import SCORERS

__all__ = ["SCORERS", "SPEC", "DfpsConfig", "DfpsInput", "build_graph"]
