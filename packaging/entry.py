"""Entry script for the PyInstaller bundle: the same ``desktopapp`` command as the wheel's.

``freeze_support`` lets a frozen program start child processes with ``multiprocessing``
(pyqtgraph and the benchmarks may); it does nothing in a normal interpreter.
"""

from __future__ import annotations

import multiprocessing
import sys

from desktopapp.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())
