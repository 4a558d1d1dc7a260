"""Help → About: what this is and the versions of everything it runs on.

Versions come from package metadata, so opening the box imports nothing new; torch is listed
only when something already imported it (the Hardware tab's benchmarks).
"""

from __future__ import annotations

import html
import platform
import sys
from importlib import metadata

from PySide6.QtCore import Qt, qVersion
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from desktopapp import APP_NAME, __version__
from desktopapp.ui.common.icons import app_icon


def _dist_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def versions() -> list[tuple[str, str]]:
    """(component, version) rows for the About box and bug reports."""
    import PySide6

    rows = [
        (APP_NAME, __version__),
        ("Python", f"{platform.python_version()} ({platform.python_implementation()})"),
        ("Qt", qVersion()),
        ("PySide6", PySide6.__version__),
        ("pyqtgraph", _dist_version("pyqtgraph")),
        ("numpy", _dist_version("numpy")),
    ]
    torch = sys.modules.get("torch")
    if torch is not None:
        rows.append(("torch", str(getattr(torch, "__version__", "unknown"))))
    rows.append(("Platform", f"{platform.system()} {platform.release()} ({platform.machine()})"))
    return rows


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"About {APP_NAME}")
        self.setWindowIcon(app_icon())

        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(80, 80))
        icon.setAlignment(Qt.AlignmentFlag.AlignCenter)
        title = QLabel(APP_NAME)
        title.setObjectName("ComingTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        blurb = QLabel(
            "Plan the compute, cost and memory of machine-learning work, compare renting "
            "with owning, and measure what your own hardware delivers."
        )
        blurb.setWordWrap(True)
        blurb.setAlignment(Qt.AlignmentFlag.AlignCenter)
        blurb.setObjectName("ComingText")

        rows = "".join(
            f"<tr><td style='padding:2px 14px 2px 0; color:#5E6A7A'>{html.escape(name)}</td>"
            f"<td style='padding:2px 0'><b>{html.escape(value)}</b></td></tr>"
            for name, value in versions()
        )
        self.versions_label = QLabel(f"<table>{rows}</table>")
        self.versions_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.versions_label.setAlignment(Qt.AlignmentFlag.AlignCenter)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.accepted.connect(self.accept)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(28, 24, 28, 18)
        layout.setSpacing(10)
        layout.addWidget(icon)
        layout.addWidget(title)
        layout.addWidget(blurb)
        layout.addSpacing(6)
        layout.addWidget(self.versions_label, 0, Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(buttons)
        self.setMinimumWidth(440)

    def text(self) -> str:
        return self.versions_label.text()
