"""Light and dark palettes, fonts and the application style sheet.

Widgets take colours from here (``COLORS``) so every tab looks the same. Plots take theirs from
the active :class:`PlotPalette` (:func:`plot_palette`: series, the reference curve, markers,
annotation boxes, fills), each series at least 3:1 against the plot background in both themes;
``SERIES`` reads the active palette's series in order and :func:`themed` maps a plot colour of
either theme, or a fixed one a Qt-free presenter hands over, to the active theme.

``COLORS`` is a read-only view of the *active* palette: :func:`apply_theme` switches it
between :data:`LIGHT_COLORS` and :data:`DARK_COLORS` in place, so code that reads
``COLORS[...]`` when it draws follows the theme. ``scale`` enlarges every font (presentation
mode). The theme mode "system" follows the desktop's colour scheme (:func:`system_theme`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
        "good": "#187A43",
        "good_soft": "#E4F4EA",
        "bad": "#BE3434",
        "bad_soft": "#FDECEC",
        "warn": "#96600F",
        "warn_soft": "#FDF3E1",
        "band": "#DCE8FC",
        "control": "#6B7686",  # outlines of radio buttons and slider grooves (3:1 or more)
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
        "control": "#8E99A8",  # outlines of radio buttons and slider grooves (3:1 or more)
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


@dataclass(frozen=True)
class PlotPalette:
    """The colours plots draw with in one theme.

    Every ``series`` colour, ``reference`` (the thick "your choice" curve, e.g. owning on the
    Cost tab) and ``marker_fill`` keeps at least :data:`MIN_PLOT_CONTRAST` (WCAG 2.1 relative
    luminance ratio, the 3:1 asked of graphical objects by success criterion 1.4.11) against
    ``background``, which is the theme's ``surface`` colour that every plot is filled with
    (tests/ui/test_theme_contrast.py checks both). Annotation boxes (pyqtgraph ``TextItem``)
    use ``annotation_*``; area fills under a curve use the curve's colour at ``fill_alpha``.
    """

    background: str
    series: tuple[str, ...]
    reference: str
    marker_fill: str  # a hollow marker's inside ("your fleet" diamond): the background
    marker_outline: str  # ring around a filled marker, separating it from the curve below
    annotation_text: str
    annotation_fill: str
    annotation_alpha: int  # 0..255: how opaque an annotation box is over the curves
    annotation_border: str
    fill_alpha: int  # 0..255: area under a filled curve
    band: str  # shaded region (typical range)
    axis: str
    axis_text: str

    def series_color(self, index: int) -> str:
        return self.series[index % len(self.series)]

    def annotation_css(self) -> str:
        """The annotation box fill as a CSS ``rgba(...)`` for rich-text labels."""
        fill = QColor(self.annotation_fill)
        return f"rgba({fill.red()},{fill.green()},{fill.blue()},{self.annotation_alpha})"


MIN_PLOT_CONTRAST = 3.0


def relative_luminance(color_hex: str) -> float:
    """WCAG 2.1 relative luminance of ``#RRGGBB`` (0 black … 1 white)."""
    text = color_hex.strip().lstrip("#")
    if len(text) != 6:
        raise ValueError(f"colour: expected #RRGGBB, got {color_hex!r}")
    channels = [int(text[i : i + 2], 16) / 255.0 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(first_hex: str, second_hex: str) -> float:
    """WCAG 2.1 contrast ratio of two colours, 1 (same) … 21 (black on white)."""
    high, low = sorted((relative_luminance(first_hex), relative_luminance(second_hex)))[::-1]
    return (high + 0.05) / (low + 0.05)


# Light series: the hues the app always used, darkened where they fell under 3:1 on white
# (orange #E0812E was 2.9:1, teal #2A9D8F 3.3:1, gold #B8860B 3.3:1, cyan #4BA3C3 2.9:1).
LIGHT_PLOT = PlotPalette(
    background=LIGHT_COLORS["surface"],
    series=(
        "#2F6FEB",  # blue
        "#C05F12",  # orange
        "#1F8576",  # teal
        "#8E5CD9",  # purple
        "#C2478A",  # magenta
        "#66717F",  # slate
        "#9A6F00",  # gold
        "#2A7FA3",  # cyan
        "#5F7019",  # olive
        "#C6424A",  # red
    ),
    reference=LIGHT_COLORS["text"],
    marker_fill=LIGHT_COLORS["surface"],
    marker_outline="#FFFFFF",
    annotation_text=LIGHT_COLORS["text"],
    annotation_fill="#FFFFFF",
    annotation_alpha=215,
    annotation_border=LIGHT_COLORS["border_strong"],
    fill_alpha=34,
    band=LIGHT_COLORS["band"],
    axis=LIGHT_COLORS["border_strong"],
    axis_text=LIGHT_COLORS["muted"],
)

# Dark series: the same hues, lightened to stand out on the dark surface (#1C222A); the
# reference curve is the text colour (it was the light theme's #1E2733: 1.06:1 on #1C222A).
DARK_PLOT = PlotPalette(
    background=DARK_COLORS["surface"],
    series=(
        "#6E9CF3",
        "#F0A05A",
        "#3CC2AE",
        "#B28EF2",
        "#E57DB5",
        "#A3ADBA",
        "#D9B24C",
        "#62C3E6",
        "#A9BE4E",
        "#F2777D",
    ),
    reference=DARK_COLORS["text"],
    marker_fill=DARK_COLORS["surface"],
    marker_outline=DARK_COLORS["surface"],
    annotation_text=DARK_COLORS["text"],
    annotation_fill=DARK_COLORS["surface_alt"],
    annotation_alpha=230,
    annotation_border=DARK_COLORS["border_strong"],
    fill_alpha=56,
    band=DARK_COLORS["band"],
    axis=DARK_COLORS["border_strong"],
    axis_text=DARK_COLORS["muted"],
)

PLOT_PALETTES: Mapping[str, PlotPalette] = MappingProxyType(
    {"light": LIGHT_PLOT, "dark": DARK_PLOT}
)

# Colours that Qt-free presenters and older code hard-code (desktopapp.application.cost's
# OWNING_COLOR and OPTION_COLORS, the first SERIES); :func:`themed` maps them to the role they
# stand for in the active palette.
FIXED_PLOT_COLORS: Mapping[str, str] = MappingProxyType(
    {
        "#1E2733": "reference",
        "#2F6FEB": "series0",
        "#E0812E": "series1",
        "#2A9D8F": "series2",
        "#8E5CD9": "series3",
        "#C2478A": "series4",
        "#6B7785": "series5",
        "#B8860B": "series6",
        "#4BA3C3": "series7",
        "#7A8B2E": "series8",
        "#D0555A": "series9",
    }
)


def plot_palette(theme: str | None = None) -> PlotPalette:
    """The plot colours of ``theme`` (default: the active theme)."""
    name = current_theme() if theme is None else theme
    if name not in PLOT_PALETTES:
        raise ValueError(f"theme: must be light or dark, got {name!r}")
    return PLOT_PALETTES[name]


def series_color(index: int) -> str:
    """Series colour ``index`` (wrapping) of the active theme."""
    return plot_palette().series_color(index)


def _role_color(palette: PlotPalette, role: str) -> str:
    if role.startswith("series"):
        return palette.series_color(int(role[len("series") :]))
    return str(getattr(palette, role))


@functools.cache
def _roles_by_hex() -> Mapping[str, str]:
    """Each plot colour of either theme → its role (built once: both palettes are constants,
    and a live benchmark plot asks for every colour on every update)."""
    roles: dict[str, str] = {}
    for palette in (DARK_PLOT, LIGHT_PLOT):
        roles[palette.marker_outline.lower()] = "marker_outline"
        roles[palette.marker_fill.lower()] = "marker_fill"
    for hex_color, role in FIXED_PLOT_COLORS.items():
        roles[hex_color.lower()] = role
    for palette in (DARK_PLOT, LIGHT_PLOT):  # light wins where both use one hex
        for i, value in enumerate(palette.series):
            roles[value.lower()] = f"series{i}"
        roles[palette.reference.lower()] = "reference"
    return MappingProxyType(roles)


def themed(color_hex: str) -> str:
    """A plot colour of either theme (or a fixed one from :data:`FIXED_PLOT_COLORS`) → the
    colour of the same role in the active theme; any other colour is returned unchanged."""
    role = _roles_by_hex().get(color_hex.strip().lower())
    return _role_color(plot_palette(), role) if role is not None else color_hex


class _ActiveSeries(Sequence[str]):
    """``SERIES[i]``: series colour ``i`` of the theme active when it is read."""

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return plot_palette().series[index]

    def __len__(self) -> int:
        return len(LIGHT_PLOT.series)

    def __repr__(self) -> str:
        return f"SERIES{tuple(self)!r}"


# Plot series, in order of use, of the active theme (read them when drawing).
SERIES: Sequence[str] = _ActiveSeries()

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

    def px(size: float) -> int:
        return round(size * k)

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
QRadioButton::indicator {{
    width: {px(13)}px; height: {px(13)}px; border-radius: {px(13) // 2 + 2}px;
    border: 2px solid {c["control"]}; background: {c["surface"]};
}}
QRadioButton::indicator:checked {{
    border-color: {c["accent"]};
    background: qradialgradient(cx:0.5, cy:0.5, radius:0.5, fx:0.5, fy:0.5,
        stop:0 {c["accent"]}, stop:0.45 {c["accent"]}, stop:0.55 {c["surface"]},
        stop:1 {c["surface"]});
}}
QRadioButton::indicator:disabled {{ border-color: {c["border_strong"]}; }}
QSlider::groove:horizontal {{
    height: 4px; background: {c["control"]}; border-radius: 2px;
}}
QSlider::sub-page:horizontal {{ background: {c["accent"]}; border-radius: 2px; }}
QSlider::handle:horizontal {{
    background: {c["accent"]}; border: 2px solid {c["surface"]};
    width: {px(14)}px; margin: -{px(14) // 2}px 0; border-radius: {px(14) // 2 + 2}px;
}}
QSlider::handle:horizontal:hover {{ background: {c["accent_dark"]}; }}

QFrame#Card {{
    background: {c["surface"]}; border: 1px solid {c["border"]}; border-radius: 8px;
}}
QLabel#CardCaption {{ color: {c["muted"]}; font-size: {pt(BASE_POINT_SIZE - 1)}pt;
    font-weight: 600; }}
QLabel#CardValue {{ font-size: {pt(BASE_POINT_SIZE + 9)}pt; font-weight: 600;
    color: {c["text"]}; }}
QLabel#CardUnit {{ font-size: {pt(BASE_POINT_SIZE + 1)}pt; color: {c["muted"]}; }}
QLabel#CardDetail {{ color: {c["muted"]}; font-size: {pt(BASE_POINT_SIZE - 1)}pt; }}

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
