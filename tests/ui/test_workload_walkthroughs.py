"""Issue 21's GUI walkthroughs, as a new user and a reviewer tried them: save and reopen keeps
the figures, a preset's shape never silently feeds another model size, an invalid field makes
the figures "not current" (the Cost tab says so, saving refuses with the reason), an invalid
plan is an error at its field (no silent switch to the flat model), and a given plan that
forces changes says so in words."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QWidget
from pytestqt.qtbot import QtBot

from desktopapp.application.snapshot import compute_snapshot
from desktopapp.model.perf_training import MODELLED_SOURCE
from desktopapp.model.presets import get_preset
from desktopapp.model.scenario import load_scenario
from desktopapp.ui.main_window import MainWindow
from desktopapp.ui.scenario.document import DISCARD


@pytest.fixture(autouse=True)
def _delete_old_windows() -> Iterator[None]:
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    yield


@pytest.fixture
def window(qtbot: QtBot, isolated_home: Path) -> MainWindow:
    win = MainWindow(remember=False, initial_tab="estimate")
    qtbot.addWidget(win)
    win.document.ask_unsaved = lambda _name: DISCARD
    errors: list[tuple[str, str]] = []
    win.document.show_error = lambda title, message: errors.append((title, message))
    win.errors = errors  # type: ignore[attr-defined]
    win.resize(1400, 900)
    win.show()
    qtbot.waitUntil(win.is_tab_ready, timeout=8000)
    return win


def _estimate(win: MainWindow) -> Any:
    return win.tab_content("estimate")


def _type(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)


def _visible_texts(root: QWidget) -> list[str]:
    return [
        label.text()
        for label in root.findChildren(QLabel)
        if label.isVisibleTo(root) and label.text().strip()
    ]


def test_save_and_reopen_keeps_the_figures(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    """A result of 107 days reopened as 113 days "Set by you": the untouched utilization slider
    was saved as a user value and the reopened file planned with the flat model."""
    tab = _estimate(window)
    tab.apply_preset("foundation-175b")
    before = window.state.estimate
    assert before is not None and before.utilization_source == MODELLED_SOURCE
    path = tmp_path / "run.json"
    assert window.document.save_as(path)
    saved = load_scenario(path).scenario.training
    assert saved is not None and saved.utilization is None  # saved as "default"
    tab.apply_preset("bert-base")  # something else on screen before reopening
    assert window.document.open(path)
    after = window.state.estimate
    assert after is not None
    assert after.training_seconds == pytest.approx(before.training_seconds, rel=1e-9)
    assert after.estimated_cost_usd == pytest.approx(before.estimated_cost_usd, rel=1e-9)
    assert not tab.inputs.utilization_note.text().startswith("Set by you")


def test_a_new_size_after_the_bert_preset_does_not_use_berts_shape(
    qtbot: QtBot, window: MainWindow
) -> None:
    tab = _estimate(window)
    tab.apply_preset("bert-base")
    bert = get_preset("bert-base")
    assert tab.inputs.layers.value() == bert.layers
    _type(qtbot, tab.inputs.params, "13B")
    tab.flush()
    memory = window.state.memory
    assert memory is not None and memory.params == pytest.approx(13e9)
    # BERT's 12 layers / hidden 768 / seq 512 never feed a 13B run silently
    assert (memory.layers, memory.hidden) != (bert.layers, bert.hidden)
    warning = tab.inputs.shape_note
    assert warning.isVisibleTo(tab) and bert.name in warning.text()
    assert "13B" in warning.text()


def test_an_invalid_price_makes_the_figures_not_current(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    tab = _estimate(window)
    window.set_current_tab("cost")
    qtbot.waitUntil(lambda: window.is_tab_ready("cost"), timeout=8000)
    cost_tab = window.tab_content("cost")
    window.set_current_tab("estimate")
    _type(qtbot, tab.inputs.price, "-3")
    tab.flush()
    cost_tab.flush()  # type: ignore[union-attr]
    # the price field says what is wrong; the cost card does not read "no price given"
    assert "price" in tab.marked_fields().get(tab.inputs.price, "").lower()
    assert not any("no price" in t.lower() for t in _visible_texts(tab.training_results))
    # the Cost tab says its figures are not current, and why
    shown = " ".join(_visible_texts(cost_tab))
    assert "not current" in shown.lower() and "price" in shown.lower()
    # saving refuses with the reason instead of mixing old and new sections
    assert not window.document.save_as(tmp_path / "mixed.json")
    assert not (tmp_path / "mixed.json").exists()
    assert window.errors and "price" in window.errors[-1][1].lower()  # type: ignore[attr-defined]
    # exporting the report refuses too (it would print the last valid workload's figures)
    asked: list[str] = []
    window.scenario.choose_report_path = lambda s: asked.append(s) or None
    assert window.scenario.export_report() is None
    assert "price" in window.errors[-1][1].lower() and not asked  # type: ignore[attr-defined]


def test_an_invalid_tp_is_an_error_at_its_field_not_another_model(
    qtbot: QtBot, window: MainWindow
) -> None:
    """TP 3 on 1,024 GPUs switched the headline to the flat 40% model (4.50 days, the fastest
    and cheapest answer on offer) with the message in the results pane."""
    tab = _estimate(window)
    tab.apply_preset("foundation-175b")
    tab.inputs.tp.setValue(3)
    tab.flush()
    assert tab.inputs.tp in tab.marked_fields()
    estimate = tab.outcome.training
    assert estimate is None or estimate.utilization_source == MODELLED_SOURCE
    shown = tab.inputs.error_label_for(tab.inputs.tp)  # the message under the plan's fields
    assert shown.isVisibleTo(tab) and "tensor parallel" in shown.text().lower()
    assert "not current" in tab.training_results.hero.text().lower()


def test_a_given_pipeline_depth_says_what_it_forced(qtbot: QtBot, window: MainWindow) -> None:
    """PP 16 silently dropped TP to 1 and added full recompute (17.6 days) where the automatic
    plan used TP 2 with PP 16 interleaved (10.2 days)."""
    tab = _estimate(window)
    tab.apply_preset("foundation-175b")
    tab.inputs.pp.setValue(16)
    tab.flush()
    qtbot.waitUntil(lambda: bool(tab.modelled.plan_changes.text()), timeout=5000)
    text = tab.modelled.plan_changes.text()
    assert tab.modelled.plan_changes.isVisibleTo(tab)
    # the automatic plan of the same run, as the snapshot computes it
    request = dataclasses.replace(
        tab.snapshot.request, training=dataclasses.replace(tab.snapshot.request.training, pp=None)
    )
    auto = compute_snapshot(request).training
    assert auto is not None and auto.plan is not None and auto.plan.tp > 1
    assert "automatic plan" in text and f"TP {auto.plan.tp}" in text and "recompute" in text
