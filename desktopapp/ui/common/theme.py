"""Light and dark palettes, fonts and the application style sheet.

Widgets take colours from here (``COLORS``) so every tab looks the same; plots use
``SERIES`` in order. ``COLORS`` is a read-only view of the *active* palette: :func:`apply_theme`
switches it between :data:`LIGHT_COLORS` and :data:`DARK_COLORS` in place, so code that reads
``COLORS[...]`` when it draws follows the theme. ``scale`` enlarges every font (presentation
mode). The theme mode "system" follows the desktop's colour scheme (:func:`system_theme`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

LIGHT_COLORS: Mapping[str, str] = MappingProxyType(
    {
        "window": "#F4F6F9",
        "surface": "#FFFFFF",
        "surface_alt": "#F9FAFC",
        "border": "#DCE1E8",
        "border_strong": "#C3CAD4",
        "text": "#1E2733",
        "muted": "#5E6A7A",
        "faint": "#8A95A5",
        "accent": "#2F6FEB",
        "accent_soft": "#E6EEFD",
        "accent_dark": "#1D4FB8",
        "good": "#1E8E4F",
        "good_soft": "#E4F4EA",
        "bad": "#CF3F3F",
        "bad_soft": "#FDECEC",
        "warn": "#B7791F",
        "warn_soft": "#FDF3E1",
        "band": "#DCE8FC",
    }
)

DARK_COLORS: Mapping[str, str] = MappingProxyType(
    {
        "window": "#14181E",
        "surface": "#1C222A",
        "surface_alt": "#222932",
        "border": "#2E3741",
        "border_strong": "#46515E",
        "text": "#E7EBF0",
        "muted": "#A7B1BE",
        "faint": "#7D8897",
        "accent": "#5B8DEF",
        "accent_soft": "#1E3150",
        "accent_dark": "#9BBBF8",
        "good": "#4CC38A",
        "good_soft": "#173628",
        "bad": "#F07178",
        "bad_soft": "#3C1E22",
        "warn": "#E3AC55",
        "warn_soft": "#392D16",
        "band": "#22324C",
    }
)

THEMES: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {"light": LIGHT_COLORS, "dark": DARK_COLORS}
)
THEME_MODES: tuple[str, ...] = ("system", "light", "dark")
PRESENTATION_SCALE = 1.4

_ACTIVE: dict[str, str] = dict(LIGHT_COLORS)
_CURRENT = {"theme": "light", "scale": "1.0"}
# The active palette (read-only view; apply_theme swaps its contents).
COLORS: Mapping[str, str] = MappingProxyType(_ACTIVE)

# Plot series, in order of use.
SERIES: tuple[str, ...] = ("#2F6FEB", "#E0812E", "#2A9D8F", "#8E5CD9", "#C2478A", "#6B7785")

# Memory breakdown segments (ui/estimate memory bar and its legend).
MEMORY_COLORS: Mapping[str, str] = MappingProxyType(
    {
        "weights": "#2F6FEB",
        "gradients": "#8E5CD9",
        "optimizer": "#E0812E",
        "activations": "#2A9D8F",
        "kv_cache": "#C2478A",
        "overhead": "#9AA5B3",
    }
)

BASE_POINT_SIZE = 10.0
SPACING = 12  # between groups
INNER_SPACING = 8  # inside a group


def color(name: str) -> QColor:
    return QColor(COLORS[name])


def _palette() -> QPalette:
    palette = QPalette()
    roles = {
        QPalette.ColorRole.Window: "window",
        QPalette.ColorRole.WindowText: "text",
        QPalette.ColorRole.Base: "surface",
        QPalette.ColorRole.AlternateBase: "surface_alt",
        QPalette.ColorRole.ToolTipBase: "surface",
        QPalette.ColorRole.ToolTipText: "text",
        QPalette.ColorRole.PlaceholderText: "faint",
        QPalette.ColorRole.Text: "text",
        QPalette.ColorRole.Button: "surface",
        QPalette.ColorRole.ButtonText: "text",
        QPalette.ColorRole.BrightText: "surface",
        QPalette.ColorRole.Highlight: "accent",
        QPalette.ColorRole.HighlightedText: "surface",
        QPalette.ColorRole.Link: "accent",
        QPalette.ColorRole.Light: "surface",
        QPalette.ColorRole.Mid: "border",
        QPalette.ColorRole.Midlight: "border",
        QPalette.ColorRole.Dark: "border_strong",
    }
    for role, name in roles.items():
        palette.setColor(role, color(name))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text, color("faint"))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText, color("faint"))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, color("faint"))
    return palette


def current_theme() -> str:
    """``"light"`` or ``"dark"``: the palette ``COLORS`` holds now."""
    return _CURRENT["theme"]


def current_scale() -> float:
    """Font scale in use (1.0, or :data:`PRESENTATION_SCALE` in presentation mode)."""
    return float(_CURRENT["scale"])


def system_theme() -> str:
    """``"dark"`` when the desktop asks for a dark colour scheme, else ``"light"``."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    if hints is None or scheme is None:  # Qt < 6.5
        return "light"
    from PySide6.QtCore import Qt

    return "dark" if scheme() == Qt.ColorScheme.Dark else "light"


def resolve_theme(mode: str) -> str:
    """A theme mode (system | light | dark) → the palette to use."""
    if mode not in THEME_MODES:
        raise ValueError(f"theme: must be one of {', '.join(THEME_MODES)}, got {mode!r}")
    return system_theme() if mode == "system" else mode


def use_palette(theme: str) -> dict[str, str]:
    """Switch ``COLORS`` to ``theme``; returns old → new hex of every colour that changed."""
    if theme not in THEMES:
        raise ValueError(f"theme: must be light or dark, got {theme!r}")
    changes = {
        _ACTIVE[name]: value for name, value in THEMES[theme].items() if _ACTIVE[name] != value
    }
    _ACTIVE.update(THEMES[theme])
    _CURRENT["theme"] = theme
    return changes


def style_sheet(scale: float | None = None) -> str:
    c = COLORS
    k = current_scale() if scale is None else float(scale)

    def pt(size: float) -> str:
        return f"{size * k:.0f}"

    return f"""
QMainWindow, QDialog {{ background: {c["window"]}; }}
QToolTip {{
    background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border_strong"]};
    padding: 6px;
}}
QTabWidget::pane {{ border: none; border-top: 1px solid {c["border"]}; top: -1px; }}
QTabBar::tab {{
    background: transparent; color: {c["muted"]}; padding: 9px 18px; margin-right: 2px;
    border: none; border-bottom: 2px solid transparent; font-weight: 600;
}}
QTabBar::tab:selected {{ color: {c["accent_dark"]}; border-bottom: 2px solid {c["accent"]}; }}
QTabBar::tab:hover:!selected {{ color: {c["text"]}; }}
QStatusBar {{ background: {c["surface"]}; border-top: 1px solid {c["border"]}; }}
QStatusBar QLabel {{ color: {c["muted"]}; }}
QScrollArea {{ background: transparent; border: none; }}
QScrollBar:vertical {{ background: transparent; width: 10px; margin: 2px 0 2px 0; }}
QScrollBar::handle:vertical {{
    background: {c["border_strong"]}; border-radius: 4px; min-height: 32px; margin: 0 2px;
}}
QScrollBar::handle:vertical:hover {{ background: {c["faint"]}; }}
QScrollBar::add-line:vertical, QScrollBar::sub-line:vertical {{ height: 0; }}
QScrollBar::add-page:vertical, QScrollBar::sub-page:vertical {{ background: transparent; }}
QSplitter::handle {{ background: transparent; }}
QScrollArea > QWidget > QWidget {{ background: transparent; }}

QFrame#Section {{
    background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: 8px;
}}
QLabel#SectionTitle {{ font-weight: 700; color: {c["text"]}; }}
QLabel#SectionNote, QLabel#Hint {{ color: {c["muted"]}; }}
QLabel#PanelTitle {{ font-size: {pt(BASE_POINT_SIZE + 3)}pt; font-weight: 700; }}
QLabel#FieldLabel {{ color: {c["muted"]}; }}

QLineEdit, QComboBox, QSpinBox, QDoubleSpinBox {{
    background: {c["surface"]}; border: 1px solid {c["border_strong"]}; border-radius: 5px;
    padding: 4px 6px; min-height: 20px; selection-background-color: {c["accent"]};
}}
QLineEdit:focus, QComboBox:focus, QSpinBox:focus, QDoubleSpinBox:focus {{
    border: 1px solid {c["accent"]};
}}
QLineEdit[invalid="true"], QComboBox[invalid="true"], QSpinBox[invalid="true"],
QDoubleSpinBox[invalid="true"] {{
    border: 1px solid {c["bad"]}; background: {c["bad_soft"]};
}}
QComboBox::drop-down {{ border: none; width: 18px; }}
QSpinBox::up-button, QSpinBox::down-button, QDoubleSpinBox::up-button,
QDoubleSpinBox::down-button {{ width: 0px; border: none; }}
QPushButton {{
    background: {c["surface"]}; border: 1px solid {c["border_strong"]}; border-radius: 5px;
    padding: 4px 12px; min-height: 20px;
}}
QPushButton:hover {{ border-color: {c["accent"]}; }}
QPushButton:pressed {{ background: {c["accent_soft"]}; }}
QPushButton:disabled {{ color: {c["faint"]}; border-color: {c["border"]}; }}
QPushButton#LinkButton {{
    border: none; background: transparent; color: {c["accent"]}; padding: 2px 4px;
}}
QPushButton#LinkButton:hover {{ text-decoration: underline; }}
QPushButton#LinkButton:disabled {{ color: {c["faint"]}; }}
QRadioButton, QCheckBox {{ spacing: 6px; }}

QFrame#Card {{
    background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: 8px;
}}
QLabel#CardCaption {{ color: {c["muted"]}; font-size: {pt(BASE_POINT_SIZE - 1)}pt;
    font-weight: 600; }}
QLabel#CardValue {{ font-size: {pt(BASE_POINT_SIZE + 9)}pt; font-weight: 600;
    color: {c["text"]}; }}
QLabel#CardUnit {{ font-size: {pt(BASE_POINT_SIZE + 1)}pt; color: {c["muted"]}; }}
QLabel#CardDetail {{ color: {c["faint"]}; font-size: {pt(BASE_POINT_SIZE - 1)}pt; }}

QLabel#Verdict[verdict="good"] {{
    background: {c["good_soft"]}; color: {c["good"]}; border-radius: 5px; padding: 4px 10px;
    font-weight: 700;
}}
QLabel#Verdict[verdict="bad"] {{
    background: {c["bad_soft"]}; color: {c["bad"]}; border-radius: 5px; padding: 4px 10px;
    font-weight: 700;
}}
QLabel#Verdict[verdict="none"] {{
    background: {c["surface_alt"]}; color: {c["muted"]}; border-radius: 5px; padding: 4px 10px;
}}
QLabel#Badge {{
    background: {c["accent_soft"]}; color: {c["accent_dark"]}; border-radius: 9px;
    padding: 2px 9px; font-weight: 600; font-size: {pt(BASE_POINT_SIZE - 1)}pt;
}}
QLabel#ComingTitle {{ font-size: {pt(BASE_POINT_SIZE + 8)}pt; font-weight: 700; }}
QLabel#ComingText {{ color: {c["muted"]}; font-size: {pt(BASE_POINT_SIZE + 1)}pt; }}

QMenuBar {{
    background: {c["surface"]}; color: {c["text"]}; border-bottom: 1px solid {c["border"]};
}}
QMenuBar::item:selected {{ background: {c["accent_soft"]}; color: {c["text"]}; }}
QMenu {{
    background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border_strong"]};
}}
QMenu::item {{ padding: 5px 22px 5px 22px; }}
QMenu::item:selected {{ background: {c["accent_soft"]}; color: {c["text"]}; }}
QMenu::item:disabled {{ color: {c["faint"]}; }}
QMenu::separator {{ height: 1px; background: {c["border"]}; margin: 4px 8px; }}
QDockWidget {{ color: {c["text"]}; font-weight: 600; }}
QDockWidget::title {{
    background: {c["surface_alt"]}; padding: 6px 10px; border-bottom: 1px solid {c["border"]};
}}
QPlainTextEdit, QTextEdit {{
    background: {c["surface"]}; color: {c["text"]}; border: 1px solid {c["border_strong"]};
    border-radius: 5px; font-weight: 400;
}}
QHeaderView::section {{
    background: {c["surface_alt"]}; color: {c["muted"]}; border: none;
    border-bottom: 1px solid {c["border"]}; padding: 5px 8px; font-weight: 600;
}}
QTableView, QTableWidget {{
    background: {c["surface"]}; alternate-background-color: {c["surface_alt"]};
    color: {c["text"]}; gridline-color: {c["border"]};
}}
QFrame#Banner {{ border-radius: 6px; border: 1px solid {c["border"]}; }}
QFrame#Banner[kind="info"] {{ background: {c["accent_soft"]}; border-color: {c["accent"]}; }}
QFrame#Banner[kind="warn"] {{ background: {c["warn_soft"]}; border-color: {c["warn"]}; }}
QFrame#Banner[kind="error"] {{ background: {c["bad_soft"]}; border-color: {c["bad"]}; }}
QLabel#BannerText {{ color: {c["text"]}; }}
QLabel#DialogTitle {{ font-size: {pt(BASE_POINT_SIZE + 5)}pt; font-weight: 700; }}
QLabel#Legend {{ color: {c["muted"]}; }}
"""


def apply_theme(app: QApplication, theme: str = "light", scale: float = 1.0) -> dict[str, str]:
    """Fusion style, the ``theme`` palette, a readable base font (× ``scale``) and the style
    sheet. Returns the old → new colours (see :func:`use_palette`) for restyling what was
    drawn with the old ones."""
    if not 0.5 <= scale <= 3.0:
        raise ValueError(f"scale: must be between 0.5 and 3, got {scale!r}")
    changes = use_palette(theme)
    _CURRENT["scale"] = repr(float(scale))
    if app.style().name().lower() != "fusion":
        app.setStyle("Fusion")
    app.setPalette(_palette())
    font = QFont(app.font())
    font.setPointSizeF(BASE_POINT_SIZE * scale)
    app.setFont(font)
    app.setStyleSheet(style_sheet())
    return changes


def repolish(widget: object) -> None:
    """Re-apply the style sheet after a dynamic property (``invalid``, ``verdict``) changed."""
    from PySide6.QtWidgets import QWidget

    if isinstance(widget, QWidget):
        style = widget.style()
        style.unpolish(widget)
        style.polish(widget)
        widget.update()
