"""The package registers its experiment without importing torch."""

from __future__ import annotations

import subprocess
import sys


def test_import_is_light_and_registers_repro() -> None:
    code = ("import sys, paperworks.backends.otb; from paperworks.backends.repro import REPROS; "
            "assert REPROS['otb'] == 'paperworks.backends.otb.repro:run'; assert 'torch' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
