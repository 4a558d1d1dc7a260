"""Session totals now live in the Qt-free application layer
(:mod:`desktopapp.application.monitor_summary`); this name stays for existing imports."""

from __future__ import annotations

from desktopapp.application.monitor_summary import (
    GpuTotals,
    SessionTotals,
    format_energy,
    session_totals,
)

__all__ = ["GpuTotals", "SessionTotals", "format_energy", "session_totals"]
