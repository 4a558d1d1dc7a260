"""One restrained light palette, fonts and the application style sheet.

Widgets take colours from here (``COLORS``) so every tab looks the same; plots use
``SERIES`` in order. A dark palette can be added later by swapping ``COLORS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

COLORS: Mapping[str, str] = MappingProxyType(
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


def style_sheet() -> str:
    c = COLORS
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
QLabel#PanelTitle {{ font-size: {BASE_POINT_SIZE + 3:.0f}pt; font-weight: 700; }}
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
QLabel#CardCaption {{ color: {c["muted"]}; font-size: {BASE_POINT_SIZE - 1:.0f}pt;
    font-weight: 600; }}
QLabel#CardValue {{ font-size: {BASE_POINT_SIZE + 9:.0f}pt; font-weight: 600;
    color: {c["text"]}; }}
QLabel#CardUnit {{ font-size: {BASE_POINT_SIZE + 1:.0f}pt; color: {c["muted"]}; }}
QLabel#CardDetail {{ color: {c["faint"]}; font-size: {BASE_POINT_SIZE - 1:.0f}pt; }}

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
    padding: 2px 9px; font-weight: 600; font-size: {BASE_POINT_SIZE - 1:.0f}pt;
}}
QLabel#ComingTitle {{ font-size: {BASE_POINT_SIZE + 8:.0f}pt; font-weight: 700; }}
QLabel#ComingText {{ color: {c["muted"]}; font-size: {BASE_POINT_SIZE + 1:.0f}pt; }}
"""


def apply_theme(app: QApplication) -> None:
    """Fusion style, the light palette, a readable base font and the style sheet."""
    app.setStyle("Fusion")
    app.setPalette(_palette())
    font = QFont(app.font())
    font.setPointSizeF(BASE_POINT_SIZE)
    app.setFont(font)
    app.setStyleSheet(style_sheet())


def repolish(widget: object) -> None:
    """Re-apply the style sheet after a dynamic property (``invalid``, ``verdict``) changed."""
    from PySide6.QtWidgets import QWidget

    if isinstance(widget, QWidget):
        style = widget.style()
        style.unpolish(widget)
        style.polish(widget)
        widget.update()
