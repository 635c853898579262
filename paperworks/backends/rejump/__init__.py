"""ReJump: a reasoning trace as a walk over a tree of intermediate steps, and metrics of that walk.

Modules (pure Python; matplotlib loads only when drawing):

- ``tree`` — the data model (:class:`ReJump`: nodes with parent links, the walk), validated parsing of the
  authors' JSON format;
- ``metrics`` — solution count, filtered jump distance, success, overthinking, forgetting, verification rate,
  tree similarity (Zhang–Shasha edit distance) and walk similarity (Jensen–Shannon of transition matrices);
- ``extract`` — the two-stage (tree, then walk) extractor over any ``messages -> text`` completion;
- ``plots`` — the tree with its walk drawn over it (PNG/SVG); ``bestofn`` — ReJump-guided Best-of-N;
- ``tasks`` — Game of 24 (with a solver), 5×5 Sudoku (generator and checker), MATH-style arithmetic;
- ``simulate`` — seeded Game-of-24 searchers whose moves are recorded as ReJumps;
- ``repro`` — ``paperworks repro rejump``.
"""

from paperworks.backends.repro import REPROS

REPROS["rejump"] = "paperworks.backends.rejump.repro:run"
