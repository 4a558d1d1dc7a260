"""Shared widgets and helpers in desktopapp.ui.common."""

from __future__ import annotations

import sys
import threading
import time
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QThread
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktopapp.model.catalog import accelerator_catalog
from desktopapp.model.units import DASH
from desktopapp.ui.common import qt_compat, timers, workers
from desktopapp.ui.common.about import AboutDialog, versions
from desktopapp.ui.common.accelerator_combo import AcceleratorCombo
from desktopapp.ui.common.band_slider import BandSlider
from desktopapp.ui.common.icons import PNG_SIZES, app_icon, png_path, render_pngs, svg_path
from desktopapp.ui.common.placeholder import ComingPanel
from desktopapp.ui.common.quantity_edit import QuantityEdit, compact_quantity
from desktopapp.ui.common.range_bar import RangeBar
from desktopapp.ui.common.result_card import ResultCard, formula_tooltip, split_value_unit

# --- quantity edit --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("110M", 110e6), ("7B", 7e9), ("1.5e9", 1.5e9), ("3.3 T", 3.3e12), ("2,048", 2048.0)],
)
def test_quantity_edit_parses_suffixes(qtbot: QtBot, text: str, expected: float) -> None:
    edit = QuantityEdit("params")
    qtbot.addWidget(edit)
    with qtbot.waitSignal(edit.value_changed) as signal:
        edit.setText(text)
    assert edit.value() == pytest.approx(expected)
    assert signal.args == [pytest.approx(expected)]
    assert edit.is_valid()
    assert not edit.property("invalid")


@pytest.mark.parametrize(
    ("text", "reason"),
    [("abc", "is not a number"), ("-5", "greater than 0"), ("", "required"), ("nan", "")],
)
def test_quantity_edit_marks_invalid_text(qtbot: QtBot, text: str, reason: str) -> None:
    edit = QuantityEdit("tokens", tooltip="Training tokens")
    qtbot.addWidget(edit)
    edit.setText("1B")
    edit.setText(text)
    assert edit.value() is None
    assert edit.property("invalid") is True
    error = edit.error()
    assert error is not None and error.startswith("Training tokens: ")
    assert reason in error
    assert "Invalid" in edit.toolTip() and "Training tokens" in edit.toolTip()
    edit.setText("2B")
    assert edit.property("invalid") is False
    assert edit.toolTip() == "Training tokens"


@pytest.mark.parametrize(
    ("field", "options", "text", "expected"),
    [
        (
            "server_price",
            {"currency": True},
            "lots",
            "Server price: 'lots' is not a number (examples: 2.49, $1.99, 300k)",
        ),
        ("params", {}, "lots", "Parameters: 'lots' is not a number (examples: 110M, 7B"),
        ("server_price", {"currency": True}, "1,5", "Server price: '1,5' is not a number: a comma"),
        ("server_price", {}, "", "Server price: a value is required"),
        ("gpus_per_server", {"integer": True}, "2.5", "GPUs per server: must be a whole number"),
        ("pue", {"minimum": 1.0, "minimum_inclusive": True}, "0.5", "PUE: must be at least 1"),
        ("kwh_price", {}, "-1", "Electricity price per kWh: must be greater than 0, got '-1'"),
        ("max_batch_tokens", {}, "0", "max batch tokens: must be greater than 0"),
    ],
)
def test_quantity_edit_errors_name_the_field_in_the_users_words(
    qtbot: QtBot, field: str, options: dict[str, Any], text: str, expected: str
) -> None:
    """Issue 16: the field's own error (tooltip, status bar) names the field by its label and
    says what is allowed, never the internal name (``server_price: …``)."""
    edit = QuantityEdit(field, tooltip="Base tip", **options)
    qtbot.addWidget(edit)
    edit.setText("7")
    edit.setText(text)
    error = edit.error() or ""
    assert error.startswith(expected)
    assert field not in error
    assert expected in edit.toolTip() and field not in edit.toolTip()


def test_quantity_edit_extra_check_reads_in_the_users_words(qtbot: QtBot) -> None:
    edit = QuantityEdit("spot_overhead")
    qtbot.addWidget(edit)
    edit.set_extra_check(lambda v: "must be below 100" if v >= 100 else None)
    edit.setText("150")
    assert edit.error() == "Spot interruption overhead: must be below 100, got '150'"
    edit.setText("20")
    assert edit.is_valid()


def test_quantity_edit_integer_currency_and_empty(qtbot: QtBot) -> None:
    count = QuantityEdit("gpus", integer=True)
    price = QuantityEdit("price", allow_empty=True, currency=True)
    qtbot.addWidget(count)
    qtbot.addWidget(price)
    count.setText("2.5")
    assert count.value() is None and "whole number" in (count.error() or "")
    count.setText("4k")
    assert count.value() == 4000
    price.setText("$2.49")
    assert price.value() == pytest.approx(2.49)
    price.setText("")
    assert price.value() is None and price.is_valid()


def test_quantity_edit_set_value_is_silent_and_pristine(qtbot: QtBot) -> None:
    edit = QuantityEdit("params")
    qtbot.addWidget(edit)
    seen: list[object] = []
    edit.value_changed.connect(seen.append)
    edit.set_value(7e9)
    assert edit.text() == "7B" and edit.value() == 7e9
    edit.set_value(None)  # a preset without this figure: empty, not marked
    assert seen == []
    assert not edit.property("invalid") and edit.is_pristine_empty()
    assert edit.error() is not None  # still cannot be used
    edit.set_error("params: model says no")
    assert not edit.property("invalid")  # pristine: stays quiet
    edit.setText("x")
    assert edit.property("invalid") is True


@pytest.mark.parametrize("value", [7e9, 1.5e9, 110e6, 3.3e12, 0.5, 12.0, 123456789.0])
def test_compact_quantity_round_trips(value: float) -> None:
    from desktopapp.model.units import parse_quantity

    assert parse_quantity(compact_quantity(value)) == pytest.approx(value, rel=1e-5)


@pytest.mark.parametrize(
    ("value", "text"),
    [(999e12, "999T"), (1e15, "1e15"), (1e17, "1e17"), (2.5e17, "2.5e17"), (1e40, "1e40")],
)
def test_compact_quantity_past_the_t_suffix_is_scientific(value: float, text: str) -> None:
    """A scenario's 1e17 tokens showed as "1e+05T" in its field."""
    from desktopapp.model.units import parse_quantity

    assert compact_quantity(value) == text
    assert parse_quantity(text) == value


# --- result card, range bar ---------------------------------------------------------------------


def test_split_value_unit() -> None:
    assert split_value_unit("2.18 EFLOP") == ("2.18", "EFLOP")
    assert split_value_unit("36.4 min") == ("36.4", "min")
    assert split_value_unit("13.0 GiB") == ("13.0", "GiB")
    assert split_value_unit("$9.70") == ("$9.70", "")
    assert split_value_unit(DASH) == (DASH, "")


def test_result_card_shows_value_unit_and_formula(qtbot: QtBot) -> None:
    card = ResultCard("Total compute")
    qtbot.addWidget(card)
    tip = formula_tooltip("Total compute", "C = 6 × N × D", [("params", "110M")])
    card.set_formatted("2.18 EFLOP", "6·N·D", tip)
    assert card.value_text() == "2.18 EFLOP"
    assert "C = 6 × N × D" in card.toolTip() and "110M" in card.toolTip()
    card.clear("needs tokens")
    assert card.value_text() == DASH
    assert card.toolTip() == "needs tokens"


def test_range_bar_paints_and_rejects_nonsense(qtbot: QtBot) -> None:
    bar = RangeBar()
    qtbot.addWidget(bar)
    bar.resize(400, bar.sizeHint().height())
    bar.set_range(10.0, 10.0, 30.0, lambda v: f"{v:g} h")
    assert bar.has_range() and bar.labels() == ("10 h", "30 h")
    image = bar.grab().toImage()
    assert not image.isNull()
    bar.set_range(float("nan"), 1.0, 2.0, str)
    assert not bar.has_range() and bar.labels() == (DASH, DASH)
    bar.set_range(5.0, 5.0, 1.0, str)  # low above high
    assert not bar.has_range()


def test_band_slider_reports_fraction(qtbot: QtBot) -> None:
    slider = BandSlider(5, 80, (30, 50))
    qtbot.addWidget(slider)
    moved: list[float] = []
    slider.value_changed.connect(moved.append)
    slider.set_fraction(0.4)
    assert moved == [] and slider.fraction() == pytest.approx(0.4)
    assert slider.value_label.text() == "40%"
    slider.set_fraction(0.99)  # clamps
    assert slider.fraction() == pytest.approx(0.80)
    slider.slider.setValue(33)
    assert moved == [pytest.approx(0.33)]
    assert slider.band() == (30, 50)


# --- accelerator combo ------------------------------------------------------------------------


def test_accelerator_combo_type_to_search(qtbot: QtBot) -> None:
    catalog = accelerator_catalog()
    combo = AcceleratorCombo()
    qtbot.addWidget(combo)
    combo.set_accelerators(catalog.accelerators)
    assert combo.accelerator_ids() == list(catalog.ids)
    first = catalog.ids[0]
    assert combo.set_accelerator_id(first)
    h100 = [a.id for a in catalog.accelerators if "H100" in a.name]
    assert h100, "catalog should list an H100"
    assert set(h100) <= set(combo.search("h100"))
    assert combo.search("no such device") == []

    chosen: list[str] = []
    combo.accelerator_changed.connect(chosen.append)
    line = combo.lineEdit()
    assert line is not None
    line.setText("h100")
    line.editingFinished.emit()
    assert combo.accelerator_id() in h100
    assert chosen == [combo.accelerator_id()]
    # Text that matches nothing restores the current accelerator.
    line.setText("zzzz")
    line.editingFinished.emit()
    assert combo.accelerator_id() in h100 and chosen == [combo.accelerator_id()]
    assert "H100" in combo.currentText()
    # Picking a suggestion from the type-to-search popup.
    completer = combo.completer()
    assert completer is not None
    completer.setCompletionPrefix("mi300")
    assert completer.completionCount() >= 1
    completer.activated.emit(completer.currentCompletion())
    assert combo.accelerator_id().startswith("mi300")
    assert chosen[-1] == combo.accelerator_id()


# --- workers and timers ---------------------------------------------------------------------------


def test_task_runner_drops_stale_results(qtbot: QtBot) -> None:
    runner = workers.TaskRunner("test")
    gate = threading.Event()
    results: list[object] = []
    runner.result_ready.connect(results.append)

    def slow() -> str:
        gate.wait(5)
        return "old"

    runner.submit(slow)
    assert any(w.isRunning() for w in workers.live_workers())
    with qtbot.waitSignal(runner.result_ready, timeout=5000):
        runner.submit(lambda: "new")
    gate.set()
    qtbot.waitUntil(lambda: not workers.live_workers(), timeout=5000)
    qtbot.wait(20)  # let the queued stale result arrive
    assert results == ["new"]
    assert runner.dropped == 1
    assert runner.generation == 2


def test_task_runner_reports_errors_and_cancel(qtbot: QtBot) -> None:
    runner = workers.TaskRunner("errors")
    errors: list[str] = []
    runner.error.connect(errors.append)

    def fail() -> None:
        raise ValueError("utilization: must be in (0, 1]\nmore")

    with qtbot.waitSignal(runner.error, timeout=5000):
        runner.submit(fail)
    assert errors == ["utilization: must be in (0, 1]"]

    def long_job() -> str:
        thread = QThread.currentThread()
        deadline = time.monotonic() + 5
        while not thread.isInterruptionRequested() and time.monotonic() < deadline:
            time.sleep(0.005)
        return "stopped"

    results: list[object] = []
    runner.result_ready.connect(results.append)
    runner.submit(long_job)
    runner.shutdown()
    assert not workers.live_workers()
    qtbot.wait(20)
    assert results == []  # cancelled: its result is dropped


def test_stop_all_workers(qtbot: QtBot) -> None:
    def job() -> None:
        thread = QThread.currentThread()
        while not thread.isInterruptionRequested():
            time.sleep(0.005)

    worker = workers.Worker(job, name="spinner")
    worker.start_registered()
    assert worker in workers.live_workers()
    assert workers.stop_all_workers(2000) == []
    assert workers.live_workers() == []


def test_timer_registry(qtbot: QtBot) -> None:
    from PySide6.QtCore import QObject

    owner = QObject()
    fired: list[int] = []
    timer = timers.debounce_timer(owner, lambda: fired.append(1), 10)
    timer.start()
    timer.start()  # restarting coalesces
    assert timer in timers.active_timers()
    qtbot.waitUntil(lambda: fired == [1], timeout=2000)
    assert timer not in timers.active_timers()
    timer.start()
    timers.stop_all_timers()
    assert timers.active_timers() == []
    owner.deleteLater()


# --- icons, about, placeholder, compat ---------------------------------------------------------


def _rgba(image: QImage) -> np.ndarray:
    """An image as an (h, w, 4) uint8 array (RGBA, independent of byte order)."""
    image = image.convertToFormat(QImage.Format.Format_RGBA8888)
    width, height = image.width(), image.height()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    rows = data.reshape(height, image.bytesPerLine())[:, : width * 4]
    return rows.reshape(height, width, 4).copy()


def test_icon_pngs_are_rendered_from_the_svg(qapp: QApplication, tmp_path: Path) -> None:
    assert svg_path().is_file()
    for size in PNG_SIZES:
        image = QImage(str(png_path(size)))
        assert (image.width(), image.height()) == (size, size), png_path(size)
    written = render_pngs(tmp_path)
    fresh = QImage(str(written[-1]))
    shipped = QImage(str(png_path(PNG_SIZES[-1])))
    # The shipped PNGs are what the SVG renders to, within anti-aliasing noise: rasterizers
    # differ by a level here and there between CPUs (SIMD paths) and Qt builds.
    a, b = _rgba(fresh), _rgba(shipped)
    assert a.shape == b.shape
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16)).max(axis=2)
    assert diff.max() <= 24, f"a pixel differs by {diff.max()} levels"
    assert (diff > 2).mean() < 0.001, f"{(diff > 2).mean():.4%} of pixels differ by over 2 levels"
    assert a[..., 3].max() == 255 and a[..., 3].min() == 0  # really an icon on transparency
    assert not app_icon().isNull()


def test_about_lists_versions_without_importing_torch(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    names = [name for name, _ in versions()]
    assert names[:6] == ["ML Capacity Planner", "Python", "Qt", "PySide6", "pyqtgraph", "numpy"]
    assert "torch" not in names
    assert "torch" not in sys.modules
    monkeypatch.setitem(sys.modules, "torch", types.SimpleNamespace(__version__="9.9"))
    assert ("torch", "9.9") in versions()
    dialog = AboutDialog()
    qtbot.addWidget(dialog)
    assert "9.9" in dialog.text() and "PySide6" in dialog.text()


def test_coming_panel(qtbot: QtBot) -> None:
    panel = ComingPanel("Monitor", "Watch a job")
    qtbot.addWidget(panel)
    assert panel.is_ready()
    from PySide6.QtWidgets import QLabel

    shown = [label.text() for label in panel.findChildren(QLabel)]
    assert "Monitor" in shown and "Watch a job" in shown
    assert any("later version" in text for text in shown)


def test_refcount_guard_keeps_none_alive(qapp: QApplication) -> None:
    qt_compat.guard_singleton_refcounts()
    label_calls = 20_000  # far more void calls than None has references without the guard
    from PySide6.QtWidgets import QLabel

    label = QLabel()
    for _ in range(label_calls):
        label.setText("x")
    assert sys.getrefcount(None) > label_calls
    label.deleteLater()
    QApplication.processEvents()


def test_fast_feature_check_gives_pyside_s_own_answers(qapp: QApplication) -> None:
    """The byte check PySide6 uses after speed_up_feature_check answers as PySide6's own
    ``inspect.getsource`` check does, for every module loaded now."""
    import inspect

    assert qt_compat.speed_up_feature_check()
    assert qt_compat.speed_up_feature_check()  # idempotent
    feature = sys.modules["shibokensupport.feature"]
    fast = feature._mod_uses_pyside
    assert getattr(fast, qt_compat.FAST_CHECK_MARK)

    def by_source(module: object) -> bool:  # PySide6's check, as it reads
        try:
            return "PySide6" in inspect.getsource(module)  # type: ignore[arg-type]
        except (TypeError, OSError, SyntaxError):
            return False

    def answer(check: Any, module: object) -> object:
        try:
            return check(module)
        except Exception as exc:  # e.g. torch.classes: any attribute is a lookup that raises
            return type(exc)

    modules = [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]
    assert len(modules) > 200
    different = [m.__name__ for m in modules if answer(fast, m) != answer(by_source, m)]
    assert different == []
    assert fast(sys.modules["desktopapp.ui.common.theme"])
    assert not fast(sys.modules["desktopapp.model.units"])
    assert not fast(sys)  # built in: no source


def test_rich_label_answers_heights_as_qlabel_does_and_follows_changes(qtbot: QtBot) -> None:
    from PySide6.QtGui import QFont
    from PySide6.QtWidgets import QLabel

    from desktopapp.ui.common.rich_label import RichLabel

    rows = "".join(
        f"<tr><td>name {i}</td><td><b>value {i}</b> and a longer source</td></tr>"
        for i in range(40)
    )
    label = RichLabel()
    qtbot.addWidget(label)
    plain = QLabel()  # the same text in Qt's own label: the answers to match
    qtbot.addWidget(plain)
    plain.setTextFormat(label.textFormat())
    plain.setWordWrap(True)

    def same(widths: tuple[int, ...]) -> None:
        for width in widths:
            assert label.heightForWidth(width) == plain.heightForWidth(width), width

    for text in (f"<table width='100%'>{rows}</table>", "<p>" + "word " * 400 + "</p>"):
        label.setText(text)
        plain.setText(text)
        same((200, 640, 200, 900, 640))  # asked again: from memory, still the same
    font = QFont(label.font())
    font.setPointSizeF(font.pointSizeF() * 1.4)  # presentation mode's larger fonts
    before = label.heightForWidth(640)
    label.setFont(font)
    plain.setFont(font)
    assert label.heightForWidth(640) > before
    same((200, 640))
    label.setStyleSheet("QLabel { padding: 20px; }")
    plain.setStyleSheet("QLabel { padding: 20px; }")
    same((200, 640))
    label.setIndent(30)
    plain.setIndent(30)
    same((200, 640))


def test_leak_finder_reports_windows_workers_and_timers(qtbot: QtBot) -> None:
    """The checks behind tests/ui/conftest.py's autouse fixture."""
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QWidget

    from desktopapp.ui.common.leaks import find_leaks

    assert find_leaks() == []
    window = QWidget()
    window.setWindowTitle("left open")
    window.show()
    owner = QObject()
    timer = timers.debounce_timer(owner, lambda: None, 60_000)
    timer.start()
    gate = threading.Event()
    worker = workers.Worker(lambda: gate.wait(5), name="left-running")
    worker.start_registered()

    problems = find_leaks(clean_up=False)
    assert len(problems) == 3
    assert "left open" in problems[0]
    assert "left-running" in problems[1]
    assert "timers" in problems[2]

    gate.set()
    problems = find_leaks(clean_up=True)
    assert not window.isVisible() and not timer.isActive()
    assert find_leaks() == []
    window.deleteLater()
    owner.deleteLater()


def test_plot_axes_redraw_only_when_they_change_and_export_as_text(qtbot: QtBot) -> None:
    """Issue 25 item 10: a live plot repaints with every new point; its axes (labels and
    grid) come from a pixmap drawn when they last changed, not drawn again each time. Exports
    draw them afresh: an SVG has its tick labels as text, not as a picture of them."""
    import xml.etree.ElementTree as ET

    from desktopapp.ui.common import export, plots

    plot = plots.make_plot("Throughput", "size", "rate")
    qtbot.addWidget(plot)
    plot.resize(420, 260)
    plot.show()
    qtbot.waitExposed(plot)
    curve = plot.plot([1.0, 2.0, 3.0], [4.0, 5.0, 7.0])
    item = plot.getPlotItem()
    item.setRange(xRange=(0.0, 4.0), yRange=(0.0, 10.0), padding=0.0)
    plot.grab()
    axis = item.getAxis("left")
    painted: list[object] = []
    cls = type(axis)
    original = cls.paint

    def paint(self: Any, *args: Any) -> Any:
        painted.append(self)
        return original(self, *args)

    cls.paint = paint
    try:
        curve.setData([1.0, 2.0, 3.0], [5.0, 6.0, 8.0])
        plot.grab()
        assert axis not in painted  # new points, same axes: drawn from the pixmap
        item.setYRange(0.0, 20.0, padding=0.0)
        plot.grab()
        assert axis in painted  # a new range: drawn afresh
    finally:
        cls.paint = original
    root = ET.fromstring(export.plot_svg(plot))
    tags = [element.tag.rsplit("}", 1)[-1] for element in root.iter()]
    texts = [(e.text or "").strip() for e in root.iter() if e.tag.endswith("text")]
    assert "image" not in tags
    assert "15" in texts and "size" in texts, " | ".join(texts)  # a tick of 0 … 20


def test_range_bar_end_labels_stay_apart_and_inside() -> None:
    """A narrow band with large labels ("34.5 min" and "1.73 h" at the presentation font) ran
    the two together; they are pushed apart and kept inside the widget."""
    from desktopapp.ui.common.range_bar import end_label_lefts

    low, high = end_label_lefts(100.0, 130.0, 60.0, 50.0, 300.0, 8.0)
    assert low + 60.0 + 8.0 <= high + 1e-9
    assert low >= 0.0 and high + 50.0 <= 300.0
    # at the widget's left edge the low label stays in and the high one moves right
    low, high = end_label_lefts(5.0, 20.0, 60.0, 50.0, 300.0, 8.0)
    assert low == 0.0 and high >= 68.0
    # at the right edge the high label stays in and the low one moves left
    low, high = end_label_lefts(270.0, 295.0, 60.0, 50.0, 300.0, 8.0)
    assert high + 50.0 <= 300.0 and low + 68.0 <= high + 1e-9
    # a wide band: each label centred on its end
    low, high = end_label_lefts(100.0, 250.0, 40.0, 40.0, 400.0, 8.0)
    assert (low, high) == (80.0, 230.0)


@settings(max_examples=300, deadline=None)
@given(
    x_low=st.floats(0.0, 400.0),
    span=st.floats(0.0, 400.0),
    w_low=st.floats(1.0, 120.0),
    w_high=st.floats(1.0, 120.0),
)
def test_range_bar_end_labels_never_overlap_when_there_is_room(x_low, span, w_low, w_high):
    from desktopapp.ui.common.range_bar import end_label_lefts

    width, gap = 400.0, 8.0
    x_high = min(width, x_low + span)
    low, high = end_label_lefts(x_low, x_high, w_low, w_high, width, gap)
    assert low >= -1e-9 and high + w_high <= width + 1e-9  # inside
    if w_low + gap + w_high <= width:
        assert low + w_low + gap <= high + 1e-6  # apart
