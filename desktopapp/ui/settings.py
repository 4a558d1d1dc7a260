"""The app's settings file: window geometry, last tab, theme, notes, the monitor's cluster
targets. Below the main window and the tabs, which all keep something in it."""

from __future__ import annotations

from PySide6.QtCore import QSettings

SETTINGS_FILE = "desktopapp.ini"


def app_settings() -> QSettings:
    """The app's settings file (IniFormat) under ``paths.config_dir()``."""
    from desktopapp.paths import config_dir

    return QSettings(str(config_dir() / SETTINGS_FILE), QSettings.Format.IniFormat)
