"""Where the app keeps its files (settings, results database, autosaves).

platformdirs gives the per-OS locations; ``DESKTOPAPP_HOME`` moves everything under one folder
(the tests use it so they never touch the real user folders).
"""

from __future__ import annotations

import contextlib
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
    _try_mkdir(path)
    return path


def config_dir() -> Path:
    """Settings (window geometry, last tab, recent files)."""
    base = _override()
    if base is not None:
        path = base / "config"
    else:
        import platformdirs

        path = Path(platformdirs.user_config_dir(APP_DIR_NAME, appauthor=False))
    _try_mkdir(path)
    return path


def cache_dir() -> Path:
    """What can be made again (compiled dataclass methods): losing it costs time only. Not
    created here: what writes there creates it."""
    base = _override()
    if base is not None:
        return base / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir(APP_DIR_NAME, appauthor=False))


def results_db_path() -> Path:
    return data_dir() / "results.sqlite3"


def autosave_dir() -> Path:
    path = data_dir() / "autosave"
    _try_mkdir(path)
    return path


def _try_mkdir(path: Path) -> None:
    """Create the folder if possible. A folder that cannot be created (``DESKTOPAPP_HOME`` is a
    file, a read-only place) is not an error here: looking a path up never fails, and what
    writes there reports in one line what it could not save (see :func:`folder_problem`)."""
    with contextlib.suppress(OSError):
        path.mkdir(parents=True, exist_ok=True)


def folder_problem(path: Path) -> str | None:
    """Why files cannot be saved in ``path`` (one line), or None when they can."""
    if not path.is_dir():
        return f"{path} is not a folder (check DESKTOPAPP_HOME)"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"{path} is read-only"
    return None
