"""Plot colours come from the theme and stay visible: every series and marker has at least 3:1
contrast (WCAG 2.1 relative luminance) against the plot background in both themes, and plots
really are filled with that background; axes never print exponents."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktopapp.ui.common import theme
from desktopapp.ui.common.axes import si_prefix, si_tick_label, si_tick_strings, tick_strings_of
from desktopapp.ui.common.theme import (
    FIXED_PLOT_COLORS,
    MIN_PLOT_CONTRAST,
    PLOT_PALETTES,
    THEMES,
    contrast_ratio,
    plot_palette,
    relative_luminance,
    themed,
)

THEME_NAMES = ("light", "dark")


@pytest.fixture
def in_theme(qapp: QApplication) -> Iterator[object]:
    """Call with a theme name to switch the application to it; light again afterwards."""

    def use(name: str) -> None:
        theme.apply_theme(qapp, name, 1.0)

    yield use
    theme.apply_theme(qapp, "light", 1.0)


# --- the contrast measure itself ----------------------------------------------------------------


def test_contrast_ratio_matches_wcag_reference_values() -> None:
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)
    # WCAG's often quoted example: #777777 on white is just under 4.5:1.
    assert contrast_ratio("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("#FFFFFF", "#777777") == contrast_ratio("#777777", "#FFFFFF")
    assert relative_luminance("#FF0000") == pytest.approx(0.2126)


def test_contrast_ratio_rejects_a_colour_that_is_not_hex() -> None:
    with pytest.raises(ValueError, match="#RRGGBB"):
        relative_luminance("white")


# --- palettes: pure checks ------------------------------------------------------------------------


@pytest.mark.parametrize("name", THEME_NAMES)
def test_every_series_keeps_three_to_one_against_the_plot_background(name: str) -> None:
    palette = PLOT_PALETTES[name]
    low = {c: round(contrast_ratio(c, palette.background), 2) for c in palette.series}
    assert all(ratio >= MIN_PLOT_CONTRAST for ratio in low.values()), low


@pytest.mark.parametrize("name", THEME_NAMES)
def test_reference_curve_and_markers_keep_three_to_one(name: str) -> None:
    palette = PLOT_PALETTES[name]
    # The reference curve (Cost: "Owning") and a hollow marker's ring ("your fleet") use
    # ``reference``; a filled marker is a series colour, its inside the background.
    assert contrast_ratio(palette.reference, palette.background) >= MIN_PLOT_CONTRAST
    assert contrast_ratio(palette.annotation_text, palette.annotation_fill) >= 4.5
    assert palette.marker_fill == palette.background


@pytest.mark.parametrize("name", THEME_NAMES)
def test_plot_background_is_the_themes_surface(name: str) -> None:
    assert PLOT_PALETTES[name].background == THEMES[name]["surface"]


def test_both_themes_have_the_same_series_roles() -> None:
    light, dark = PLOT_PALETTES["light"], PLOT_PALETTES["dark"]
    assert len(light.series) == len(dark.series) == len(theme.SERIES) >= 6
    assert len(set(light.series)) == len(light.series)
    assert len(set(dark.series)) == len(dark.series)
    assert not set(light.series) & set(dark.series)


def test_known_bugs_are_fixed_through_the_palette() -> None:
    # Dark theme: the Cost tab's owning curve was #1E2733 on #1C222A (1.06:1).
    assert contrast_ratio("#1E2733", "#1C222A") < 1.1
    assert contrast_ratio(themed_in("dark", "#1E2733"), DARK_BG) >= MIN_PLOT_CONTRAST
    # Light theme: the orange series #E0812E was 2.86:1 on white.
    assert contrast_ratio("#E0812E", "#FFFFFF") < MIN_PLOT_CONTRAST
    assert contrast_ratio(themed_in("light", "#E0812E"), "#FFFFFF") >= MIN_PLOT_CONTRAST


DARK_BG = THEMES["dark"]["surface"]


def themed_in(name: str, color_hex: str) -> str:
    before = theme.current_theme()
    theme.use_palette(name)
    try:
        return themed(color_hex)
    finally:
        theme.use_palette(before)


@pytest.mark.parametrize("name", THEME_NAMES)
def test_fixed_presenter_colours_map_to_visible_theme_colours(name: str) -> None:
    """Qt-free presenters hand over fixed colours (application.cost); each becomes a colour
    of the active palette that keeps 3:1."""
    palette = PLOT_PALETTES[name]
    for fixed in FIXED_PLOT_COLORS:
        mapped = themed_in(name, fixed)
        assert mapped in (*palette.series, palette.reference), fixed
        assert contrast_ratio(mapped, palette.background) >= MIN_PLOT_CONTRAST, fixed


def test_themed_maps_series_between_themes_and_leaves_other_colours() -> None:
    light, dark = PLOT_PALETTES["light"], PLOT_PALETTES["dark"]
    for i in range(len(light.series)):
        assert themed_in("dark", light.series[i]) == dark.series[i]
        assert themed_in("light", dark.series[i]) == light.series[i]
    assert themed_in("dark", "#123456") == "#123456"


def test_series_follows_the_active_theme() -> None:
    before = theme.current_theme()
    try:
        theme.use_palette("dark")
        assert theme.SERIES[1] == PLOT_PALETTES["dark"].series[1]
        assert theme.series_color(len(theme.SERIES) + 1) == PLOT_PALETTES["dark"].series[1]
        theme.use_palette("light")
        assert theme.SERIES[1] == PLOT_PALETTES["light"].series[1]
    finally:
        theme.use_palette(before)


# --- what plots actually draw -------------------------------------------------------------------


def _background(widget: object) -> str:
    return str(widget.backgroundBrush().color().name()).upper()  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", THEME_NAMES)
def test_plots_are_filled_with_the_palette_background(qtbot: QtBot, in_theme, name) -> None:
    from desktopapp.ui.common import plots

    in_theme(name)
    widget = plots.make_plot("t", "x", "y")
    qtbot.addWidget(widget)
    assert _background(widget) == plot_palette().background.upper()
    curve = widget.plot([1, 2, 3], [1, 2, 3], pen=plots.pen(1))
    drawn = curve.opts["pen"].color().name()
    assert contrast_ratio(drawn, _background(widget)) >= MIN_PLOT_CONTRAST


def test_restyle_switches_background_curves_and_annotations(qtbot: QtBot, in_theme) -> None:
    from desktopapp.ui.common import plots
    from desktopapp.ui.common.appearance import restyle_plot

    in_theme("light")
    widget = plots.make_plot("t", "x", "y")
    qtbot.addWidget(widget)
    curve = widget.plot([1, 2, 3], [1, 2, 3], pen=plots.pen(1))
    dot = plots.marker()
    widget.addItem(dot)
    note = plots.annotation("note")
    widget.addItem(note)
    assert note.fill.color().name().upper() == PLOT_PALETTES["light"].annotation_fill

    in_theme("dark")
    restyle_plot(widget)
    dark = PLOT_PALETTES["dark"]
    assert _background(widget) == dark.background.upper()
    assert curve.opts["pen"].color().name().upper() == dark.series[1]
    assert dot.opts["symbolBrush"].color().name().upper() == dark.series[0]
    assert note.fill.color().name().upper() == dark.annotation_fill
    assert note.border.color().name().upper() == dark.annotation_border
    assert note.color.name().upper() == dark.annotation_text.upper()


def test_annotation_html_uses_the_theme_box(in_theme) -> None:
    from desktopapp.ui.common import plots

    in_theme("dark")
    text = plots.annotation_html("42%", bold=True)
    assert "rgba(255,255,255" not in text
    fill = QColor(PLOT_PALETTES["dark"].annotation_fill)
    assert f"rgba({fill.red()},{fill.green()},{fill.blue()}," in text


@pytest.mark.parametrize("name", THEME_NAMES)
def test_cost_plot_owning_curve_and_fleet_marker_are_visible(
    qtbot: QtBot, in_theme, name: str
) -> None:
    """The Cost tab's curve plot, drawn in each theme: the owning curve, the current-choice
    marker and the hollow "your fleet" marker keep 3:1 against the plot's real background."""
    import numpy as np

    from desktopapp.ui.cost.results import PlotsPanel

    in_theme(name)
    panel = PlotsPanel()
    qtbot.addWidget(panel)
    u = np.linspace(0.05, 1.0, 20)
    panel.set_curves(u, 3.0 / u, 0.5, 6.0, [("Cloud A", "#E0812E", 2.5, 0.6)], 0.2, 15.0)
    background = _background(panel.curve_plot)
    owning = panel.owning_curve.opts["pen"].color().name()
    assert contrast_ratio(owning, background) >= MIN_PLOT_CONTRAST
    marker = panel.owning_marker.opts["symbolBrush"].color().name()
    assert contrast_ratio(marker, background) >= MIN_PLOT_CONTRAST
    scatter = [
        item
        for item in panel.curve_plot.getPlotItem().items
        if type(item).__name__ == "ScatterPlotItem" and item.opts.get("symbol") == "d"
    ]
    assert scatter, "the your-fleet marker is drawn"
    ring_color = scatter[0].opts["pen"].color().name()
    assert contrast_ratio(ring_color, background) >= MIN_PLOT_CONTRAST
    dots = [
        item.opts["brush"].color().name()
        for item in panel.curve_plot.getPlotItem().items
        if type(item).__name__ == "ScatterPlotItem" and item.opts.get("symbol") == "o"
    ]
    assert dots and all(contrast_ratio(c, background) >= MIN_PLOT_CONTRAST for c in dots)
    option_lines = [
        item.opts["pen"].color().name()
        for item in panel.curve_plot.getPlotItem().items
        if type(item).__name__ == "PlotDataItem" and item is not panel.owning_curve
        if item.opts.get("pen") is not None and item is not panel.owning_marker
    ]
    assert option_lines
    assert all(contrast_ratio(c, background) >= MIN_PLOT_CONTRAST for c in option_lines)


# --- axis numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize("exponent", range(-9, 16))
def test_axis_ticks_never_use_exponents_and_carry_the_unit(qtbot: QtBot, exponent: int) -> None:
    from desktopapp.ui.common.axes import make_axis

    axis = make_axis("left", "s")
    low, high = 0.0, 1.5 * 10.0**exponent
    strings = tick_strings_of(axis, low, high)
    assert len(strings) >= 2
    for text in strings:
        assert "e+" not in text and "e-" not in text and "x1e" not in text, strings
        assert text.endswith("s"), strings
    axis.deleteLater()


@pytest.mark.parametrize(("low", "high"), [(1e-9, 1e-3), (1.0, 1e15), (1e3, 1e12), (1e-6, 10.0)])
def test_log_axis_ticks_never_use_exponents(qtbot: QtBot, low: float, high: float) -> None:
    from desktopapp.ui.common.axes import make_axis

    axis = make_axis("bottom", "FLOP")
    axis.setLogMode(True)
    strings = [s for s in tick_strings_of(axis, low, high) if s]
    assert strings
    for text in strings:
        assert "e+" not in text and "e-" not in text and "10" + "⁻" not in text, strings
        assert text.endswith("FLOP"), strings
    axis.deleteLater()


def test_plot_factory_axes_use_the_si_formatter(qtbot: QtBot) -> None:
    from desktopapp.ui.common import plots

    widget = plots.make_plot("t", "x", "y", x_unit="s", y_unit="FLOP/s")
    qtbot.addWidget(widget)
    item = widget.getPlotItem()
    widget.plot([0, 1e-6, 2e-6], [0, 4e7, 8.4e7])
    left = tick_strings_of(item.getAxis("left"), 0.0, 8.4e7)
    bottom = tick_strings_of(item.getAxis("bottom"), 0.0, 2e-6)
    assert all(s.endswith(" MFLOP/s") for s in left), left
    assert all(s.endswith(" µs") for s in bottom), bottom
    assert "x1e" not in item.getAxis("left").labelString()


def test_si_tick_strings_share_one_prefix_with_the_needed_decimals() -> None:
    assert si_tick_strings([0.0, 5e-7, 1e-6], 5e-7, "s") == ["0 µs", "0.5 µs", "1.0 µs"]
    assert si_tick_strings([0.0, 2.5e6, 5e6], 2.5e6) == ["0 M", "2.5 M", "5.0 M"]
    assert si_tick_strings([-1e3, 0.0, 1e3], 1e3, "W") == ["-1 kW", "0 kW", "1 kW"]
    assert si_tick_strings([math.nan], 1.0) == ["—"]


def test_fractions_stay_decimals_unless_the_unit_takes_milli_and_micro() -> None:
    # Hours and bare numbers: "0.1", never "100 m" (read as minutes or metres).
    assert si_tick_label(0.1) == "0.1"
    assert si_tick_label(0.001, "h") == "0.001 h"
    assert si_tick_strings([0.0, 0.25, 0.5], 0.25, "h") == ["0 h", "0.25 h", "0.50 h"]
    assert si_tick_strings([0.0, 5e-10, 1e-9], 5e-10, "FLOP")[1] == "0.0000000005 FLOP"
    assert si_tick_label(0.002, "s") == "2 ms"
    # Money goes through the app's money format.
    from desktopapp.model.units import format_money

    assert si_tick_strings([0.0, 2e5], 2e5, "$") == [format_money(0.0), format_money(2e5)]
    # One style per axis: millions from a million on, never "$900,000" beside "$1.00M".
    assert si_tick_strings([9e5, 1e6, 1.1e6], 1e5, "$") == ["$0.9M", "$1.0M", "$1.1M"]
    assert si_tick_strings([0.0, 5e8, 1e9], 5e8, "$") == ["$0.0B", "$0.5B", "$1.0B"]
    # Hours read as hours: thousands separators, never "kh".
    assert si_tick_strings([0.0, 1500.0, 3000.0], 1500.0, "h") == ["0 h", "1,500 h", "3,000 h"]
    assert [si_tick_label(v, "h") for v in (0.5, 100.0, 12345.0)] == ["0.5 h", "100 h", "12,345 h"]
    assert si_tick_label(1.5e6, "$") == format_money(1.5e6)


def test_si_tick_label_drops_trailing_zeros() -> None:
    assert si_tick_label(2e6) == "2 M"
    assert si_tick_label(1.5e-6, "s") == "1.5 µs"
    assert si_tick_label(1e27, "FLOP") == "1,000 YFLOP"
    assert si_prefix(999.0) == (1.0, "")
    assert si_prefix(999.99999999999) == (1e3, "k")  # float noise reads as 1 k, not 1,000
    assert si_prefix(1000.0) == (1e3, "k")


# --- every plot in the window -------------------------------------------------------------------


def _drawn_colors(plot: object) -> list[tuple[str, str]]:
    """(what, #rrggbb) of every opaque curve pen, symbol fill and bar/scatter fill in a plot."""
    from desktopapp.ui.common.plots import pg

    module = pg()
    found: list[tuple[str, str]] = []
    for item in plot.getPlotItem().items:  # type: ignore[attr-defined]
        opts = getattr(item, "opts", None)
        if not isinstance(opts, dict) or isinstance(item, module.TextItem):
            continue
        if isinstance(item, module.PlotDataItem) and (item.xData is None or not len(item.xData)):
            continue  # nothing drawn
        for key in ("pen", "symbolBrush", "brush"):
            value = opts.get(key)
            color = getattr(value, "color", None)
            if callable(color) and color().alpha() == 255 and value.style() != 0:
                found.append((f"{type(item).__name__}.{key}", color().name()))
    return found


@pytest.mark.parametrize("name", THEME_NAMES)
@pytest.mark.parametrize("tab", ["estimate", "cost", "monitor"])  # hardware: no plot until a run
def test_every_plot_in_the_window_uses_the_palette(
    qtbot: QtBot, in_theme, isolated_home, name: str, tab: str
) -> None:
    from desktopapp.app import wait_until_ready
    from desktopapp.ui.common.appearance import plot_widgets
    from desktopapp.ui.main_window import MainWindow

    window = MainWindow(initial_tab=tab, remember=False, theme_mode=name)
    qtbot.addWidget(window)
    window.resize(1440, 900)
    window.show()
    assert wait_until_ready(window, 30.0)
    plots = plot_widgets(window)
    assert plots
    palette = plot_palette(name)
    background = palette.background.upper()
    # A marker's ring and a hollow marker's inside are the background on purpose: they
    # separate the marker from the curve under it.
    decorative = {palette.marker_outline.lower(), palette.marker_fill.lower()}
    low = []
    for plot in plots:
        if not plot.isVisible():
            continue
        assert _background(plot) == background
        for what, drawn in _drawn_colors(plot):
            if drawn.lower() in decorative:
                continue
            if contrast_ratio(drawn, background) < MIN_PLOT_CONTRAST:
                low.append((what, drawn, round(contrast_ratio(drawn, background), 2)))
    assert not low, low


def test_a_plot_made_in_presentation_mode_gets_presentation_fonts(
    qtbot: QtBot, qapp: QApplication, in_theme
) -> None:
    """Tabs build plots after the window switched to presentation mode; those plots must not
    keep the normal-size title and ticks."""
    from desktopapp.ui.common import plots

    normal = plots.make_plot("Wall time vs devices", "devices", "hours")
    qtbot.addWidget(normal)
    theme.apply_theme(qapp, "light", theme.PRESENTATION_SCALE)
    try:
        large = plots.make_plot("Wall time vs devices", "devices", "hours")
        qtbot.addWidget(large)
        small_font = normal.getPlotItem().getAxis("left").style["tickFont"].pointSizeF()
        large_font = large.getPlotItem().getAxis("left").style["tickFont"].pointSizeF()
        assert large_font == pytest.approx(small_font * theme.PRESENTATION_SCALE, rel=0.01)
        assert "font-size:14.0pt" in large.getPlotItem().titleLabel.text
    finally:
        theme.apply_theme(qapp, "light", 1.0)


def test_cost_plot_follows_a_theme_switch(qtbot: QtBot, in_theme) -> None:
    """Switching to dark with the Cost tab open recolours what it drew in light."""
    import numpy as np

    from desktopapp.ui.common.appearance import restyle_plot
    from desktopapp.ui.cost.results import PlotsPanel

    in_theme("light")
    panel = PlotsPanel()
    qtbot.addWidget(panel)
    u = np.linspace(0.05, 1.0, 20)
    panel.set_curves(u, 3.0 / u, 0.5, 6.0, [("Cloud A", "#E0812E", 2.5, 0.6)], 0.2, 15.0)
    assert panel.owning_curve.opts["pen"].color().name().upper() == LIGHT_REFERENCE
    in_theme("dark")
    restyle_plot(panel.curve_plot)
    dark = PLOT_PALETTES["dark"]
    assert panel.owning_curve.opts["pen"].color().name().upper() == dark.reference.upper()
    assert panel.owning_marker.opts["symbolBrush"].color().name().upper() == dark.reference
    fleet = [
        item
        for item in panel.curve_plot.getPlotItem().items
        if type(item).__name__ == "ScatterPlotItem" and item.opts.get("symbol") == "d"
    ]
    assert fleet[0].opts["pen"].color().name().upper() == dark.reference.upper()


LIGHT_REFERENCE = PLOT_PALETTES["light"].reference.upper()


@pytest.mark.parametrize("name", THEME_NAMES)
@pytest.mark.parametrize("status", ["good", "warn", "bad"])
def test_status_text_reads_at_four_and_a_half_to_one(name: str, status: str) -> None:
    """Verdicts ("Own saves $41,403", "Rent saves …"), warnings and errors are text in the
    status colours: 4.5:1 on every ground they sit on, their own soft tint included (the light
    theme's green was 4.2:1 and its amber 3.6:1 on white, 3.3:1 on the amber card)."""
    colors = THEMES[name]
    for ground in ("surface", "surface_alt", "window", f"{status}_soft"):
        ratio = contrast_ratio(colors[status], colors[ground])
        assert ratio >= 4.5, f"{status} on {ground}: {ratio:.2f}:1"
