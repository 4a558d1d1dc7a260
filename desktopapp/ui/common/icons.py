"""The app icon: ``resources/icons/desktopapp.svg`` plus PNGs rendered from it.

``python -m desktopapp.ui.common.icons`` re-renders the PNGs after the SVG changes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtGui import QIcon

ICON_NAME = "desktopapp"
PNG_SIZES: tuple[int, ...] = (16, 24, 32, 48, 64, 128, 256, 512)

_PACKAGE_DIR = Path(__file__).resolve().parents[2]  # .../desktopapp


def icons_dir() -> Path:
    """``desktopapp/resources/icons`` in a wheel, ``<repo>/resources/icons`` in a checkout."""
    for candidate in (
        _PACKAGE_DIR / "resources" / "icons",
        _PACKAGE_DIR.parent / "resources" / "icons",
    ):
        if (candidate / f"{ICON_NAME}.svg").is_file():
            return candidate
    return _PACKAGE_DIR.parent / "resources" / "icons"


def svg_path() -> Path:
    return icons_dir() / f"{ICON_NAME}.svg"


def png_path(size: int) -> Path:
    return icons_dir() / f"{ICON_NAME}-{size}.png"


def app_icon() -> QIcon:
    """Every rendered PNG size (crisp at each), falling back to the SVG."""
    icon = QIcon()
    for size in PNG_SIZES:
        path = png_path(size)
        if path.is_file():
            icon.addFile(str(path))
    if icon.isNull() and svg_path().is_file():
        icon.addFile(str(svg_path()))
    return icon


def render_pngs(target: Path | None = None) -> list[Path]:
    """Render the SVG into ``desktopapp-<size>.png`` for every size in :data:`PNG_SIZES`."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg_path()))
    if not renderer.isValid():
        raise ValueError(f"icon: {svg_path()} is not a valid SVG")
    folder = target or icons_dir()
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for size in PNG_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter, QRectF(0, 0, size, size))
        painter.end()
        path = folder / f"{ICON_NAME}-{size}.png"
        if not image.save(str(path)):
            raise OSError(f"icon: could not write {path}")
        written.append(path)
    return written


def main() -> int:
    import os

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    for path in render_pngs():
        print(path)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
