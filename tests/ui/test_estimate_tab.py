"""Workload estimation tab: presets, typing, invalid input, results equal the model's."""

from __future__ import annotations

import dataclasses
import html
import math

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot

from desktopapp.application import training_view, workload
from desktopapp.application.workload_presets import CUSTOM_EDITED, CUSTOM_FROM_SCENARIO
from desktopapp.model import units
from desktopapp.model.catalog import accelerator_catalog, cheapest_offer
from desktopapp.model.inference import InferenceInputs, estimate_inference
from desktopapp.model.memory import MemoryInputs
from desktopapp.model.perf_training import MODELLED_SOURCE
from desktopapp.model.presets import get_preset, load_presets
from desktopapp.model.training import TrainingInputs, catalog_price, estimate_training
from desktopapp.ui.estimate import create_tab
from desktopapp.ui.estimate import tab as tab_module
from desktopapp.ui.estimate.tab import (
    CUSTOM_ID,
    CUSTOM_PRESET,
    EstimateTab,
)
from desktopapp.ui.state import AppState, CustomAccelerator


@pytest.fixture
def tab(qtbot: QtBot, app_state: AppState) -> EstimateTab:
    widget = create_tab(app_state)
    assert isinstance(widget, EstimateTab)
    qtbot.addWidget(widget)
    widget.resize(1400, 900)
    return widget


def type_into(qtbot: QtBot, edit: QLineEdit, text: str) -> None:
    """Replace a field's text the way a user does (select all, type)."""
    edit.setFocus()
    edit.selectAll()
    if text:
        qtbot.keyClicks(edit, text)
    else:
        qtbot.keyClick(edit, Qt.Key.Key_Backspace)


def settle(qtbot: QtBot, tab: EstimateTab) -> None:
    """Wait for the coalescing timer to fire the recompute."""
    qtbot.waitUntil(lambda: not tab._timer.isActive(), timeout=3000)


def all_label_texts(tab: EstimateTab) -> list[str]:
    return [label.text() for label in tab.findChildren(QLabel)]


def test_opens_ready_with_the_default_preset(tab: EstimateTab, app_state: AppState) -> None:
    assert tab.is_ready()
    assert tab.inputs.preset_combo.currentData() == "bert-base"
    assert tab.outcome.training is not None
    assert app_state.estimate is tab.outcome.training
    assert app_state.preset_id == "bert-base"
    assert app_state.training is not None and app_state.training.params == 110e6


def test_bert_preset_matches_the_model(tab: EstimateTab, app_state: AppState) -> None:
    preset = get_preset("bert-base")
    price, source = catalog_price(preset.accelerator)  # type: ignore[arg-type,misc]
    acc = accelerator_catalog().get(preset.accelerator)  # type: ignore[arg-type]
    expected_inputs = preset.to_training_inputs(
        utilization=tab.inputs.utilization.fraction(), price=price, price_source=source
    )
    flat = estimate_training(expected_inputs)
    # The headline is the modelled run (plan, communication, efficiency), as the CLI prints it;
    # the utilization field shows only the catalog default, so the model predicts the MFU.
    modelled = training_view.model_run(
        expected_inputs, training_view.shape_of(None, preset), utilization_user_set=False
    )
    assert modelled.run is not None
    expected = training_view.headline_estimate(flat, modelled)
    assert expected.gpu_hours == modelled.run.gpu_hours != flat.gpu_hours
    assert expected.utilization == pytest.approx(modelled.run.mfu, rel=1e-3)
    got = tab.outcome.training
    assert got is not None
    assert got.total_flops == pytest.approx(expected.total_flops)
    assert got.training_seconds == pytest.approx(expected.training_seconds)
    assert got.gpu_hours == pytest.approx(expected.gpu_hours)
    assert got.estimated_cost_usd == pytest.approx(expected.estimated_cost_usd)
    assert got.planning_high_cost_usd == pytest.approx(expected.planning_high_cost_usd)
    # The worked example: 6 × 110M × 3.3B = 2.178e18 FLOP.
    assert got.total_flops == pytest.approx(2.178e18)

    cards = tab.training_results
    assert cards.compute_card.value_text() == units.format_flops(expected.total_flops)
    assert cards.time_card.value_text() == units.format_duration(expected.training_seconds)
    assert cards.cost_card.value_text() == units.format_money(expected.estimated_cost_usd)
    assert "C = 6 × N × D" in cards.compute_card.toolTip()
    assert "110" in cards.compute_card.toolTip()
    assert cards.time_range.labels() == (
        units.format_hours(expected.planning_low_hours),
        units.format_hours(expected.planning_high_hours),
    )
    # Default utilization from the catalog's typical figure (or the model default).
    default = acc.typical_utilization or 0.40
    assert tab.inputs.utilization.fraction() == pytest.approx(default, abs=0.005)
    # Price from the cheapest on-demand offer, naming it and its date.
    offer = cheapest_offer(acc.id)
    assert offer is not None
    assert tab.inputs.price.value() == pytest.approx(offer.on_demand)
    assert offer.name in tab.inputs.price_source.text()
    assert offer.price_date in tab.inputs.price_source.text()
    assert app_state.price.from_catalog and app_state.price.offer_name == offer.name


def test_memory_and_inference_match_the_model(tab: EstimateTab) -> None:
    # issue 21: the memory panel shows memory for the modelled plan (its ZeRO stage and
    # micro-batch), as the snapshot computes it for the preset
    from desktopapp.application.snapshot import compute_snapshot, request_from_preset

    preset = get_preset("bert-base")
    snap = compute_snapshot(request_from_preset("bert-base", with_verdict=False))
    assert snap.memory_for_plan and snap.memory is not None and snap.training is not None
    memory_expected = snap.memory
    plan = snap.training.plan
    assert plan is not None and memory_expected.inputs.batch_size == plan.micro_batch
    assert "modelled plan" in tab.memory_panel.note_label.text()
    memory = tab.outcome.memory
    assert memory is not None
    assert memory.per_device_bytes == pytest.approx(memory_expected.per_device_bytes)
    assert memory.fits is True
    assert tab.memory_panel.verdict_tone() == "good"
    assert tab.memory_panel.bar.capacity() == pytest.approx(memory_expected.device_memory_bytes)
    # the per-device peak is named in the panel (the memory model's parts need not add up
    # to the peak: activations and optimizer step peak at different times)
    assert units.format_bytes(memory_expected.per_device_bytes) in tab.memory_panel.toolTip() + (
        " ".join(label.text() for label in tab.memory_panel.findChildren(QLabel))
    )
    assert tab.memory_panel.legend["activations"].value.text() == units.format_bytes(
        memory_expected.per_device_activations_bytes
    )

    inference = tab.outcome.inference
    assert inference is not None
    expected = estimate_inference(
        InferenceInputs(
            params=110e6,
            accelerator=preset.accelerator,
            precision=str(tab.inputs.inference_precision.currentData()),
            batch_size=1,
            prompt_tokens=512,
            output_tokens=256,
            layers=12,
            hidden=768,
            heads=12,
            price=tab.inputs.price.value(),
            architecture="encoder",
        )
    )
    assert inference.throughput_per_second == pytest.approx(expected.throughput_per_second)
    assert inference.latency_seconds == pytest.approx(expected.latency_seconds)
    assert inference.cost_per_million == pytest.approx(expected.cost_per_million)
    # BERT is an encoder (issue 25): one forward pass per request, no serving model and no
    # time-to-first-token cards; sequences per second and the latency per request instead
    assert snap.serving is None and tab.snapshot is not None and tab.snapshot.serving is None
    view = workload.inference_view(expected, expected.inputs)
    panel = tab.inference_panel
    assert panel.latency_card.value_text() == view.latency.value
    assert panel.throughput_card.value_text() == f"{view.throughput.value} sequences/s"
    captions = [card.caption for card in panel.cards]
    assert captions == [c.upper() for c in workload.ENCODER_CAPTIONS]
    assert not tab.inputs.ttft_target.isVisibleTo(tab) and not tab.inputs.targets_label.isVisibleTo(
        tab
    )
    assert not tab.inputs.output_tokens.isVisibleTo(tab)
    tab.apply_preset("llm-7b")  # a decoder: the token timings and their targets come back
    assert [c.caption for c in panel.cards] == [c.upper() for c in workload.SERVING_CAPTIONS]
    assert tab.inputs.ttft_target.isVisibleTo(tab) and tab.inputs.output_tokens.isVisibleTo(tab)


@pytest.mark.parametrize("preset", [p.id for p in load_presets()])
def test_every_preset_applies_without_errors_or_nan(
    tab: EstimateTab, app_state: AppState, preset: str
) -> None:
    tab.apply_preset(preset)
    chosen = get_preset(preset)
    assert tab.inputs.preset_combo.currentData() == preset
    assert chosen.hardware in tab.inputs.preset_hardware.text().replace("&#x27;", "'") or (
        chosen.hardware[:20] in tab.inputs.preset_hardware.text()
    )
    assert tab.marked_fields() == {}, tab.marked_fields()
    assert tab.outcome.errors == {}
    texts = " ".join(all_label_texts(tab)).lower()
    assert "nan" not in texts.replace("nanosecond", "").split() and " nan " not in texts
    assert "inf " not in texts
    if chosen.has_training_estimate:
        assert tab.outcome.training is not None
        assert tab.training_results.compute_card.value_text() != units.DASH
    else:
        assert tab.outcome.training is None
        assert app_state.training is None and app_state.estimate is None  # nothing to plan
        assert tab.training_results.compute_card.value_text() == units.DASH
        assert "no FLOP-based estimate" in tab.training_results.range_note.text()


def test_typing_updates_results_after_a_short_pause(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    type_into(qtbot, tab.inputs.params, "7B")
    assert tab._timer.isActive()  # coalesced, not computed per keystroke
    with qtbot.waitSignal(tab.recomputed, timeout=3000):
        pass
    got = tab.outcome.training
    assert got is not None and got.inputs.params == 7e9
    assert got.total_flops == pytest.approx(6 * 7e9 * 3.3e9)
    assert tab.training_results.compute_card.value_text() == units.format_flops(got.total_flops)
    assert app_state.training is not None and app_state.training.params == 7e9

    type_into(qtbot, tab.inputs.tokens, "1.5e12")
    settle(qtbot, tab)
    assert tab.outcome.training is not None
    assert tab.outcome.training.total_flops == pytest.approx(6 * 7e9 * 1.5e12)


def test_invalid_text_is_marked_and_results_show_dash(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    window_status: list[str] = []
    app_state.status_message.connect(lambda text, _ms: window_status.append(text))
    type_into(qtbot, tab.inputs.tokens, "lots")
    settle(qtbot, tab)
    edit = tab.inputs.tokens
    assert edit.property("invalid") is True
    assert "tokens" in edit.toolTip() and "not a number" in edit.toolTip()
    assert tab.training_results.compute_card.value_text() == units.DASH
    assert tab.training_results.cost_card.value_text() == units.DASH
    assert not tab.training_results.time_range.has_range()
    assert window_status and "tokens" in window_status[-1]
    assert tab.outcome.errors is not None and "tokens" in tab.outcome.errors
    # Other tabs keep the last valid inputs and estimate meanwhile; memory still computes.
    assert tab.outcome.memory is not None
    assert app_state.estimate is not None and app_state.estimate.inputs.tokens == 3.3e9
    assert app_state.training is not None and app_state.training.tokens == 3.3e9

    type_into(qtbot, tab.inputs.tokens, "3.3B")
    settle(qtbot, tab)
    assert edit.property("invalid") is False
    assert tab.outcome.training is not None
    assert window_status[-1] == ""  # status cleared


@pytest.mark.parametrize("text", ["1e-300", "0.5"])
def test_a_parameter_count_below_one_is_refused_at_its_field(
    qtbot: QtBot, tab: EstimateTab, text: str
) -> None:
    """1e-300 parameters computed a serving step of 0 s; the throughput plot then raised
    'Cannot set range [0.0, inf]' out of a Qt slot."""
    type_into(qtbot, tab.inputs.params, text)
    settle(qtbot, tab)
    message = tab.marked_fields().get(tab.inputs.params, "")
    assert message.startswith("Parameters: must be at least 1"), message


def test_a_parameter_count_beyond_the_command_lines_bound_is_refused(
    qtbot: QtBot, tab: EstimateTab
) -> None:
    """1e40 parameters passed the field (the command line refuses above 1e18) and the shape
    assumed from it overflowed the Shape spin boxes: OverflowError out of recompute."""
    type_into(qtbot, tab.inputs.params, "1e40")
    settle(qtbot, tab)
    message = tab.marked_fields().get(tab.inputs.params, "")
    assert message == "Parameters: '1e40' is too large (at most 1e+18)", message
    type_into(qtbot, tab.inputs.params, "1e18")  # the bound itself is allowed
    settle(qtbot, tab)
    assert tab.inputs.params not in tab.marked_fields()


def test_model_error_is_mapped_to_its_field(qtbot: QtBot, tab: EstimateTab) -> None:
    # hidden must be divisible by heads: the memory model raises "hidden: …".
    tab.inputs.hidden.setValue(770)
    settle(qtbot, tab)
    marked = tab.marked_fields()
    assert tab.inputs.hidden in marked
    assert marked[tab.inputs.hidden].startswith("Hidden size:")
    assert tab.inputs.hidden.property("invalid") is True
    assert "divisible" in tab.inputs.hidden.toolTip()
    assert tab.outcome.memory is None
    assert tab.memory_panel.verdict.text() == units.DASH
    assert tab.outcome.training is not None  # training does not depend on the shape
    tab.inputs.hidden.setValue(768)
    settle(qtbot, tab)
    assert tab.marked_fields() == {}
    assert tab.inputs.hidden.property("invalid") is False


def test_zero_devices_and_bad_epochs_never_crash(qtbot: QtBot, tab: EstimateTab) -> None:
    tab.inputs.devices.setValue(0)  # below the spin's minimum: clamps to 1
    settle(qtbot, tab)
    assert tab.outcome.training is not None and tab.outcome.training.devices >= 1
    type_into(qtbot, tab.inputs.epochs, "-2")
    settle(qtbot, tab)
    assert tab.inputs.epochs.property("invalid") is True
    assert tab.training_results.time_card.value_text() == units.DASH


def test_typed_price_overrides_catalog_and_reset_restores(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    catalog_value = tab.inputs.price.value()
    type_into(qtbot, tab.inputs.price, "5")
    settle(qtbot, tab)
    est = tab.outcome.training
    assert est is not None
    assert est.price_per_gpu_hour == 5.0
    assert est.estimated_cost_usd == pytest.approx(est.gpu_hours * 5.0)
    assert "Typed in" in tab.inputs.price_source.text()
    assert not app_state.price.from_catalog
    assert tab.inputs.price_reset_button.isEnabled()

    # A new accelerator keeps the typed price.
    tab.inputs.accelerator.set_accelerator_id("h100-sxm")
    tab.inputs.accelerator.accelerator_changed.emit("h100-sxm")
    settle(qtbot, tab)
    assert tab.inputs.price.value() == 5.0

    tab.inputs.price_reset_button.click()
    settle(qtbot, tab)
    h100_price = catalog_price("h100-sxm")
    assert h100_price is not None
    assert tab.inputs.price.value() == pytest.approx(h100_price[0])
    assert tab.outcome.training is not None
    assert tab.outcome.training.price_source == h100_price[1]
    assert catalog_value is not None


def test_empty_price_gives_no_cost_but_other_results(qtbot: QtBot, tab: EstimateTab) -> None:
    type_into(qtbot, tab.inputs.price, "")
    settle(qtbot, tab)
    assert not tab.inputs.price.property("invalid")
    assert tab.outcome.training is not None
    assert tab.outcome.training.estimated_cost_usd is None
    assert tab.training_results.cost_card.value_text() == units.DASH
    assert tab.training_results.time_card.value_text() != units.DASH


def test_precisions_follow_the_accelerator(qtbot: QtBot, tab: EstimateTab) -> None:
    catalog = accelerator_catalog()
    for acc in catalog.accelerators[:12]:
        tab.inputs.accelerator.set_accelerator_id(acc.id)
        tab._on_accelerator_chosen(acc.id)
        offered = [
            str(tab.inputs.precision.itemData(i)) for i in range(tab.inputs.precision.count())
        ]
        supported = [p for p in ("fp32", "tf32", "bf16", "fp16", "fp8") if p in acc.precisions]
        if supported:
            assert offered == supported, acc.id
        tab.flush()
        if supported:
            assert tab.outcome.training is not None, (acc.id, tab.outcome.errors)
            assert tab.outcome.training.inputs.accelerator == acc.id


def test_utilization_slider_drives_the_estimate(qtbot: QtBot, tab: EstimateTab) -> None:
    tab.inputs.utilization.slider.setValue(25)
    settle(qtbot, tab)
    est = tab.outcome.training
    assert est is not None and est.utilization == pytest.approx(0.25)
    assert "Set by you" in tab.inputs.utilization_note.text()
    # The point on the cost-vs-utilization plot is the chosen one.
    xs, ys = tab.plots.util_marker.getData()
    assert xs[0] == pytest.approx(25.0) and ys[0] == pytest.approx(est.estimated_cost_usd)
    xs, ys = tab.plots.time_marker.getData()  # log axes: pyqtgraph returns log10 values
    assert xs[0] == pytest.approx(math.log10(est.devices))
    assert ys[0] == pytest.approx(math.log10(est.training_hours))


def test_does_not_fit_shows_verdict_and_suggestions(qtbot: QtBot, tab: EstimateTab) -> None:
    tab.apply_preset("llm-7b")
    tab.inputs.devices.setValue(1)
    tab.inputs.zero_stage.setCurrentIndex(0)
    tab.inputs.zero_stage.activated.emit(0)
    settle(qtbot, tab)
    memory = tab.outcome.memory
    assert memory is not None and memory.fits is False
    assert tab.memory_panel.verdict_tone() == "bad"
    assert "Does not fit" in tab.memory_panel.verdict.text()
    advice = tab.memory_panel.advice.text()
    assert memory.suggestions
    assert memory.suggestions[0].description.split(" (")[0][:30] in advice.replace("&#x27;", "'")


def test_forward_method_preset_and_inference_predictions(qtbot: QtBot, tab: EstimateTab) -> None:
    tab.apply_preset("cnn-imagenet")
    assert tab.inputs.method() == "forward"
    assert not tab.inputs.tokens.isVisibleTo(tab) and tab.inputs.samples.isVisibleTo(tab)
    est = tab.outcome.training
    preset = get_preset("cnn-imagenet")
    assert est is not None and preset.forward_flops is not None and preset.samples is not None
    assert est.total_flops == pytest.approx(3 * preset.forward_flops * preset.samples * 90)
    assert tab.outcome.inference is not None and tab.outcome.inference.unit == "prediction"
    assert "predictions/s" in tab.inference_panel.throughput_card.value_text()


def test_state_workload_from_outside_fills_the_widgets(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    training = TrainingInputs(
        params=1.3e9, tokens=26e9, accelerator="h100-sxm", gpus=16, utilization=0.35
    )
    memory = MemoryInputs(
        params=1.3e9, layers=24, hidden=2048, heads=16, seq_len=2048, batch_size=4, gpus=16
    )
    app_state.set_workload(training=training, memory=memory, preset_id=None)
    assert tab.inputs.params.text() == "1.3B"
    assert tab.inputs.devices.value() == 16
    assert tab.inputs.accelerator.accelerator_id() == "h100-sxm"
    assert tab.inputs.utilization.fraction() == pytest.approx(0.35)
    assert tab.inputs.layers.value() == 24
    est = tab.outcome.training
    assert est is not None
    assert est.total_flops == pytest.approx(6 * 1.3e9 * 26e9)
    assert est.utilization == pytest.approx(0.35)


def test_measured_accelerator_from_the_hardware_tab(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    custom = CustomAccelerator(
        name="This machine's GPU",
        peak_tflops={"bf16": 100.0, "fp32": 20.0},
        based_on="a100-sxm-40gb",
        utilization=0.55,
    )
    app_state.set_custom_accelerator(custom)
    assert tab.inputs.accelerator.findData(CUSTOM_ID) == 0
    assert tab.inputs.accelerator.accelerator_id() == CUSTOM_ID  # selected when offered
    assert tab.use_custom_accelerator()
    tab.flush()
    est = tab.outcome.training
    assert est is not None
    assert est.peak_tflops == pytest.approx(100.0)
    # modelled with the measured matmul efficiency (100 of the A100's 312 TFLOP/s): the
    # achieved rate is a share of the measured peak, not the flat 55%
    assert 0.3 < est.utilization < 1.0 and est.utilization != pytest.approx(0.55)
    assert est.utilization_source == MODELLED_SOURCE
    assert "measured" in tab.inputs.utilization_note.text()
    assert tab.outcome.inference is not None  # bandwidth from the catalog match
    # the modelled run uses the catalog A100 with the measured matmul efficiency
    assert tab.modelled.view is not None, tab.modelled.message.text()
    app_state.set_custom_accelerator(None)
    assert tab.inputs.accelerator.findData(CUSTOM_ID) < 0
    assert tab.inputs.accelerator.accelerator_id() != CUSTOM_ID


def test_measured_cpu_without_catalog_match(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    app_state.set_custom_accelerator(
        CustomAccelerator(name="Laptop CPU", peak_tflops={"fp32": 0.3}, memory_bytes=16 * 2**30)
    )
    tab.flush()
    est = tab.outcome.training
    assert est is not None and est.peak_tflops == pytest.approx(0.3)
    assert tab.inputs.precision.currentData() == "fp32"
    memory = tab.outcome.memory
    assert memory is not None and memory.device_memory_bytes == pytest.approx(16 * 2**30)
    # No bandwidth for inference: explained, not marked as the user's mistake.
    assert tab.outcome.inference is None
    assert tab.marked_fields() == {}
    assert "bandwidth" in tab.inference_panel.note_label.text()
    app_state.set_custom_accelerator(None)


def test_gpu_hours_per_month_for_the_cost_tab(tab: EstimateTab, app_state: AppState) -> None:
    est = app_state.estimate
    assert est is not None
    app_state.set_runs_per_month(4)
    assert app_state.gpu_hours_per_month == pytest.approx(est.gpu_hours * 4)
    with pytest.raises(ValueError, match="runs_per_month"):
        app_state.set_runs_per_month(-1)


def test_assumptions_are_listed_on_the_tab(tab: EstimateTab) -> None:
    names = tab.assumptions.names()
    est = tab.outcome.training
    assert est is not None
    for assumption in est.assumptions:
        assert assumption.name in names
    assert tab.assumptions.isVisibleTo(tab)
    assert "PaLM" in tab.assumptions.text.text()  # FLOPs per token with the preset's shape


def test_every_result_card_has_a_formula_tooltip(tab: EstimateTab) -> None:
    for card in (*tab.training_results.cards, *tab.inference_panel.cards):
        assert card.toolTip(), card.caption
        assert "=" in card.toolTip(), card.caption


def test_no_pending_timer_after_shutdown(qtbot: QtBot, tab: EstimateTab) -> None:
    type_into(qtbot, tab.inputs.params, "1B")
    assert tab._timer.isActive()
    tab.shutdown()
    assert not tab._timer.isActive()


def test_plots_cover_one_to_4096_devices(tab: EstimateTab) -> None:
    xs, _ys = tab.plots.time_curve.getData()  # log10 of the device counts (log x axis)
    assert xs is not None
    assert float(min(xs)) == pytest.approx(0.0)
    assert float(max(xs)) == pytest.approx(math.log10(4096))


def test_inputs_dataclass_round_trip_uses_model_names(
    tab: EstimateTab, app_state: AppState
) -> None:
    training = app_state.training
    assert training is not None
    # What the tab publishes are the model's own dataclasses (the Cost tab reads them).
    assert dataclasses.is_dataclass(training) and isinstance(training, TrainingInputs)
    assert isinstance(app_state.memory, MemoryInputs)
    assert isinstance(app_state.inference, InferenceInputs)


# --- preset picker and price source after a scenario --------------------------------------------


def test_workload_from_a_scenario_shows_custom_not_a_preset(
    tab: EstimateTab, app_state: AppState
) -> None:
    combo = tab.inputs.preset_combo
    assert combo.currentData() == "bert-base"
    training = TrainingInputs(params=1.3e9, tokens=26e9, accelerator="h100-sxm", gpus=16)
    app_state.set_workload(training=training, memory=None, preset_id=None)
    assert combo.currentData() == CUSTOM_PRESET
    assert combo.currentText() == CUSTOM_FROM_SCENARIO
    assert combo.currentText() not in {p.name for p in load_presets()}
    assert tab.preset_id is None and app_state.preset_id is None
    assert "scenario" in tab.inputs.preset_description.text()
    assert tab.inputs.preset_hardware.text() == ""  # no preset's advice for these inputs
    assert not tab.inputs.preset_hardware.isVisibleTo(tab)
    assert not tab.inputs.preset_memory.isVisibleTo(tab)
    # Choosing "Custom" in the picker changes nothing; choosing a preset applies it.
    shown = app_state.training  # the tab's own form of the inputs (method "6nd", a price)
    assert shown is not None and shown.params == training.params
    combo.activated.emit(combo.findData(CUSTOM_PRESET))
    assert combo.currentData() == CUSTOM_PRESET and app_state.training == shown
    combo.setCurrentIndex(combo.findData("llm-7b"))
    combo.activated.emit(combo.currentIndex())
    assert tab.preset_id == "llm-7b" and app_state.preset_id == "llm-7b"
    assert combo.currentData() == "llm-7b"
    assert get_preset("llm-7b").description == tab.inputs.preset_description.text()
    assert tab.inputs.preset_hardware.isVisibleTo(tab) and tab.inputs.preset_memory.isVisibleTo(tab)


def test_editing_away_from_a_preset_switches_to_custom(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    combo = tab.inputs.preset_combo
    # Inputs a preset does not set (price, utilization, serving) keep the preset.
    type_into(qtbot, tab.inputs.price, "4.5")
    tab.inputs.utilization.set_fraction(0.33)
    tab.inputs.utilization.value_changed.emit(0.33)
    tab.inputs.inference_batch.setValue(8)
    settle(qtbot, tab)
    assert combo.currentData() == "bert-base" and app_state.preset_id == "bert-base"
    # A figure the preset set, changed: the workload is the user's own now.
    type_into(qtbot, tab.inputs.params, "340M")
    settle(qtbot, tab)
    assert combo.currentData() == CUSTOM_PRESET
    assert combo.currentText() == CUSTOM_EDITED
    assert tab.preset_id is None and app_state.preset_id is None
    assert "Edited from BERT-base" in tab.inputs.preset_description.text()
    assert app_state.training is not None and app_state.training.params == 340e6
    # Choosing a preset again starts from its figures.
    tab.apply_preset("bert-base")
    assert combo.currentData() == "bert-base" and tab.inputs.params.value() == 110e6
    tab.inputs.devices.setValue(3)  # a spin box the preset set
    settle(qtbot, tab)
    assert combo.currentText() == CUSTOM_EDITED and app_state.preset_id is None


SCENARIO_OFFER = "lambda/gpu-8x-h100-sxm5/all"


def _offer_source() -> tuple[float, str]:
    from desktopapp.model.catalog import offer_by_id

    offer = offer_by_id(SCENARIO_OFFER)
    assert offer.on_demand is not None
    source = f"catalog offer: {offer.name}, {offer.region} ({offer.price_date}) [{offer.id}]"
    return offer.on_demand, source


def test_a_scenario_price_from_a_catalog_offer_keeps_its_source(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    price, source = _offer_source()
    cheapest = catalog_price("h100-sxm")
    assert cheapest is not None and cheapest[1] != source  # not the tab's own catalog choice
    training = TrainingInputs(
        params=7e9, tokens=150e9, accelerator="h100-sxm", gpus=8, price=price, price_source=source
    )
    app_state.set_workload(training=training, preset_id=None)
    tab.flush()
    assert app_state.training is not None
    assert app_state.training.price == price
    assert app_state.training.price_source == source  # not re-published as "typed in"
    assert tab.outcome.training is not None and tab.outcome.training.price_source == source
    text = tab.inputs.price_source.text()
    assert "From the scenario" in text and "Lambda" in text
    assert tab.inputs.price_source.toolTip() == source
    assert app_state.price.from_catalog and "Lambda" in app_state.price.offer_name
    assert tab.inputs.price_reset_button.isEnabled()
    # Edits elsewhere keep it.
    tab.inputs.devices.setValue(16)
    settle(qtbot, tab)
    assert app_state.training.price_source == source
    # Typing over the price makes it the user's.
    type_into(qtbot, tab.inputs.price, "3.5")
    settle(qtbot, tab)
    assert app_state.training.price == 3.5 and app_state.training.price_source == "typed in"
    assert "Typed in" in tab.inputs.price_source.text()


def test_a_scenario_offer_price_gives_way_on_another_accelerator(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    price, source = _offer_source()
    training = TrainingInputs(
        params=7e9, tokens=150e9, accelerator="h100-sxm", gpus=8, price=price, price_source=source
    )
    app_state.set_workload(training=training, preset_id=None)
    tab.flush()
    tab.inputs.accelerator.set_accelerator_id("a100-sxm-80gb")
    tab.inputs.accelerator.accelerator_changed.emit("a100-sxm-80gb")
    settle(qtbot, tab)
    a100 = catalog_price("a100-sxm-80gb")
    assert a100 is not None
    assert app_state.training is not None
    assert (app_state.training.price, app_state.training.price_source) == a100


def test_a_scenario_price_with_another_named_source_is_kept(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    source = "owned fleet: 16 × A100 80GB at 70% utilization"
    training = TrainingInputs(
        params=7e9,
        tokens=150e9,
        accelerator="a100-sxm-80gb",
        gpus=16,
        price=1.43,
        price_source=source,
    )
    app_state.set_workload(training=training, preset_id=None)
    tab.flush()
    assert app_state.training is not None and app_state.training.price_source == source
    assert "From the scenario: owned fleet" in tab.inputs.price_source.text()
    assert not app_state.price.from_catalog
    tab.inputs.price_reset_button.click()
    settle(qtbot, tab)
    assert (app_state.training.price, app_state.training.price_source) == catalog_price(
        "a100-sxm-80gb"
    )


# --- issue 13 item 7: the modelled run; issue 16: this tab's small defects ---------------------


def test_modelled_run_shows_plan_breakdown_and_scaling(tab: EstimateTab, qtbot: QtBot) -> None:
    tab.apply_preset("llm-7b")
    panel = tab.modelled
    assert panel.view is not None
    assert "DP" in panel.plan_label.text() and panel.plan_label.isVisibleTo(tab)
    assert panel.mfu_card.value_text().endswith("%")
    assert panel.mfu_card.toolTip() and panel.band_card.toolTip()  # formula tooltips
    assert panel.bar.parts and panel.legend.text()
    assert panel.knee_label.text()
    assert not tab.plots.isVisibleTo(tab)  # the bending curves replace the flat ones
    curves = panel._build_plots()["curves"]
    xs, _ys = curves[2].getData()
    assert xs is not None and len(xs) > 10


def _points(curve: object) -> int:
    xs, _ys = curve.getData()  # type: ignore[attr-defined]
    return 0 if xs is None else len(xs)


def test_plots_are_drawn_after_the_figures_and_hidden_ones_once_shown(
    tab: EstimateTab, qtbot: QtBot
) -> None:
    """Issue 25: the plots come after the figures. Once the event loop has run, every plot
    that is not hidden exists and holds the computed curves; the flat scaling plots, hidden
    while the modelled run's replace them, are built (and drawn) when they are shown."""
    tab.show()
    assert tab.is_ready()
    qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
    panel = tab.modelled
    assert panel.view is not None and panel.plots_holder is not None
    assert panel.plots_holder.isVisibleTo(tab)
    assert all(_points(curve) > 10 for curve in panel._build_plots()["curves"])
    # the serving curve, if below the first screen, follows a moment later
    qtbot.waitUntil(lambda: tab.inference_panel.is_built, timeout=10_000)
    assert _points(tab.inference_panel.curve) > 1
    assert tab.plots.isHidden() and not tab.plots.is_built  # nobody sees it yet
    tab.apply_preset("cnn-imagenet")  # FLOPs × samples: not modelled, the flat plots show
    assert not tab.plots.isHidden()
    qtbot.waitUntil(lambda: tab.plots.is_built, timeout=10_000)
    assert tab.plots_drawn()
    assert _points(tab.plots.time_curve) > 10 and _points(tab.plots.time_marker) == 1
    qtbot.waitUntil(lambda: tab.plots.time_plot.isVisibleTo(tab), timeout=10_000)


def _window_with_tab(
    qtbot: QtBot, app_state: AppState, size: tuple[int, int]
) -> tuple[QWidget, EstimateTab]:
    """A window on screen of ``size`` holding a Workload tab (keep the window referenced)."""
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(*size)
    QVBoxLayout(window)
    window.show()
    qtbot.waitExposed(window)
    tab = create_tab(app_state, window)
    assert isinstance(tab, EstimateTab)
    layout = window.layout()
    assert layout is not None
    layout.addWidget(tab)
    return window, tab


def test_a_plot_below_the_first_screen_does_not_hold_up_the_first_complete_screen(
    qtbot: QtBot, app_state: AppState
) -> None:
    """Issue 25 item 9: at 1400×900 the serving curve is below the first screen. The tab is
    complete (``plots_drawn``) once the plots in view are drawn; the serving curve is built
    just after, before anyone could scroll to it, and holds the computed curve."""
    _window, tab = _window_with_tab(qtbot, app_state, (1400, 900))
    panel = tab.inference_panel
    seen: list[tuple[bool, bool]] = []  # at the build: (tab complete, serving curve in view)
    build = panel.ensure_built

    def recording_build() -> dict[str, object]:
        if not panel.is_built:
            seen.append((tab.plots_drawn(), not panel.holder.visibleRegion().isEmpty()))
        return build()

    panel.ensure_built = recording_build  # type: ignore[method-assign]
    try:
        qtbot.waitUntil(lambda: panel.is_built, timeout=10_000)
        assert seen == [(True, False)]  # built after the screen was complete, out of view
        assert tab.modelled.is_drawn and _points(panel.curve) > 1 and tab.plots_drawn()
    finally:
        tab.shutdown()


def test_a_plot_scrolled_into_view_is_built_at_once(
    qtbot: QtBot, app_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scrolled to before its delay has passed, the serving curve is built on the scroll; in
    view, it counts for ``plots_drawn``."""
    monkeypatch.setattr(tab_module, "OFFSCREEN_DELAY_MS", 600_000)  # only the scroll builds it
    _window, tab = _window_with_tab(qtbot, app_state, (1400, 900))
    try:
        qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
        assert not tab.inference_panel.is_built
        tab.results_scroll.ensureWidgetVisible(tab.inference_panel.holder)
        assert tab.inference_panel.is_built  # on the scroll, not after the delay
        assert tab.plots_drawn()
    finally:
        tab.shutdown()


def test_assumptions_below_the_first_screen_follow_the_first_paint(
    qtbot: QtBot, app_state: AppState
) -> None:
    """Built into a window on screen, the tab lays the assumptions list out after its first
    paint (the list is below the first screen); after the event loop has run it shows the
    latest list, and from then on each list at once. A tab built on its own shows it at once
    (the ``tab`` fixture's tests)."""
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(1400, 900)
    QVBoxLayout(window)
    window.show()
    qtbot.waitExposed(window)
    tab = create_tab(app_state, window)
    assert isinstance(tab, EstimateTab)
    assert tab.assumptions.names()  # the list itself is current at once
    assert not tab.assumptions.is_current and "PaLM" not in tab.assumptions.text.text()
    layout = window.layout()
    assert layout is not None
    layout.addWidget(tab)
    qtbot.waitUntil(lambda: tab.assumptions.is_current, timeout=10_000)
    shown = tab.assumptions.text.text()
    assert all(html.escape(name) in shown for name in tab.assumptions.names())
    tab.apply_preset("llm-7b")  # after the first paint: at once
    assert tab.assumptions.is_current and tab.assumptions.text.text() != shown
    tab.shutdown()


def test_plots_drawn_waits_for_the_latest_curves(tab: EstimateTab, qtbot: QtBot) -> None:
    """New figures before the plots exist are not drawn yet: ``plots_drawn`` says so."""
    tab.show()
    qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
    tab.apply_preset("llm-7b")
    assert tab.modelled.view is not None
    qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
    assert tab.modelled.is_drawn
    qtbot.waitUntil(lambda: tab.inference_panel.is_drawn, timeout=10_000)
    fresh = create_tab(tab.state)  # built, never shown: its plots wait for the event loop
    try:
        assert fresh.is_ready() and not fresh.plots_drawn()
        qtbot.waitUntil(fresh.plots_drawn, timeout=10_000)
    finally:
        fresh.shutdown()
        fresh.deleteLater()


def test_typed_utilization_overrides_the_modelled_mfu(tab: EstimateTab, qtbot: QtBot) -> None:
    tab.apply_preset("llm-7b")
    modelled = tab.modelled.mfu_card.value_text()
    tab.inputs.utilization.set_fraction(0.33)
    tab.inputs.utilization_moved.emit(0.33)
    settle(qtbot, tab)
    tab.recompute()
    assert tab.modelled.mfu_card.value_text().startswith("33")
    assert tab.modelled.mfu_card.value_text() != modelled


def test_no_plan_fits_says_so(tab: EstimateTab, qtbot: QtBot) -> None:
    tab.apply_preset("foundation-175b")
    tab.inputs.devices.setValue(1)
    tab.recompute()
    assert tab.modelled.view is None
    text = tab.modelled.message.text()
    assert "no parallel plan" in text.lower() and tab.modelled.message.isVisibleTo(tab)
    # issue 21: no flat-rule figures for a run no plan can carry; the field says why
    assert tab.outcome.training is None and tab.inputs.devices in tab.marked_fields()


def test_invalid_price_only_blanks_the_cost(tab: EstimateTab, qtbot: QtBot) -> None:
    tab.apply_preset("llm-7b")
    before = tab.training_results.time_card.value_text()
    type_into(qtbot, tab.inputs.price, "abc")
    settle(qtbot, tab)
    tab.recompute()
    assert tab.training_results.time_card.value_text() == before
    assert tab.training_results.compute_card.value_text() not in ("", units.DASH)
    assert tab.training_results.cost_card.value_text() in ("", units.DASH)


def test_flops_times_samples_without_inputs_says_why(tab: EstimateTab, qtbot: QtBot) -> None:
    tab.apply_preset("llm-7b")
    tab.inputs.method_forward.click()
    settle(qtbot, tab)
    tab.recompute()
    assert "FLOPs × samples needs" in tab.training_results.range_note.text()
    assert tab.modelled.message.text()  # the modelled panel is not blank either


def test_serving_targets_pick_the_concurrency_and_draw_the_line(
    qtbot: QtBot, tab: EstimateTab
) -> None:
    tab.apply_preset("llm-7b")
    tab.recompute()
    panel = tab.inference_panel
    assert panel.latency_card.caption == "TIME TO FIRST TOKEN"
    assert panel.bound_card.caption == "TIME PER OUTPUT TOKEN"
    assert "target" not in panel.bound_card.detail_text()
    tab.inputs.tpot_target.setValue(40)
    tab.recompute()
    assert "target 40.0 ms ✓" in panel.bound_card.detail_text()
    assert "meets the latency targets" in panel.note_label.text()
    parts = panel.ensure_built()
    assert parts["target"].isVisible() and parts["target"].value() == pytest.approx(40.0)
    tab.inputs.tpot_target.setValue(0)
    tab.recompute()
    assert not parts["target"].isVisible()


def test_measured_bus_bandwidth_reaches_the_modelled_run(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    tab.apply_preset("llm-7b")
    tab.inputs.devices.setValue(64)
    tab.recompute()
    qtbot.waitUntil(lambda: tab.modelled.view is not None, timeout=10_000)
    before = tab.modelled.view
    app_state.set_measured_busbw(2e8)  # a very slow fabric: 0.2 GB/s all-reduce bus bandwidth
    tab.flush()
    qtbot.waitUntil(lambda: tab.modelled.view is not before, timeout=10_000)
    after = tab.modelled.view
    assert after is not None and before is not None
    assert after.step.value != before.step.value  # a slower fabric lengthens the step


def _llama(tab: EstimateTab) -> None:
    tab.apply_preset("llm-7b")
    tab.flush()


def test_a_parallel_plan_typed_in_is_the_plan_the_modelled_run_uses(
    qtbot: QtBot, tab: EstimateTab
) -> None:
    """Issue 13: TP/PP/micro-batch/global batch in the GUI ("auto" = the model picks)."""
    _llama(tab)
    tab.inputs.devices.setValue(64)
    tab.flush()
    auto = tab.state.training
    assert auto is not None and auto.tp is None and auto.pp is None
    tab.inputs.tp.setValue(4)
    tab.inputs.pp.setValue(2)
    tab.inputs.plan_micro_batch.setValue(1)
    type_into(qtbot, tab.inputs.global_batch, "2M")
    tab.flush()
    training = tab.state.training
    assert training is not None
    assert (training.tp, training.pp, training.micro_batch) == (4, 2, 1)
    assert training.global_batch_tokens == 2e6
    tab._show_modelled_pending()
    assert tab.modelled.view is not None
    assert tab.modelled.view.plan_text.startswith("TP 4")
    # A plan the interconnect cannot carry is refused with the reason, on the field.
    tab.inputs.tp.setValue(16)
    tab.flush()
    marked = tab.marked_fields()
    assert tab.inputs.tp in marked and "scale-up domain" in marked[tab.inputs.tp]
    # issue 21: no silent switch to the flat estimate; the headline says it is not current
    assert tab.outcome.training is None
    assert tab.training_results.hero.text().startswith("Not current")


def test_active_parameters_of_a_mixture_of_experts(qtbot: QtBot, tab: EstimateTab) -> None:
    _llama(tab)
    dense = tab.outcome.training
    assert dense is not None
    type_into(qtbot, tab.inputs.active_params, "2B")
    settle(qtbot, tab)
    moe = tab.outcome.training
    assert moe is not None and moe.inputs.active_params == 2e9
    assert moe.total_flops == pytest.approx(dense.total_flops * 2 / 7)
    assert "N_active" in tab.training_results.compute_card.toolTip()
    # the same model serves: the serving estimate computes with the active parameters too
    assert tab.state.inference is not None and tab.state.inference.active_params == 2e9
    type_into(qtbot, tab.inputs.active_params, "9B")  # more than N
    settle(qtbot, tab)
    assert "Active parameters" in tab.marked_fields()[tab.inputs.active_params]


def test_production_factor_field_scales_the_headline(qtbot: QtBot, tab: EstimateTab) -> None:
    """Issue 13: the production factor is visible (placeholder = the fitted value) and
    adjustable; it reaches the modelled headline and is refused by name outside 1-3."""
    from desktopapp.model.perf_training import production_fit

    _llama(tab)
    fitted = tab.outcome.training
    assert fitted is not None
    assert f"{production_fit().factor:.2f}" in tab.inputs.production_factor.placeholderText()
    type_into(qtbot, tab.inputs.production_factor, "1")
    settle(qtbot, tab)
    bench = tab.outcome.training
    assert bench is not None and tab.state.training is not None
    assert tab.state.training.production_factor == 1.0
    assert fitted.gpu_hours == pytest.approx(bench.gpu_hours * production_fit().factor)
    type_into(qtbot, tab.inputs.production_factor, "2")
    settle(qtbot, tab)
    doubled = tab.outcome.training
    assert doubled is not None and doubled.gpu_hours == pytest.approx(2 * bench.gpu_hours)
    type_into(qtbot, tab.inputs.production_factor, "0.5")
    settle(qtbot, tab)
    message = tab.marked_fields()[tab.inputs.production_factor]
    assert "Production factor" in message and "between 1 and 3" in message


def test_plot_axes_of_every_results_panel_format_their_ticks(tab: EstimateTab) -> None:
    """Each panel's custom tick formatter runs (a formatter that raises only shows when the
    axis paints)."""
    plots = [tab.inference_panel.plot, tab.plots.time_plot, tab.plots.cost_plot]
    for plot in plots:
        axis = plot.getAxis("left")
        strings = axis.tickStrings([0.0, 5e5, 1.5e6], 1.0, 5e5)
        assert len(strings) == 3 and all(isinstance(s, str) and s for s in strings)
    assert tab.inference_panel.plot.getAxis("left").tickStrings([1.5e6], 1.0, 5e5) == ["1.5M"]


def test_throughput_axis_starts_at_zero_so_a_flat_curve_reads_as_flat(
    tab: EstimateTab, qtbot: QtBot
) -> None:
    """BERT is compute-bound from batch 1: its sequences/s is flat over batch size. An axis
    auto-ranged to the curve showed six ticks that all read "1.1k"; from zero it is a line."""
    tab.show()
    qtbot.waitUntil(tab.plots_drawn, timeout=10_000)
    plot = tab.inference_panel.plot
    _xs, ys = tab.inference_panel.curve.getData()
    low, high = plot.getPlotItem().viewRange()[1]
    assert low == 0.0 and max(ys) < high <= 1.2 * max(ys)
    axis = plot.getAxis("left")
    spacing, major = axis.tickValues(low, high, plot.height())[0]
    labels = axis.tickStrings(major, 1.0, spacing)
    assert len(labels) == len(set(labels)), labels  # no two ticks read alike


@pytest.mark.parametrize("preset", [p.id for p in load_presets() if p.has_training_estimate])
def test_the_headline_is_one_sentence_in_the_tab_and_the_cli(
    tab: EstimateTab, preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """One answer (issue 21): `estimate train --preset P` prints the Workload tab's hero
    sentence for the same preset, word for word (text and --json)."""
    import json

    from desktopapp.cli import run_command

    tab.apply_preset(preset)
    hero = tab.training_results.hero.text()
    capsys.readouterr()
    assert run_command(["estimate", "train", "--preset", preset, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["headline"] == hero
    assert run_command(["estimate", "train", "--preset", preset]) == 0
    assert hero in capsys.readouterr().out.replace("\n", " ")


def test_an_input_beyond_any_real_system_is_warned_as_the_cli_warns(
    qtbot: QtBot, tab: EstimateTab, capsys: pytest.CaptureFixture[str]
) -> None:
    """1e17 training tokens: the figures follow, under the same warning sentence that
    `desktopapp estimate train` writes on stderr (it once passed without a word)."""
    from desktopapp.cli import run_command

    tab.apply_preset("llm-7b")
    line = tab.training_results.warning_line
    assert not line.isVisibleTo(tab)
    type_into(qtbot, tab.inputs.tokens, "1e17")
    settle(qtbot, tab)
    assert line.isVisibleTo(tab)
    capsys.readouterr()
    argv = ["estimate", "train", "--preset", "llm-7b", "--tokens", "1e17"]
    assert run_command(argv) == 0
    cli = [
        text.removeprefix("warning: ")
        for text in capsys.readouterr().err.replace("\n  ", " ").splitlines()
        if text.startswith("warning: ")
    ]
    assert cli and line.text() == "\n".join(f"⚠ {w}" for w in cli)
    assert "years" in tab.training_results.hero.text()  # not a 20-digit count of days
    type_into(qtbot, tab.inputs.tokens, "2T")
    settle(qtbot, tab)
    assert not line.isVisibleTo(tab)


@pytest.mark.parametrize("preset", [p.id for p in load_presets()])
def test_the_serving_line_is_one_sentence_in_the_tab_and_the_cli(
    tab: EstimateTab, preset: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`estimate inference --preset P` prints the Workload tab's serving line word for word
    (text and --json); a preset the tab shows no serving line for gets none."""
    import json

    from desktopapp.cli import run_command

    tab.apply_preset(preset)
    line = tab.training_results.serving_line
    shown = line.text() if line.isVisibleTo(tab) else ""
    capsys.readouterr()
    status = run_command(["estimate", "inference", "--preset", preset, "--json"])
    out = capsys.readouterr()
    if status != 0:  # a preset without an inference estimate: the tab has no line either
        assert shown == "", out.err
        return
    assert json.loads(out.out)["headline"] == shown
    if shown:
        assert run_command(["estimate", "inference", "--preset", preset]) == 0
        assert shown in capsys.readouterr().out.replace("\n", " ")


def test_a_factor_the_slider_sets_aside_is_said_in_the_modelled_panel(
    qtbot: QtBot, tab: EstimateTab
) -> None:
    """Moving the utilization slider makes the flat rule stand (factor 1); a production factor
    in its field is then not applied, and the Modelled run panel says so."""
    tab.apply_preset("llm-7b")
    tab.inputs.production_factor.set_value(2.0)
    tab.inputs.edited.emit()
    settle(qtbot, tab)
    message = tab.modelled.message
    assert "not applied" not in message.text()
    tab.inputs.utilization.slider.setValue(30)
    settle(qtbot, tab)
    assert not message.isHidden()
    assert "production factor ×2 not applied" in message.text()


def test_the_software_stack_is_chosen_in_the_tab_and_kept(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Parallel plan section's Software stack sets the modelled run's stack (the CLI's
    --software-stack), is kept with the workload (a saved scenario), comes back when one is
    opened, and the past-runs fit uses it for rows that name none."""
    from desktopapp.ui.estimate import own_runs_dialog

    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    combo = tab.inputs.software_stack
    assert combo.currentData() == "typical"
    training = app_state.training
    assert training is not None and training.software_stack is None  # the default, not saved
    typical_hours = tab.outcome.training.gpu_hours
    index = combo.findData("megatron")
    combo.setCurrentIndex(index)
    combo.activated.emit(index)
    settle(qtbot, tab)
    training = app_state.training
    assert training is not None and training.software_stack == "megatron"
    assert tab.outcome.training.gpu_hours != pytest.approx(typical_hours)
    # the past-runs fit is asked on the tab's stack
    asked: list[object] = []
    monkeypatch.setattr(
        own_runs_dialog,
        "ask_production_factor",
        lambda parent=None, software_stack=None: asked.append(software_stack),
    )
    tab.inputs.past_runs_button.click()
    assert asked == ["megatron"]
    # another workload opened (a scenario) brings its own stack back
    app_state.set_workload(training=dataclasses.replace(training, software_stack="fsdp"))
    settle(qtbot, tab)
    assert combo.currentData() == "fsdp"
    assert app_state.training is not None and app_state.training.software_stack == "fsdp"
    app_state.set_workload(training=dataclasses.replace(training, software_stack=None))
    settle(qtbot, tab)
    assert combo.currentData() == "typical"


def test_mlp_width_and_vocabulary_are_fields_that_set_the_memory(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    """The MLP kind, its width and the vocabulary (issue 22's memory terms) were taken only
    from a preset or a file: a custom model could not say it has a 128k vocabulary, whose
    logits and fp32 loss are gigabytes, and the fit verdict missed them."""
    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    inp = tab.inputs
    assert (inp.mlp.currentData(), inp.ffn_hidden.value(), inp.vocab.value()) == (
        "swiglu",
        11008,
        32000,
    )  # the preset's, shown
    memory = app_state.memory
    assert memory is not None and (memory.ffn_hidden, memory.vocab) == (11008, 32000)
    before = tab.outcome.memory.per_device_bytes
    logits_before = tab.outcome.memory.logits_bytes
    inp.vocab.setValue(128_256)
    settle(qtbot, tab)
    memory = app_state.memory
    assert memory is not None and memory.vocab == 128_256
    assert tab.outcome.memory.per_device_bytes > before
    # the memory the plan was chosen by holds the vocabulary's logits and fp32 loss
    assert tab.outcome.memory.logits_bytes > logits_before
    # the preset's FFN width belongs to its shape: another hidden size goes back to the rule
    inp.hidden.setValue(5120)
    settle(qtbot, tab)
    assert inp.ffn_hidden.value() == 0 and app_state.memory.ffn_hidden is None
    assert app_state.memory.vocab == 128_256  # the vocabulary is not the shape's
    # a width typed for the new shape stays when the shape is edited again
    inp.ffn_hidden.setValue(13_824)
    inp.layers.setValue(40)
    settle(qtbot, tab)
    assert app_state.memory.ffn_hidden == 13_824
    # a scenario's terms come back with it (GELU, its width and vocabulary)
    gelu = dataclasses.replace(app_state.memory, mlp="gelu", ffn_hidden=20_480, vocab=50_257)
    app_state.set_workload(memory=gelu)
    settle(qtbot, tab)
    assert (inp.mlp.currentData(), inp.ffn_hidden.value(), inp.vocab.value()) == (
        "gelu",
        20_480,
        50_257,
    )


def test_the_hidden_shape_note_leaves_no_blank_line_in_the_memory_section(
    qtbot: QtBot, tab: EstimateTab
) -> None:
    """The shape's note had a grid row of its own; hidden, its empty caption still left a
    blank line above the checkboxes. Rows now follow each other evenly while it is hidden,
    and the note shows under the Shape fields when there is one."""
    tab.resize(1400, 2200)  # the whole inputs column in view
    tab.show()
    qtbot.waitExposed(tab)
    inp = tab.inputs

    def top(w: QWidget) -> int:
        return w.mapTo(inp.memory_section, w.rect().topLeft()).y()

    def bottom(w: QWidget) -> int:
        return top(w) + w.height()

    inp.show_shape_note("", False)  # a custom shape: no note
    qtbot.waitUntil(lambda: inp.shape_note.isHidden())
    inp.memory_section.layout().activate()  # lay the rows out now, not on a later event
    even = top(inp.zero_stage) - bottom(inp.optimizer)
    assert abs((top(inp.checkpointing) - bottom(inp.vocab)) - even) <= 4
    inp.show_shape_note("Shape from the preset", False)
    qtbot.waitUntil(lambda: inp.shape_note.isVisible())
    inp.memory_section.layout().activate()
    assert bottom(inp.heads) <= top(inp.shape_note) < top(inp.mlp)


def test_power_cap_and_top_k_are_fields_kept_with_the_workload(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    """The CLI's --power-cap-w and --moe-top-k as Workload-tab fields: each reaches the
    workload and the estimate, a bad value is refused at its field in the user's words, top-k
    is off for a dense model, and an opened workload brings both back."""
    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    inp = tab.inputs
    # an empty cap means the accelerator's TDP, and says so
    assert "400" in inp.power_cap.placeholderText()  # A100 SXM 80GB: 400 W
    assert not inp.moe_top_k.isEnabled()  # dense: nothing is routed
    plain_hours = tab.outcome.training.gpu_hours
    type_into(qtbot, inp.power_cap, "250")
    settle(qtbot, tab)
    training = app_state.training
    assert training is not None and training.power_cap_w == 250.0
    assert tab.outcome.training.gpu_hours > plain_hours * 1.05
    type_into(qtbot, inp.power_cap, "9000")
    settle(qtbot, tab)
    marked = tab.marked_fields()
    assert marked.get(inp.power_cap, "").startswith("Power cap (W):"), marked
    assert "5,000 W" in marked[inp.power_cap]
    type_into(qtbot, inp.power_cap, "10")  # below what the A100's drivers accept
    settle(qtbot, tab)
    assert "at least 100 W" in tab.marked_fields().get(inp.power_cap, ""), tab.marked_fields()
    type_into(qtbot, inp.power_cap, "")
    settle(qtbot, tab)
    assert tab.marked_fields() == {}
    assert app_state.training is not None and app_state.training.power_cap_w is None
    # a mixture of experts: top-k turns on and reaches the workload and the estimate
    type_into(qtbot, inp.active_params, "2B")
    settle(qtbot, tab)
    assert inp.moe_top_k.isEnabled()
    top2_hours = tab.outcome.training.gpu_hours
    inp.moe_top_k.setValue(8)
    settle(qtbot, tab)
    training = app_state.training
    assert training is not None and training.moe_top_k == 8
    assert tab.outcome.training.gpu_hours != pytest.approx(top2_hours)
    # dense again: the field goes off and top-k leaves the workload (it routes nothing)
    type_into(qtbot, inp.active_params, "")
    settle(qtbot, tab)
    assert not inp.moe_top_k.isEnabled()
    assert app_state.training is not None and app_state.training.moe_top_k is None
    # another workload opened (a scenario) brings both back, on another accelerator
    opened = dataclasses.replace(
        training, accelerator="h100-sxm", power_cap_w=500.0, active_params=3e9, moe_top_k=4
    )
    app_state.set_workload(training=opened)
    settle(qtbot, tab)
    assert inp.power_cap.value() == 500.0 and "700" in inp.power_cap.placeholderText()
    assert inp.moe_top_k.isEnabled() and inp.moe_top_k.value() == 4
    assert app_state.training is not None
    assert (app_state.training.power_cap_w, app_state.training.moe_top_k) == (500.0, 4)


def test_experts_and_kv_cache_reach_the_serving_of_the_same_model(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    """Experts per layer, top-k (one field for the model: training and serving) and the KV
    cache format (the CLI's --experts, --moe-top-k, --kv-precision) reach the served workload
    and its throughput, and an opened workload brings them back; an encoder has no KV cache."""
    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    inp = tab.inputs
    assert inp.kv_precision.isVisibleTo(tab) and inp.kv_precision.currentData() == ""
    assert not inp.experts.isEnabled()
    type_into(qtbot, inp.active_params, "2B")
    settle(qtbot, tab)
    assert inp.experts.isEnabled()
    inp.experts.setValue(16)
    inp.moe_top_k.setValue(4)
    settle(qtbot, tab)
    inference, training = app_state.inference, app_state.training
    assert inference is not None and training is not None
    assert (inference.experts, inference.moe_top_k, training.moe_top_k) == (16, 4, 4)
    # the engine serves the routing given (at this concurrency every expert is read either
    # way, so the rate itself may not move; the fp8 KV cache below moves it)
    assert tab.snapshot is not None and tab.snapshot.serving is not None
    engine = tab.snapshot.serving.inputs
    assert (engine.experts, engine.moe_top_k) == (16, 4)
    routed_rate = serving_rate(tab)
    index = inp.kv_precision.findData("fp8")
    inp.kv_precision.setCurrentIndex(index)
    inp.kv_precision.activated.emit(index)
    settle(qtbot, tab)
    assert app_state.inference is not None and app_state.inference.kv_precision == "fp8"
    assert serving_rate(tab) != pytest.approx(routed_rate, rel=0.01)
    # dense again: no routing in either workload
    type_into(qtbot, inp.active_params, "")
    settle(qtbot, tab)
    assert app_state.inference is not None and app_state.inference.experts is None
    assert app_state.inference.moe_top_k is None and app_state.inference.kv_precision == "fp8"
    # an opened workload (a scenario with only an inference section) brings them back
    opened = dataclasses.replace(
        inference, active_params=3e9, experts=32, moe_top_k=6, kv_precision=None
    )
    app_state.set_workload(training=training, inference=opened)
    settle(qtbot, tab)
    assert inp.experts.value() == 32 and inp.kv_precision.currentData() == ""
    assert inp.moe_top_k.value() == 4  # the training section's top-k is the model's
    # an encoder reads one sequence per request: no KV cache to choose
    tab.apply_preset("bert-base")
    settle(qtbot, tab)
    assert not inp.kv_precision.isVisibleTo(tab)


def serving_rate(tab: EstimateTab) -> float:
    """The served throughput the tab shows (the engine's operating point), tokens/s."""
    assert tab.snapshot is not None and tab.snapshot.serving is not None
    return float(tab.snapshot.serving.tokens_per_second)


def test_goodput_overhead_and_project_margin_are_fields_and_survive_an_opened_file(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    """A scenario's goodput overhead and project margin were dropped when the Workload tab
    recomputed it (no field held them): the GUI then planned with other figures than the
    CLI's for the same file, and saving lost them. They are fields now, in the user's units."""
    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    inp = tab.inputs
    training = app_state.training
    assert training is not None
    assert training.goodput_overhead is None and training.project_margin == 3.0
    default_hours = tab.outcome.training.gpu_hours
    opened = dataclasses.replace(training, goodput_overhead=0.25, project_margin=2.0)
    app_state.set_workload(training=opened)
    settle(qtbot, tab)
    assert inp.goodput_overhead.value() == pytest.approx(25.0)
    assert inp.project_margin.value() == 2.0
    kept = app_state.training
    assert kept is not None and kept.goodput_overhead == pytest.approx(0.25)
    assert kept.project_margin == 2.0
    # goodput 1/1.25 = 80% instead of the published 90%
    assert tab.outcome.training.gpu_hours == pytest.approx(default_hours * 0.9 / 0.8, rel=1e-6)
    assert tab.outcome.training.project_margin == 2.0
    # typed: 0 is no overhead at all (goodput 100%), empty is the published default
    type_into(qtbot, inp.goodput_overhead, "0")
    settle(qtbot, tab)
    assert app_state.training is not None and app_state.training.goodput_overhead == 0.0
    assert tab.outcome.training.gpu_hours == pytest.approx(default_hours * 0.9, rel=1e-6)
    type_into(qtbot, inp.goodput_overhead, "")
    type_into(qtbot, inp.project_margin, "")
    settle(qtbot, tab)
    assert app_state.training is not None and app_state.training.goodput_overhead is None
    assert app_state.training.project_margin == 3.0
    assert tab.outcome.training.gpu_hours == pytest.approx(default_hours, rel=1e-9)
    # refused in the user's words at the field
    type_into(qtbot, inp.project_margin, "0.5")
    settle(qtbot, tab)
    assert tab.marked_fields().get(inp.project_margin, "").startswith("Project margin")
    type_into(qtbot, inp.project_margin, "")
    type_into(qtbot, inp.goodput_overhead, "2000")
    settle(qtbot, tab)
    assert "1,000%" in tab.marked_fields().get(inp.goodput_overhead, "")


def test_a_preset_replaces_the_model_and_plan_but_keeps_the_teams_figures(
    qtbot: QtBot, tab: EstimateTab, app_state: AppState
) -> None:
    """Choosing a preset after typing active parameters and a plan computed the preset as a
    mixture of experts on the old plan (a '175B' run with 2B active parameters and TP 4)."""
    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    inp = tab.inputs
    type_into(qtbot, inp.active_params, "2B")
    settle(qtbot, tab)
    assert inp.preset_combo.currentData() != "llm-7b"  # the workload is no longer the class
    inp.moe_top_k.setValue(4)
    inp.tp.setValue(4)
    type_into(qtbot, inp.power_cap, "500")
    type_into(qtbot, inp.project_margin, "2")
    settle(qtbot, tab)
    tab.apply_preset("foundation-175b")
    settle(qtbot, tab)
    training = app_state.training
    assert training is not None and training.params == 175e9
    assert training.active_params is None and training.moe_top_k is None and training.tp is None
    assert not inp.moe_top_k.isEnabled()
    assert training.power_cap_w == 500.0 and training.project_margin == 2.0  # the team's


def test_an_opened_files_inputs_without_a_field_are_kept_used_and_said(
    qtbot: QtBot,
    tab: EstimateTab,
    app_state: AppState,
    tmp_path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file's device memory, runtime overhead, micro-batches, peak override and serving
    shares have no field in the tab: recomputing dropped them (other figures than the CLI's
    for the same file, and lost on save). They are kept, used as `report` uses them, said
    under the preset, and dropped by "Use defaults" or a preset."""
    import json

    from desktopapp.cli import run_command
    from desktopapp.model.scenario import Scenario

    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    training, memory, inference = app_state.training, app_state.memory, app_state.inference
    assert training is not None and memory is not None and inference is not None
    assert not tab.inputs.carried_note.isVisibleTo(tab)
    opened = {
        "training": dataclasses.replace(training, peak_tflops=250.0),
        "memory": dataclasses.replace(memory, memory_gb=40.0, overhead_gib=3.0, micro_batches=4),
        "inference": dataclasses.replace(inference, utilization=0.3, bandwidth_efficiency=0.6),
    }
    app_state.set_workload(**opened)
    settle(qtbot, tab)
    kept = app_state.training, app_state.memory, app_state.inference
    assert kept[0] is not None and kept[0].peak_tflops == 250.0
    assert kept[1] is not None
    assert (kept[1].memory_gb, kept[1].overhead_gib, kept[1].micro_batches) == (40.0, 3.0, 4)
    assert kept[2] is not None
    assert (kept[2].utilization, kept[2].bandwidth_efficiency) == (0.3, 0.6)
    note = tab.inputs.carried_note.text()
    assert tab.inputs.carried_note.isVisibleTo(tab)
    for words in ("device memory 40 GB", "runtime overhead 3 GiB", "250 TFLOP/s", "30%", "60%"):
        assert words in note, note
    # the same file on the command line gives the tab's figures
    path = tmp_path / "kept.json"
    path.write_text(Scenario(name="kept", **opened).to_json(), encoding="utf-8")
    capsys.readouterr()
    assert run_command(["report", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["training"]["gpu_hours"] == pytest.approx(tab.outcome.training.gpu_hours)
    assert tab.snapshot is not None and tab.snapshot.serving is not None
    assert report["serving"]["tokens_per_second"] == pytest.approx(
        tab.snapshot.serving.tokens_per_second
    )
    assert tab.snapshot.serving.inputs.compute_share == 0.3
    # "Use defaults" drops them
    tab.inputs.carried_reset.click()
    settle(qtbot, tab)
    assert not tab.inputs.carried_note.isVisibleTo(tab)
    assert app_state.memory is not None and app_state.memory.memory_gb is None
    assert app_state.training is not None and app_state.training.peak_tflops is None
    assert app_state.inference is not None and app_state.inference.utilization is None
    # and so does a preset
    app_state.set_workload(**opened)
    settle(qtbot, tab)
    assert tab.inputs.carried_note.isVisibleTo(tab)
    tab.apply_preset("llm-7b")
    settle(qtbot, tab)
    assert not tab.inputs.carried_note.isVisibleTo(tab)
    assert app_state.memory is not None and app_state.memory.overhead_gib == 1.0
