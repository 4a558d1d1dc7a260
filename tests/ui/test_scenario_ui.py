"""Scenarios in the window: open/save round trips, bad files, unsaved changes, autosave and
recovery, recent files, notes, menus and shortcuts, themes and presentation mode."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QEvent, QObject, QSettings
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMenu,
    QPlainTextEdit,
)
from pytestqt.qtbot import QtBot

from desktopapp import APP_NAME, scenario_files
from desktopapp.application.cost_plan import cost_inputs_from_plan, default_onprem
from desktopapp.model.catalog import PRICING_MODELS, offers_for
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.planning import CostInputs, default_spot_overhead
from desktopapp.model.scenario import (
    DEMAND_RUNS,
    DEMAND_SPREAD,
    DEMAND_TYPED,
    MAX_HORIZON_MONTHS,
    CostPlan,
    Scenario,
    ScenarioError,
    load_scenario,
)
from desktopapp.model.tco import DEMAND_SHAPES, OnPremInputs, onprem_cost_per_useful_hour
from desktopapp.model.training import TrainingInputs
from desktopapp.ui.common import theme
from desktopapp.ui.cost.state import cost_state
from desktopapp.ui.main_window import MainWindow
from desktopapp.ui.scenario.document import CANCEL, DISCARD, SAVE, ScenarioDocument
from desktopapp.ui.state import AppState

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "resources" / "examples"
RENTED = EXAMPLES / "h100-8x-rented.json"
OWNED = EXAMPLES / "a100-16x-owned.json"


@pytest.fixture(autouse=True)
def light_theme_after() -> Iterator[None]:
    # Windows of earlier tests are deleted later; delete them now so a theme switch (which
    # restyles every widget) stays fast.
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    yield
    app = QApplication.instance()
    if isinstance(app, QApplication) and (
        theme.current_theme() != "light" or theme.current_scale() != 1.0
    ):
        theme.apply_theme(app)


@pytest.fixture
def make_window(qtbot: QtBot, isolated_home: Path) -> Callable[..., MainWindow]:
    def make(**kwargs: Any) -> MainWindow:
        kwargs.setdefault("remember", False)
        kwargs.setdefault("initial_tab", "monitor")
        window = MainWindow(**kwargs)
        qtbot.addWidget(window)
        window.document.ask_unsaved = lambda _name: DISCARD
        errors: list[tuple[str, str]] = []
        window.document.show_error = lambda title, message: errors.append((title, message))
        window.errors = errors  # type: ignore[attr-defined]
        return window

    return make


def make_document(state: AppState, **kwargs: Any) -> ScenarioDocument:
    doc = ScenarioDocument(state, **kwargs)
    doc.ask_unsaved = lambda _name: pytest.fail("no question expected")
    doc.show_error = lambda title, message: pytest.fail(f"unexpected error: {message}")
    return doc


def digest(path: Path) -> tuple[str, float]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime


# --- round trips ----------------------------------------------------------------------------


def test_save_then_open_gives_the_same_state(app_state: AppState, tmp_path: Path) -> None:
    training = TrainingInputs(
        params=3e9, tokens=6e10, accelerator="h100-sxm", gpus=16, utilization=0.45, price=2.5
    )
    memory = MemoryInputs(params=3e9, layers=26, hidden=3072, heads=24, seq_len=2048, gpus=16)
    app_state.set_workload(training=training, memory=memory, inference=None)
    doc = make_document(app_state, autosave_folder=tmp_path / "auto")
    doc.set_name("Quarterly plan")
    doc.set_notes("Budget line 42.\nSecond line — ünïcode")
    assert doc.is_modified()
    assert doc.save_as(tmp_path / "plan")  # the suffix is added
    path = tmp_path / "plan.json"
    assert not doc.is_modified() and doc.path == path
    saved = load_scenario(path).scenario
    assert saved.training == training and saved.memory == memory
    assert saved.cost == CostPlan()  # no Cost tab opened, no cost plan

    other = AppState()
    try:
        doc2 = make_document(other, autosave_folder=tmp_path / "auto")
        assert doc2.open(path)
        assert (other.training, other.memory, other.inference) == (training, memory, None)
        assert (doc2.name, doc2.notes) == (
            "Quarterly plan",
            "Budget line 42.\nSecond line — ünïcode",
        )
        assert doc2.current_scenario() == saved
        assert not doc2.is_modified()
        assert other.estimate is not None and other.estimate.inputs == training
        doc2.shutdown()
    finally:
        other.deleteLater()
    doc.shutdown()


_counts = st.floats(min_value=1e6, max_value=1e13, allow_nan=False)


@st.composite
def _cost_inputs(draw: st.DrawFn, accelerator: str) -> CostInputs:
    """Cost tab inputs with a drawn demand and compared prices (any of the accelerator's
    listed prices, in any order)."""
    onprem = default_onprem(accelerator) or OnPremInputs(
        server_price=250_000.0, power_kw=6.0, gpus=8
    )
    keys = [
        (offer.id, pricing)
        for offer in offers_for(accelerator)
        for pricing in PRICING_MODELS
        if offer.price(pricing)
    ]
    compared = draw(
        st.permutations(keys).flatmap(lambda ks: st.integers(0, len(ks)).map(lambda n: ks[:n]))
    )
    return CostInputs(
        accelerator_id=accelerator,
        onprem=onprem,
        demand_source=draw(st.sampled_from([DEMAND_TYPED, DEMAND_RUNS, DEMAND_SPREAD])),
        typed_gpu_hours=draw(st.none() | st.floats(0.5, 1e7)),
        horizon_months=draw(st.integers(1, MAX_HORIZON_MONTHS)),
        profile=draw(st.sampled_from(DEMAND_SHAPES)),
        spot_overhead=default_spot_overhead(),
        compared=tuple(compared),
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    params=_counts,
    tokens=_counts,
    gpus=st.integers(1, 100_000),
    utilization=st.none() | st.floats(0.01, 1.0),
    price=st.none() | st.floats(0.01, 1000.0),
    accelerator=st.sampled_from(["h100-sxm", "a100-sxm-80gb", "l4", "mi300x"]),
    zero=st.sampled_from([0, 1, 2, 3]),
    name=st.text(min_size=1, max_size=60).filter(lambda s: s.strip()),
    notes=st.text(max_size=300),
    data=st.data(),
)
def test_round_trip_property(
    qapp: QApplication,
    params: float,
    tokens: float,
    gpus: int,
    utilization: float | None,
    price: float | None,
    accelerator: str,
    zero: int,
    name: str,
    notes: str,
    data: st.DataObject,
) -> None:
    training = TrainingInputs(
        params=params,
        tokens=tokens,
        accelerator=accelerator,
        gpus=gpus,
        utilization=utilization,
        price=price,
        price_source="typed in" if price else "",
    )
    memory = MemoryInputs(params=params, gpus=gpus, zero_stage=zero, accelerator=accelerator)
    cost = data.draw(st.none() | _cost_inputs(accelerator), label="cost")
    runs = data.draw(st.floats(0.0, 100.0), label="runs_per_month")
    with tempfile.TemporaryDirectory() as folder:
        first, second = AppState(), AppState()
        try:
            doc = make_document(first, autosave_folder=Path(folder))
            first.set_workload(training=training, memory=memory)
            if cost is not None:  # what the Cost tab holds
                cost_state(first).set_inputs(cost)
                first.set_runs_per_month(runs)
            doc.set_name(name)
            doc.set_notes(notes)
            assert doc.save_as(Path(folder) / "p.json")
            doc2 = make_document(second, autosave_folder=Path(folder))
            assert doc2.open(Path(folder) / "p.json")
            assert second.training == first.training
            assert second.memory == first.memory
            assert second.inference == first.inference
            expected = cost if cost is not None else cost_inputs_from_plan(CostPlan(), training)
            assert cost_state(second).inputs == expected
            assert second.runs_per_month == first.runs_per_month
            assert (doc2.name, doc2.notes) == (name.strip(), notes)
            assert doc2.current_scenario() == doc.current_scenario()
            doc.shutdown()
            doc2.shutdown()
        finally:
            first.deleteLater()
            second.deleteLater()


def test_cost_section_kept_when_the_cost_tab_never_opened(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = make_window()
    assert window.document.open(OWNED)
    assert window.document.cost_plan() == load_scenario(OWNED).scenario.cost
    assert window.document.save_as(tmp_path / "copy.json")
    original = json.loads(OWNED.read_text(encoding="utf-8"))
    copy = json.loads((tmp_path / "copy.json").read_text(encoding="utf-8"))
    assert copy == original
    # The Cost tab gets inputs made from the plan (owning inputs, compared offer).
    inputs = cost_inputs_from_plan(load_scenario(OWNED).scenario.cost)
    assert inputs is not None and inputs.onprem.gpus == 16
    assert inputs.hybrid_option == ("lambda/gpu-8x-a100-80gb-sxm4/all", "on_demand")


def test_opening_in_the_gui_fills_the_tabs_and_stays_clean(
    qtbot: QtBot, make_window: Callable[..., MainWindow]
) -> None:
    window = make_window(initial_tab="estimate")
    window.show()
    qtbot.waitUntil(window.is_tab_ready, timeout=5000)
    assert not window.document.is_modified()
    assert window.document.open(RENTED)
    tab = window.tab_content("estimate")
    assert tab.inputs.params.text() == "7B"  # type: ignore[union-attr]
    assert tab.inputs.devices.value() == 8  # type: ignore[union-attr]
    # The tab re-published the inputs in its own form: that is not an edit.
    assert not window.document.is_modified()
    assert window.windowTitle() == f"h100-8x-rented.json[*] — {APP_NAME}"
    window.set_current_tab("cost")  # building the Cost tab is not an edit either
    qtbot.waitUntil(lambda: window.is_tab_ready("cost"), timeout=5000)
    assert not window.document.is_modified()
    tab.inputs.devices.setValue(12)  # type: ignore[union-attr]
    tab.flush()  # type: ignore[union-attr]
    assert window.document.is_modified() and window.isWindowModified()
    tab.inputs.devices.setValue(8)  # type: ignore[union-attr]
    tab.flush()  # type: ignore[union-attr]
    assert not window.document.is_modified()  # back to what was opened
    # Opening with both tabs built: they show the file and nothing counts as an edit.
    assert window.document.open(OWNED)
    assert not window.document.is_modified()
    cost_tab = window.tab_content("cost")
    assert cost_tab.inputs.accelerator.accelerator_id() == "a100-sxm-80gb"  # type: ignore[union-attr]
    assert tab.inputs.devices.value() == 16  # type: ignore[union-attr]
    assert window.document.cost_plan() == load_scenario(OWNED).scenario.cost


def _tick(tab: Any, offer_id: str, pricing: str, checked: bool) -> None:
    """Tick or untick one price in the Cost tab's offers table, as a click does."""
    from PySide6.QtCore import Qt

    from desktopapp.ui.cost.offers_model import COLUMN_INDEX

    model = tab.offers.model
    row = next(r for r in range(model.rowCount()) if model.offer_at(r).id == offer_id)
    state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
    assert model.setData(
        model.index(row, COLUMN_INDEX[pricing]), state, Qt.ItemDataRole.CheckStateRole
    )


def _choose(combo: QComboBox, value: object) -> None:
    """Pick a combo item by its data, as the user does (``activated`` fires)."""
    index = combo.findData(value)
    assert index >= 0, value
    combo.setCurrentIndex(index)
    combo.activated.emit(index)


def _cost_view(tab: Any) -> dict[str, object]:
    """What the Cost tab shows of the demand and the compared prices."""
    inp = tab.inputs
    source = inp.demand_source.currentData()
    return {
        "source": source,
        "gpu_hours": inp.gpu_hours.value() if source == "typed" else None,
        "runs": inp.runs_per_month.value(),
        "horizon": inp.horizon.value(),
        "profile": inp.profile.currentData(),
        "compared": tab.compared,
        "demand": None if tab.comparison is None else tab.comparison.demand,
        "hybrid": tab.hybrid.option_combo.currentData(),
    }


@pytest.mark.parametrize("source", ["typed", "runs", "spread"])
def test_cost_tab_demand_and_compared_prices_survive_save_and_open(
    qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path, source: str
) -> None:
    first = make_window()
    assert first.document.open(RENTED)
    first.set_current_tab("cost")
    qtbot.waitUntil(lambda: first.is_tab_ready("cost"), timeout=5000)
    tab: Any = first.tab_content("cost")
    assert tab.compared == load_scenario(RENTED).scenario.cost.compared_keys
    # Edit everything the version 1 format could not hold.
    _choose(tab.inputs.demand_source, "typed")
    tab.inputs.gpu_hours.setText("12,345")
    tab.inputs.gpu_hours.textEdited.emit("12,345")
    tab.flush()
    _choose(tab.inputs.demand_source, source)
    if source == "runs":
        tab.inputs.runs_per_month.setText("2.5")
        tab.inputs.runs_per_month.textEdited.emit("2.5")
    tab.inputs.horizon.setValue(30)
    _choose(tab.inputs.profile, "growing")
    _tick(tab, "gcp/a3-highgpu-8g/us-central1", "on_demand", False)
    _tick(tab, "aws/p5.48xlarge/us-east-1", "on_demand", True)
    _tick(tab, "gcp/a3-highgpu-8g/us-east4", "spot", False)
    tab.flush()
    before = _cost_view(tab)
    assert before["source"] == source and before["horizon"] == 30
    assert ("aws/p5.48xlarge/us-east-1", "on_demand") in tab.compared
    assert ("gcp/a3-highgpu-8g/us-central1", "on_demand") not in tab.compared
    assert first.document.is_modified()
    saved = tmp_path / "edited.json"
    assert first.document.save_as(saved)
    plan = load_scenario(saved).scenario.cost
    assert plan.demand.source == source and plan.demand.horizon_months == 30
    assert plan.demand.profile == "growing" and plan.demand.gpu_hours_per_month == 12345.0
    assert plan.demand.runs_per_month == (2.5 if source == "runs" else 1.0)
    assert plan.compared_keys == tab.compared

    second = make_window()
    second.set_current_tab("cost")  # built before the file is opened this time
    qtbot.waitUntil(lambda: second.is_tab_ready("cost"), timeout=5000)
    assert second.document.open(saved)
    reopened: Any = second.tab_content("cost")
    assert _cost_view(reopened) == before
    assert second.state.runs_per_month == first.state.runs_per_month
    assert not second.document.is_modified()
    # Building the Workload tab (its estimate arrives again) changes nothing either.
    second.set_current_tab("estimate")
    qtbot.waitUntil(lambda: second.is_tab_ready("estimate"), timeout=5000)
    second.settle_tabs()
    reopened.flush()
    assert _cost_view(reopened) == before
    assert not second.document.is_modified()
    again = tmp_path / "again.json"
    assert second.document.save_as(again)
    assert (
        json.loads(again.read_text(encoding="utf-8"))["cost"]
        == json.loads(saved.read_text(encoding="utf-8"))["cost"]
    )


def _section_text(text: str, start: str, end: str | None = None) -> str:
    """The exact text of a saved file from the line starting ``start`` up to ``end``."""
    begin = text.index(start)
    return text[begin : text.index(end, begin) if end else len(text)]


@pytest.mark.parametrize("example", [RENTED, OWNED], ids=["rented", "owned"])
def test_opening_an_example_keeps_its_preset_and_price_source(
    qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path, example: Path
) -> None:
    from desktopapp.application.workload_presets import CUSTOM_FROM_SCENARIO
    from desktopapp.ui.estimate.tab import CUSTOM_PRESET

    window = make_window(initial_tab="estimate")
    window.show()
    qtbot.waitUntil(window.is_tab_ready, timeout=5000)
    assert window.document.open(example)
    tab: Any = window.tab_content("estimate")
    # The scenario names no preset: the picker says so instead of claiming the first one.
    assert tab.inputs.preset_combo.currentData() == CUSTOM_PRESET
    assert tab.inputs.preset_combo.currentText() == CUSTOM_FROM_SCENARIO
    original = load_scenario(example).scenario
    assert original.training is not None
    assert window.state.training is not None
    assert window.state.training.price_source == original.training.price_source
    window.set_current_tab("cost")
    qtbot.waitUntil(lambda: window.is_tab_ready("cost"), timeout=5000)
    assert not window.document.is_modified()
    copy = tmp_path / "copy.json"
    assert window.document.save_as(copy)
    saved = load_scenario(copy).scenario
    assert saved.training is not None
    assert saved.training.price_source == original.training.price_source
    assert saved.training.price == original.training.price
    # Byte for byte: the price lines and the whole cost section are as they were.
    before = example.read_bytes().decode("utf-8")
    after = copy.read_bytes().decode("utf-8")
    for key in ('    "price": ', '    "price_source": '):
        line = _section_text(before, key, "\n")
        assert _section_text(after, key, "\n") == line
    assert (
        _section_text(after, '  "cost": ').encode() == _section_text(before, '  "cost": ').encode()
    )
    # And once more: an opened copy saves the same again.
    assert window.document.open(copy)
    again = tmp_path / "again.json"
    assert window.document.save_as(again)
    assert again.read_bytes() == copy.read_bytes()


# --- bad files --------------------------------------------------------------------------------


def _truncated(path: Path) -> None:
    text = RENTED.read_text(encoding="utf-8")
    path.write_text(text[: len(text) // 2], encoding="utf-8")


def _too_large(path: Path) -> None:
    with path.open("wb") as handle:
        handle.truncate(10_000_001)


BAD_FILES: dict[str, tuple[Callable[[Path], object], str]] = {
    "corrupt": (lambda p: p.write_text("{plan: yes}", encoding="utf-8"), "not valid JSON"),
    "truncated": (_truncated, "truncated"),
    "too-large": (_too_large, "at most 10 MB"),
    "wrong-version": (
        lambda p: p.write_text('{"format": "desktopapp-scenario", "version": 7}', encoding="utf-8"),
        "newer than this app supports",
    ),
    "hostile-nesting": (
        lambda p: p.write_text("[" * 5000 + "]" * 5000, encoding="utf-8"),
        "nested 5000 levels deep",
    ),
    "hostile-values": (
        lambda p: p.write_text(
            '{"format": "desktopapp-scenario", "version": 1, "training": '
            '{"params": NaN, "tokens": 1e12, "peak_tflops": 100}}',
            encoding="utf-8",
        ),
        "training.params",
    ),
    "not-a-scenario": (
        lambda p: p.write_text('{"hello": "world"}', encoding="utf-8"),
        "not a scenario file",
    ),
}


@pytest.mark.parametrize("kind", sorted(BAD_FILES))
def test_bad_file_is_named_and_changes_nothing(
    kind: str, make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = make_window()
    doc = window.document
    assert doc.open(RENTED)
    doc.set_notes("my unsaved notes")
    before = (window.state.training, window.state.memory, doc.path, doc.notes, doc.is_modified())
    write, expected = BAD_FILES[kind]
    bad = tmp_path / f"{kind}.json"
    write(bad)
    fingerprint = digest(bad)
    assert not doc.open(bad, confirm=False)
    # One clear message naming the file and the problem, in a dialog and the status bar.
    assert len(window.errors) == 1  # type: ignore[attr-defined]
    title, message = window.errors[0]  # type: ignore[attr-defined]
    assert title == f"Could not open {bad.name}"
    assert message.startswith(f"{bad.name}: ") and expected in message
    assert "\n" not in message
    assert window.statusBar().currentMessage() == message
    # The file is untouched and the current work is kept.
    assert digest(bad) == fingerprint
    after = (window.state.training, window.state.memory, doc.path, doc.notes, doc.is_modified())
    assert after == before
    assert doc.path == RENTED


def test_migrated_file_says_so(make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    old = tmp_path / "prototype.json"
    old.write_text(
        json.dumps(
            {
                "format": "desktopapp-scenario",
                "version": 0,
                "title": "Old plan",
                "model_params": 1e9,
                "dataset_tokens": 2e10,
                "gpu": "h100-sxm",
                "num_gpus": 4,
            }
        ),
        encoding="utf-8",
    )
    fingerprint = digest(old)
    window = make_window()
    assert window.document.open(old)
    status = window.statusBar().currentMessage()
    assert "prototype.json" in status and "format version 0" in status and "saving" in status
    assert window.state.training is not None and window.state.training.gpus == 4
    assert digest(old) == fingerprint  # upgraded only when saved
    assert window.document.save()
    assert json.loads(old.read_text(encoding="utf-8"))["version"] == 3


def test_command_line_problem_goes_to_a_banner_not_a_dialog(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    from desktopapp import app

    window = make_window()
    bad = tmp_path / "broken.json"
    bad.write_text("{", encoding="utf-8")
    assert not app.open_scenario(window, bad)
    assert window.errors == []  # type: ignore[attr-defined]
    assert not window.banner.isHidden()
    assert "broken.json" in window.banner.text.text()
    assert "truncated" in window.banner.text.text()


# --- unsaved changes, title -------------------------------------------------------------------


@pytest.mark.parametrize("answer", [CANCEL, DISCARD, SAVE])
def test_closing_with_unsaved_changes_asks(
    answer: str, make_window: Callable[..., MainWindow], tmp_path: Path, qtbot: QtBot
) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(RENTED.read_bytes())
    window = make_window()
    window.show()
    assert window.document.open(path)
    assert window.windowTitle() == f"plan.json[*] — {APP_NAME}"
    assert not window.isWindowModified()
    training = window.state.training
    assert training is not None
    window.state.set_workload(training=replace(training, gpus=64))
    assert window.isWindowModified()
    asked: list[str] = []

    def ask(name: str) -> str:
        asked.append(name)
        return answer

    window.document.ask_unsaved = ask
    before = path.read_bytes()
    window.close()
    assert asked == ["plan.json"]
    if answer == CANCEL:
        assert window.isVisible() and window.document.is_modified()
        assert path.read_bytes() == before
        window.document.ask_unsaved = lambda _name: DISCARD
    elif answer == DISCARD:
        assert not window.isVisible() and path.read_bytes() == before
    else:
        assert not window.isVisible()
        assert load_scenario(path).scenario.training.gpus == 64  # type: ignore[union-attr]


def test_untitled_title_and_new(make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    window = make_window()
    assert window.windowTitle() == APP_NAME  # a fresh window
    assert window.document.open(RENTED)
    window.new_action.trigger()
    assert window.document.path is None and window.windowTitle() == APP_NAME
    training = window.state.training
    assert training is not None and training.params == 110e6  # the default preset (BERT-base)
    window.document.set_notes("x")
    assert window.windowTitle() == f"Untitled[*] — {APP_NAME}" and window.isWindowModified()
    window.document.choose_save_path = lambda _suggested: tmp_path / "fresh"
    window.save_action.trigger()  # untitled: Save asks where
    assert (tmp_path / "fresh.json").is_file()
    assert window.windowTitle() == f"fresh.json[*] — {APP_NAME}"
    assert window.document.name == "fresh" and not window.isWindowModified()


def test_open_dialog_and_cancelled_save_as(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = make_window()
    window.document.choose_open_path = lambda: OWNED
    window.open_action.trigger()
    assert window.document.path == OWNED
    window.document.choose_open_path = lambda: None
    window.open_action.trigger()
    assert window.document.path == OWNED
    window.document.choose_save_path = lambda _s: None
    assert not window.document.save_as()
    window.document.set_notes("changed")
    window.document.ask_unsaved = lambda _name: CANCEL
    window.document.choose_open_path = lambda: pytest.fail("not asked after Cancel")
    window.open_action.trigger()
    assert window.document.notes == "changed"
    window.document.ask_unsaved = lambda _name: DISCARD


def test_save_error_is_shown(make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    window = make_window()
    folder = tmp_path / "not-a-file.json"
    folder.mkdir()
    assert not window.document.save_as(folder)
    assert window.errors and "not-a-file.json" in window.errors[0][1]  # type: ignore[attr-defined]


# --- autosave and recovery --------------------------------------------------------------------


def test_autosave_writes_and_recovery_offers_it(
    qtbot: QtBot,
    make_window: Callable[..., MainWindow],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "plan.json"
    path.write_bytes(RENTED.read_bytes())
    first = make_window(autosave_interval_ms=20)
    assert first.document.autosave_timer.interval() == 20
    first.show()
    assert first.document.autosave_timer.isActive()
    assert first.document.open(path)
    training = first.state.training
    assert training is not None
    first.state.set_workload(training=replace(training, gpus=48))
    first.document.set_notes("typed before the crash")
    qtbot.waitUntil(lambda: first.document.last_autosave_path is not None, timeout=3000)
    written = first.document.last_autosave_path
    assert written is not None and written.is_file()
    autosave = scenario_files.read_autosave(written)
    assert autosave.document == path
    assert autosave.scenario == first.document.current_scenario()
    # "Crash": the session ends without a clean exit, so its autosave stays.
    first.document.autosave_timer.stop()
    first.document.ask_unsaved = lambda _n: DISCARD
    first.document.shutdown = lambda clean=True: None  # type: ignore[method-assign]
    first.close()
    assert written.is_file()

    monkeypatch.setattr(scenario_files, "process_is_running", lambda _pid, _started: False)
    second = make_window()
    second.show()
    found = second.offer_recovery()
    assert [a.path for a in found] == [written]
    assert not second.banner.isHidden()
    assert "plan.json" in second.banner.text.text()
    restore = next(b for b in second.banner.buttons() if "Restore" in b.text())
    restore.click()
    assert second.banner.isHidden()
    assert second.state.training is not None and second.state.training.gpus == 48
    assert second.document.notes == "typed before the crash"
    assert second.document.path == path and second.document.is_modified()
    assert not written.exists()  # recovered: the autosave is gone
    assert second.offer_recovery() == []


def test_clean_save_and_exit_remove_autosaves(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = make_window()
    doc = window.document
    assert doc.open(RENTED)
    assert doc.autosave_now() is None  # nothing unsaved: nothing written
    doc.set_notes("draft")
    written = doc.autosave_now()
    assert written is not None and written.is_file()
    assert doc.autosave_now() == written  # unchanged since: not rewritten
    doc.save_as(tmp_path / "saved.json")
    assert not written.exists()
    doc.set_notes("draft 2")
    again = doc.autosave_now()
    assert again is not None and again.is_file()
    window.close()
    assert not again.exists()


# --- recent files, notes ----------------------------------------------------------------------


def test_recent_files_menu(make_window: Callable[..., MainWindow], tmp_path: Path) -> None:
    window = make_window()
    copy = tmp_path / "copy.json"
    copy.write_bytes(OWNED.read_bytes())
    assert window.document.open(RENTED)
    assert window.document.open(copy)
    actions = window.recent_actions()
    assert [a.statusTip() for a in actions[:2]] == [str(copy), str(RENTED)]
    assert actions[0].shortcut().toString() == "Ctrl+Alt+1"
    assert actions[1].text() == "&2 h100-8x-rented.json"
    actions[1].trigger()
    assert window.document.path == RENTED
    # Remembered for the next window, newest first.
    other = make_window()
    assert other.document.recent[:2] == (str(RENTED), str(copy))
    copy.unlink()
    assert not window.document.open(copy)  # gone: dropped from the list
    assert str(copy) not in window.document.recent
    clear = window.recent_actions()[-1]
    clear.trigger()
    assert window.document.recent == ()


def test_notes_dock_edits_the_document(
    make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    window = make_window()
    dock = window.notes_dock
    assert window.notes_action.shortcut().toString() == "Ctrl+Shift+N"
    window.notes_action.trigger()
    assert dock.isVisibleTo(window)
    assert window.document.open(OWNED)
    assert dock.notes_edit.toPlainText().startswith("Two HGX A100 servers")
    assert dock.name_edit.text() == "16 × A100, owned"
    dock.notes_edit.setPlainText("Decision: buy.")
    assert window.document.notes == "Decision: buy." and window.document.is_modified()
    dock.name_edit.setText("Owned A100s")
    dock.name_edit.editingFinished.emit()
    assert window.document.name == "Owned A100s"
    target = tmp_path / "owned.json"
    assert window.document.save_as(target)
    saved = load_scenario(target).scenario
    assert (saved.name, saved.notes) == ("Owned A100s", "Decision: buy.")


# --- menus, shortcuts, accessibility ----------------------------------------------------------


def _menu_actions(menu: QObject | None) -> list[Any]:
    assert isinstance(menu, QMenu)
    out = []
    for action in menu.actions():
        if action.isSeparator():
            continue
        if action.menu() is not None:
            out += _menu_actions(action.menu())
        else:
            out.append(action)
    return out


def test_every_menu_action_has_a_shortcut(
    make_window: Callable[..., MainWindow],
) -> None:
    window = make_window()
    window.document.open(RENTED)
    actions = []
    for top in window.menuBar().actions():
        assert top.menu() is not None
        actions += _menu_actions(top.menu())
    missing = [a.text() for a in actions if a.shortcut().isEmpty()]
    assert missing == []
    keys = {a.text(): a.shortcut().toString() for a in actions}
    assert keys["&New"] == "Ctrl+N" and keys["&Open…"] == "Ctrl+O"
    assert keys["&Save"] == "Ctrl+S" and keys["Save &As…"] == "Ctrl+Shift+S"
    assert keys["&Export Report…"] == "Ctrl+E"
    assert keys["&Compare Scenarios…"] == "Ctrl+Shift+C"
    assert keys["&Presentation Mode"] == "F11"
    shortcuts = [a.shortcut().toString() for a in actions]
    assert len(shortcuts) == len(set(shortcuts))  # no clashes
    assert [m.text() for m in window.menuBar().actions()] == ["&File", "&View", "&Help"]


def test_notes_dock_is_made_when_first_shown_and_the_menu_follows_it(
    qtbot: QtBot, make_window: Callable[..., MainWindow]
) -> None:
    from desktopapp.ui.scenario.panels import NotesDock

    window = make_window()
    window.show()
    assert window.findChildren(NotesDock) == []  # not made for the first window
    assert not window.notes_action.isChecked()
    window.notes_action.trigger()
    dock = window.notes_dock
    qtbot.waitUntil(dock.isVisible)
    assert window.findChildren(NotesDock) == [dock] and window.notes_action.isChecked()
    dock.close()  # its own close button
    qtbot.waitUntil(lambda: not window.notes_action.isChecked())
    window.notes_action.trigger()
    qtbot.waitUntil(dock.isVisible)
    window.notes_action.trigger()
    qtbot.waitUntil(lambda: not dock.isVisible())
    assert not window.notes_action.isChecked()
    window.close()


def test_inputs_have_accessible_names(qtbot: QtBot, make_window: Callable[..., MainWindow]) -> None:
    window = make_window(initial_tab="estimate")
    tab = window.load_initial_tab()
    window.show_compare()
    roots = [tab, window.notes_dock, window.banner, window.compare_dialog]
    unnamed = []
    for root in roots:
        assert root is not None
        for cls in (QLineEdit, QComboBox, QAbstractSpinBox, QAbstractButton, QPlainTextEdit):
            for widget in root.findChildren(cls):
                parent = widget.parentWidget()
                internal = isinstance(parent, QComboBox | QAbstractSpinBox) or (
                    widget.objectName().startswith("qt_")  # Qt's own parts (table corner)
                )
                text = widget.text() if isinstance(widget, QAbstractButton) else ""
                if not (widget.accessibleName() or text or internal):
                    unnamed.append(f"{type(widget).__name__} {widget.objectName()}")
    assert unnamed == []


def test_tab_navigation_keys(make_window: Callable[..., MainWindow]) -> None:
    window = make_window(initial_tab="estimate")
    window.next_tab_action.trigger()
    assert window.current_tab_name() == "cost"
    window.previous_tab_action.trigger()
    window.previous_tab_action.trigger()
    assert window.current_tab_name() == "monitor"  # wraps around
    assert window.next_tab_action.shortcut().toString() == "Ctrl+PgDown"


# --- themes and presentation ------------------------------------------------------------------


def test_dark_theme_is_switchable_and_remembered(
    qtbot: QtBot, isolated_home: Path, make_window: Callable[..., MainWindow]
) -> None:
    window = make_window(remember=True, initial_tab="estimate")
    tab = window.load_initial_tab()
    window.theme_actions["dark"].trigger()
    assert theme.current_theme() == "dark"
    assert theme.COLORS["window"] == theme.DARK_COLORS["window"]
    assert QApplication.palette().window().color().name().upper() == theme.DARK_COLORS["window"]
    plot = tab.plots.time_plot  # type: ignore[attr-defined]
    assert plot.backgroundBrush().color().name().upper() == theme.DARK_COLORS["surface"]
    settings = QSettings(
        str(isolated_home / "config" / "desktopapp.ini"), QSettings.Format.IniFormat
    )
    assert settings.value("view/theme") == "dark"
    other = make_window(remember=True)
    assert other.theme_mode == "dark" and other.theme_actions["dark"].isChecked()
    window.theme_actions["light"].trigger()
    assert theme.current_theme() == "light"
    assert plot.backgroundBrush().color().name().upper() == theme.LIGHT_COLORS["surface"]
    window.set_theme_mode("system")  # offscreen reports no dark preference
    assert theme.current_theme() == theme.system_theme() == "light"
    with pytest.raises(ValueError, match="theme"):
        window.set_theme_mode("sepia")


def test_presentation_mode(qtbot: QtBot, make_window: Callable[..., MainWindow]) -> None:
    window = make_window(initial_tab="estimate")
    window.show()
    qtbot.waitUntil(window.is_tab_ready, timeout=5000)
    tab = window.tab_content("estimate")
    curve = tab.plots.time_curve  # type: ignore[union-attr]
    width = curve.opts["pen"].widthF()
    window.presentation_action.trigger()
    assert window.is_presenting() and window.isFullScreen()
    assert theme.current_scale() == theme.PRESENTATION_SCALE
    # the theme's body size, scaled (the application font before it depends on what ran
    # earlier in this process: Qt's own default when this test runs first)
    presenting = theme.BASE_POINT_SIZE * theme.PRESENTATION_SCALE
    assert QApplication.font().pointSizeF() == pytest.approx(presenting)
    assert curve.opts["pen"].widthF() > width * 1.5  # high-contrast plots
    assert window.view_actions["cost"].shortcut().toString() == "Ctrl+2"  # still there
    window.leave_presentation_action.trigger()
    assert not window.is_presenting() and not window.isFullScreen()
    assert theme.current_scale() == 1.0
    assert QApplication.font().pointSizeF() == pytest.approx(theme.BASE_POINT_SIZE)
    assert curve.opts["pen"].widthF() == pytest.approx(width)


def test_examples_are_valid_and_consistent() -> None:
    rented = load_scenario(RENTED).scenario
    owned = load_scenario(OWNED).scenario
    assert rented.training is not None and owned.training is not None
    assert (rented.training.gpus, rented.training.accelerator) == (8, "h100-sxm")
    assert (owned.training.gpus, owned.training.accelerator) == (16, "a100-sxm-80gb")
    assert rented.training.params == owned.training.params  # the same work, two ways
    onprem = owned.cost.on_prem
    assert onprem is not None and onprem.gpus == 16
    # The owned run's price is the model's owning cost per useful GPU-hour (to the cent).
    expected = float(onprem_cost_per_useful_hour(onprem, onprem.utilization)[0])
    assert owned.training.price == pytest.approx(expected, abs=0.005)
    assert isinstance(rented.cost, CostPlan) and rented.cost.offer is not None
    with pytest.raises(ScenarioError):
        Scenario.from_json(
            RENTED.read_text(encoding="utf-8").replace('"version": 3', '"version": 9')
        )


def test_app_options_for_compare_theme_presentation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktopapp import app

    assert app.main(["--compare", str(tmp_path / "missing.json")]) == 2
    assert "--compare" in capsys.readouterr().err
    assert app.main(["--theme", "sepia"]) == 2
    args = app.build_parser().parse_args(
        [str(RENTED), "--compare", str(OWNED), "--theme", "dark", "--presentation"]
    )
    assert (args.compare, args.theme, args.presentation) == ([str(OWNED)], "dark", True)
    assert os.fspath(args.scenario_path) == str(RENTED)


def test_latency_targets_are_saved_and_opened(
    qtbot: QtBot, make_window: Callable[..., MainWindow], tmp_path: Path
) -> None:
    """Issue 16: the TTFT/TPOT targets typed in the Workload tab were lost on save; 1001 ms came
    back as 1000 ms (truncated). Issue 13: the production factor is saved and opened too."""
    window = make_window(initial_tab="estimate")
    window.show()
    qtbot.waitUntil(window.is_tab_ready, timeout=5000)
    assert window.document.open(RENTED)
    tab: Any = window.tab_content("estimate")
    tab.inputs.ttft_target.setValue(1001.0)
    tab.inputs.tpot_target.setValue(35.0)
    tab.inputs.production_factor.set_value(1.3)
    tab.flush()
    saved_path = tmp_path / "targets.json"
    assert window.document.save_as(saved_path)
    inference = load_scenario(saved_path).scenario.inference
    assert inference is not None
    assert inference.ttft_target_s == pytest.approx(1.001)
    assert inference.tpot_target_s == pytest.approx(0.035)
    training = load_scenario(saved_path).scenario.training
    assert training is not None and training.production_factor == pytest.approx(1.3)
    tab.inputs.ttft_target.setValue(0.0)  # cleared after saving: "no target"
    tab.inputs.tpot_target.setValue(0.0)
    tab.inputs.production_factor.set_value(None)
    tab.flush()
    assert tab.outcome.inference is not None
    assert window.document.open(saved_path)
    assert tab.inputs.ttft_target.value() == 1001
    assert tab.inputs.tpot_target.value() == 35
    assert tab.inputs.production_factor.value() == pytest.approx(1.3)
    assert not window.document.is_modified()


def test_screenshot_of_compare_pins_the_current_scenario_once_it_is_filled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path, qapp: Any
) -> None:
    """Issue 16: `--screenshot --compare` pinned the current scenario before the Workload tab
    had published it, so its column read "—" throughout."""
    from desktopapp import app

    pinned: list[tuple[bool, bool]] = []

    def grab(widget: Any, _path: Path) -> None:
        pinned.extend((p.current, p.summary.training is not None) for p in widget.view.pins)

    monkeypatch.setattr(app, "save_screenshot", grab)
    shot = tmp_path / "compare.png"
    assert app.main(["--compare", str(OWNED), "--screenshot", str(shot), "--tab", "estimate"]) == 0
    assert pinned == [(True, True), (False, True)]
