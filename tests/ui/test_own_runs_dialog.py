"""The Workload tab's "From past runs…": the dialog shows the same fit as `desktopapp
calibrate`, puts exactly the factor the CLI prints into the field, and a bad file shows its
message with nothing to take."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktopapp.application.own_runs import own_runs_view
from desktopapp.ui.estimate import create_tab, own_runs_dialog
from desktopapp.ui.estimate.own_runs_dialog import OwnRunsDialog
from desktopapp.ui.estimate.tab import EstimateTab
from desktopapp.ui.state import AppState

RUNS = (
    "name,params,tokens,accelerator,gpus,gpu_hours\n"
    "base,7B,2T,h100-sxm,256,60k\n"
    "chat,13B,300B,a100-sxm-80gb,128,70k\n"
)


@pytest.fixture
def runs_file(tmp_path: Path) -> Path:
    path = tmp_path / "runs.csv"
    path.write_text(RUNS, encoding="utf-8")
    return path


def test_the_dialog_shows_the_clis_fit_and_returns_its_factor(qtbot: QtBot, runs_file):
    dialog = OwnRunsDialog()
    qtbot.addWidget(dialog)
    assert not dialog.use_button.isEnabled()
    assert dialog.load(runs_file)
    view = own_runs_view(runs_file)
    assert dialog.headline.text() == view.headline
    assert dialog.table.rowCount() == 2
    cells = [dialog.table.item(0, c).text() for c in range(dialog.table.columnCount())]
    assert tuple(cells) == view.rows[0]
    assert dialog.use_button.isEnabled()
    assert dialog.use_button.text() == f"Use ×{view.applied:g}"
    dialog.use_button.click()
    assert dialog.result() == OwnRunsDialog.DialogCode.Accepted
    assert dialog.value == view.applied


def test_a_bad_file_shows_its_message_and_leaves_nothing_to_take(qtbot: QtBot, runs_file):
    dialog = OwnRunsDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.load(runs_file)
    bad = runs_file.with_name("bad.csv")
    bad.write_text("params,tokens\n7B,1T\n", encoding="utf-8")
    assert not dialog.load(bad)
    assert dialog.error_frame.isVisible()
    assert dialog.error.text().startswith("Past runs: bad.csv line 1: no accelerator column")
    assert dialog.table.rowCount() == 0 and not dialog.use_button.isEnabled()
    assert dialog.load(runs_file) and not dialog.error_frame.isVisible()


def test_the_button_puts_the_factor_in_the_field_and_the_estimate_uses_it(
    qtbot: QtBot, app_state: AppState, runs_file, monkeypatch
):
    tab = create_tab(app_state)
    assert isinstance(tab, EstimateTab)
    qtbot.addWidget(tab)
    view = own_runs_view(runs_file)
    applied = view.applied
    taken = (applied, view.field_note)
    monkeypatch.setattr(
        own_runs_dialog, "ask_production_factor", lambda parent=None, software_stack=None: taken
    )
    tab.inputs.past_runs_button.click()
    qtbot.waitUntil(lambda: not tab._timer.isActive(), timeout=3000)
    assert tab.inputs.production_factor.value() == pytest.approx(applied)
    assert tab.state.training is not None
    assert tab.state.training.production_factor == pytest.approx(applied)
    # the field says where its value came from: the file, the runs and their spread
    note = tab.inputs.production_factor_note
    assert not note.isHidden() and "from your 2 runs in runs.csv" in note.text()
    # the workload (and so a saved scenario and the estimate's assumptions) keeps it too
    assert tab.state.training.production_factor_source == view.field_note
    # cancelled: the field keeps its value and its note
    monkeypatch.setattr(
        own_runs_dialog, "ask_production_factor", lambda parent=None, software_stack=None: None
    )
    tab.inputs.past_runs_button.click()
    assert tab.inputs.production_factor.value() == pytest.approx(applied)
    assert not note.isHidden()
    # another value (typed, or a preset's) is no longer the one from the file: the note goes
    tab.inputs.production_factor.setFocus()
    tab.inputs.production_factor.selectAll()
    qtbot.keyClicks(tab.inputs.production_factor, "2")
    assert note.isHidden()
    tab.inputs.past_runs_button.click()  # cancelled again: stays hidden
    monkeypatch.setattr(
        own_runs_dialog, "ask_production_factor", lambda parent=None, software_stack=None: taken
    )
    tab.inputs.past_runs_button.click()
    assert not note.isHidden()
    # a preset keeps the team's factor (it is about who runs the job), and so its note
    tab.apply_preset("llm-7b")
    tab.flush()
    assert tab.inputs.production_factor.value() == pytest.approx(applied)
    assert not note.isHidden()
    # a scenario with the fitted default (no factor) replaces it: the note goes
    training = tab.state.training
    assert training is not None
    tab.form.fill_from_workload(
        dataclasses.replace(training, production_factor=None),
        tab.state.memory,
        tab.state.inference,
        tab._catalog,
    )
    assert tab.inputs.production_factor.value() is None and note.isHidden()


def test_the_hidden_note_leaves_no_gap_under_the_field(qtbot: QtBot, app_state: AppState):
    """The note sat in a grid row of its own, whose empty caption kept a blank line under the
    Production factor field while the note was hidden: the Parallel plan section ends as
    closely under its last field as the Training compute section under its last (the project
    margin)."""
    from PySide6.QtCore import QPoint

    tab = create_tab(app_state)
    assert isinstance(tab, EstimateTab)
    qtbot.addWidget(tab)
    tab.resize(1400, 2000)
    tab.show()
    qtbot.waitExposed(tab)
    inp = tab.inputs

    def gap_below(field) -> int:
        section = field.parentWidget()
        while section is not None and type(section).__name__ != "Section":
            section = section.parentWidget()
        assert section is not None
        return section.height() - field.mapTo(section, QPoint(0, field.height())).y()

    assert inp.production_factor_note.isHidden()
    assert abs(gap_below(inp.production_factor) - gap_below(inp.project_margin)) <= 2


def test_a_saved_factor_from_past_runs_reopens_with_its_note(
    qtbot: QtBot, app_state: AppState, runs_file
):
    """Reopened from a file: the field shows the factor and where it came from, as when it was
    taken, and the recomputed workload keeps both."""
    tab = create_tab(app_state)
    assert isinstance(tab, EstimateTab)
    qtbot.addWidget(tab)
    tab.flush()
    view = own_runs_view(runs_file)
    training = tab.state.training
    assert training is not None
    saved = dataclasses.replace(
        training, production_factor=view.applied, production_factor_source=view.field_note
    )
    app_state.set_workload(training=saved)  # what opening the scenario file does
    tab.flush()
    note = tab.inputs.production_factor_note
    assert not note.isHidden() and note.text() == view.field_note
    assert tab.state.training is not None
    assert tab.state.training.production_factor_source == view.field_note
    # typing another factor drops the note from the workload as well as the view
    tab.inputs.production_factor.setFocus()
    tab.inputs.production_factor.selectAll()
    qtbot.keyClicks(tab.inputs.production_factor, "2")
    tab.flush()
    assert note.isHidden()
    assert tab.state.training.production_factor == 2.0
    assert tab.state.training.production_factor_source == ""
