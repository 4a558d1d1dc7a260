"""Where the app keeps its files (settings, results database, autosaves).

platformdirs gives the per-OS locations; ``DESKTOPAPP_HOME`` moves everything under one folder
(the tests use it so they never touch the real user folders).
"""

from __future__ import annotations

import os
from pathlib import Path

APP_DIR_NAME = "desktopapp"


def _override() -> Path | None:
    home = os.environ.get("DESKTOPAPP_HOME")
    return Path(home) if home else None


def data_dir() -> Path:
    """Results database, recorded monitor sessions, autosaves."""
    base = _override()
    if base is not None:
        path = base / "data"
    else:
        import platformdirs

        path = Path(platformdirs.user_data_dir(APP_DIR_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """Settings (window geometry, last tab, recent files)."""
    base = _override()
    if base is not None:
        path = base / "config"
    else:
        import platformdirs

        path = Path(platformdirs.user_config_dir(APP_DIR_NAME, appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return path


def results_db_path() -> Path:
    return data_dir() / "results.sqlite3"


def autosave_dir() -> Path:
    path = data_dir() / "autosave"
    path.mkdir(parents=True, exist_ok=True)
    return path
