"""One ``seed_everything()`` for the whole package."""

from __future__ import annotations

import os
import random
import sys


def seed_everything(seed: int) -> None:
    """Seed Python, NumPy and (if already imported) torch. Never imports torch itself."""
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    try:
        import numpy as np

        np.random.seed(seed % (2**32))
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(seed)
