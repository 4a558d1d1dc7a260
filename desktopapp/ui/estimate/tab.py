"""Workload estimation tab: inputs on the left, results and plots on the right.

The tab reads its widgets, builds the model's input dataclasses, calls the model
(``estimate_training``, ``estimate_memory``, ``estimate_inference`` and the sweeps) and shows
the results. Edits are coalesced by a short single-shot timer. A ``ValueError`` from the model
names a field; the tab maps it to the widget, marks it and shows "—" for what cannot be
computed. The estimates take milliseconds, so they run on the GUI thread.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from desktopapp.model import units
from desktopapp.model.catalog import (
    Accelerator,
    CloudOffer,
    accelerator_catalog,
    cheapest_offer,
    offer_named_in,
)
from desktopapp.model.inference import (
    INFERENCE_PRECISIONS,
    InferenceEstimate,
    InferenceInputs,
    estimate_inference,
    inference_sweep_batch,
)
from desktopapp.model.memory import MemoryEstimate, MemoryInputs, estimate_memory
from desktopapp.model.presets import Preset, get_preset, load_presets
from desktopapp.model.training import (
    DEFAULT_UTILIZATION,
    TRAINING_PRECISIONS,
    UTILIZATION_BAND,
    TrainingEstimate,
    TrainingInputs,
    catalog_price,
    estimate_training,
    training_sweep_devices,
    training_sweep_utilization,
)
from desktopapp.ui.common.layouts import scrolling_column, two_panes
from desktopapp.ui.common.marking import (
    FieldMarks,
    blocked,
    field_of,
    read_quantity,
    select_data,
)
from desktopapp.ui.common.recompute import RecomputingTab
from desktopapp.ui.common.result_card import formula_tooltip
from desktopapp.ui.common.theme import COLORS
from desktopapp.ui.estimate.inputs import METHOD_6ND, METHOD_FORWARD, InputsPanel
from desktopapp.ui.estimate.results import (
    AssumptionsPanel,
    InferencePanel,
    MemoryPanel,
    PlotsPanel,
    TrainingResults,
)
from desktopapp.ui.state import KEEP, AppState, CustomAccelerator, Keep, PriceChoice

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_PRESET = "bert-base"
CUSTOM_ID = "custom:measured"
CUSTOM_PRESET = ""  # data of the preset picker's "Custom" entry
CUSTOM_FROM_SCENARIO = "Custom (from scenario)"
CUSTOM_EDITED = "Custom"
TYPED_PRICE_SOURCES = frozenset({"", "typed in", "given"})
DEVICE_SWEEP = np.unique(np.round(np.logspace(0.0, math.log10(4096.0), 160)))
UTILIZATION_SWEEP = np.linspace(0.05, 0.80, 76)
BATCH_SWEEP = np.unique(np.round(np.logspace(0.0, 10.0, 41, base=2.0)))
PLANNING_NOTE = (
    "Low end: this estimate, compute only. High end: ×{margin:g} for the whole project "
    "(experiments, tuning, failed and repeated runs, evaluation)."
)


@dataclass
class _Outcome:
    """What one recompute produced (kept for tests and the state)."""

    training: TrainingEstimate | None = None
    memory: MemoryEstimate | None = None
    inference: InferenceEstimate | None = None
    errors: dict[str, str] | None = None


class EstimateTab(RecomputingTab):
    """The Workload estimation tab (see the module docstring)."""

    def __init__(self, state: AppState, parent: QWidget | None = None) -> None:
        super().__init__(parent, timer_name="estimate-recompute")
        self.state = state
        self._catalog = accelerator_catalog()
        self._presets: tuple[Preset, ...] = load_presets()
        self._preset_id: str | None = None
        # The inputs a preset set, as shown; an edit that changes them makes the workload custom.
        self._preset_snapshot: tuple[object, ...] | None = None
        self._custom_label = CUSTOM_FROM_SCENARIO
        self._custom_note = ""
        self._price_from_catalog = True
        # (price, source) of a price opened with a scenario that names where it came from (a
        # catalog offer, an owned fleet): kept, source and all, until the price is typed over.
        self._kept_price: tuple[float, str] | None = None
        self._utilization_user_set = False
        self._writing_state = False
        self._marks = FieldMarks(state, "Cannot compute: ")
        self.outcome = _Outcome()

        self.inputs = InputsPanel()
        self.training_results = TrainingResults()
        self.plots = PlotsPanel()
        self.memory_panel = MemoryPanel()
        self.inference_panel = InferencePanel()
        self.assumptions = AssumptionsPanel()
        self._build_layout()

        self.inputs.accelerator.set_accelerators(self._catalog.accelerators)
        combo = self.inputs.preset_combo
        with blocked(combo):
            for preset in self._presets:
                combo.addItem(preset.name, preset.id)
            combo.insertSeparator(combo.count())
            combo.addItem(CUSTOM_EDITED, CUSTOM_PRESET)
            combo.setItemData(
                combo.count() - 1,
                "Inputs that are not one of the presets: choosing a preset replaces them",
                Qt.ItemDataRole.ToolTipRole,
            )

        self._connect()
        start = DEFAULT_PRESET if any(p.id == DEFAULT_PRESET for p in self._presets) else None
        if start is None and self._presets:
            start = self._presets[0].id
        if self.state.training is not None:
            self._apply_state_workload()
        elif start is not None:
            self.apply_preset(start)
        else:
            self.recompute()
        if self.state.custom_accelerator is not None:
            self._on_custom_accelerator(self.state.custom_accelerator)

    # --- layout ------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.results_scroll = scrolling_column(
            (
                self.training_results,
                (self.plots, 1),
                self.memory_panel,
                self.inference_panel,
                self.assumptions,
            ),
            end_stretch=0,
        )
        self.splitter = two_panes(self, self.inputs, self.results_scroll, (470, 930))

    def _connect(self) -> None:
        inp = self.inputs
        inp.edited.connect(self.schedule)
        inp.method_changed.connect(self._on_method_changed)
        inp.preset_chosen.connect(self.apply_preset)
        inp.accelerator_chosen.connect(self._on_accelerator_chosen)
        inp.precision_chosen.connect(self._on_precision_chosen)
        inp.utilization_moved.connect(self._on_utilization_moved)
        inp.price_typed.connect(self._on_price_typed)
        inp.price_reset.connect(self._on_price_reset)
        self.state.workload_changed.connect(self._on_state_workload_changed)
        self.state.custom_accelerator_changed.connect(self._on_custom_accelerator)

    # --- accelerator, precision, utilization, price --------------------------------------------
    def _current_accelerator(self) -> Accelerator | None:
        acc_id = self.inputs.accelerator.accelerator_id()
        if acc_id == CUSTOM_ID:
            custom = self.state.custom_accelerator
            based_on = None if custom is None else custom.based_on
            return None if based_on is None else self._catalog.find(based_on)
        return self._catalog.find(acc_id) if acc_id else None

    def _custom_selected(self) -> CustomAccelerator | None:
        if self.inputs.accelerator.accelerator_id() != CUSTOM_ID:
            return None
        return self.state.custom_accelerator

    def _supported_precisions(self) -> tuple[str, ...]:
        custom = self._custom_selected()
        if custom is not None:
            available: tuple[str, ...] = custom.precisions
        else:
            acc = self._current_accelerator()
            available = () if acc is None else acc.precisions
        return tuple(p for p in TRAINING_PRECISIONS if p in available)

    def _refresh_precisions(self, wanted: str | None = None) -> None:
        inp = self.inputs
        current = wanted or str(inp.precision.currentData() or "bf16")
        supported = self._supported_precisions()
        items = [(p, p) for p in supported] or [(current, f"{current} (no published peak)")]
        preferred = current if current in supported else _preferred(supported, current)
        inp.set_combo_items(inp.precision, items, preferred)

        acc = self._current_accelerator()
        inference_current = str(inp.inference_precision.currentData() or "bf16")
        inference_items = [
            (p, p if acc is None or p in acc.peak_tflops else f"{p} (weights only)")
            for p in INFERENCE_PRECISIONS
        ]
        inp.set_combo_items(inp.inference_precision, inference_items, inference_current)

    def _default_utilization(self) -> tuple[float, str, str]:
        """(value, short origin, full source) of the utilization the model would assume."""
        custom = self._custom_selected()
        if custom is not None and custom.utilization is not None:
            return custom.utilization, "measured on this machine", custom.source
        acc = self._current_accelerator()
        if acc is not None and acc.typical_utilization is not None:
            source = acc.typical_utilization_source or "catalog"
            return acc.typical_utilization, f"typical for {acc.name}", source
        low, high = UTILIZATION_BAND
        return (
            DEFAULT_UTILIZATION,
            "planning default",
            f"large training runs typically reach {low:.0%}-{high:.0%}",
        )

    def _refresh_utilization(self) -> None:
        value, origin, source = self._default_utilization()
        note = self.inputs.utilization_note
        if not self._utilization_user_set:
            self.inputs.utilization.set_fraction(value)
            note.setText(f"Default {value:.0%}, {origin}.")
        else:
            note.setText(f"Set by you; default {value:.0%}, {origin}.")
        note.setToolTip(f"Source: {source}")

    def _refresh_price(self) -> None:
        """Catalog price for the accelerator unless the user typed one (or a scenario gave one
        with its source)."""
        inp = self.inputs
        acc = self._current_accelerator()
        if not self._price_from_catalog:
            inp.price_reset_button.setEnabled(acc is not None)
            if self._kept_price is None:
                inp.price_source.setText("Typed in by you (overrides the catalog).")
                inp.price_source.setToolTip("")
                return
            source = self._kept_price[1]
            offer = offer_named_in(source)
            if offer is not None:
                text = (
                    f"From the scenario: catalog offer <b>{html.escape(offer.name)}</b> "
                    f"({html.escape(offer.region)}), price as of {html.escape(offer.price_date)}."
                )
            else:
                shown = source if len(source) <= 140 else source[:139] + "…"
                text = f"From the scenario: {html.escape(shown)}"
            inp.price_source.setText(text)
            inp.price_source.setToolTip(source)
            return
        offer = None if acc is None else cheapest_offer(acc.id, "on_demand")
        found = None if acc is None else catalog_price(acc.id, "on_demand")
        inp.price_reset_button.setEnabled(False)
        if offer is None or found is None:
            inp.price.set_value(None)
            name = "this accelerator" if acc is None else acc.name
            inp.price_source.setText(
                f"No cloud offer for {html.escape(name)} in the catalog: type a price to see costs."
            )
            return
        inp.price.set_value(found[0])
        inp.price_source.setText(
            f"Cheapest on-demand offer: <b>{html.escape(offer.name)}</b> "
            f"({html.escape(offer.region)}), price as of {html.escape(offer.price_date)}."
        )
        inp.price_source.setToolTip(found[1])

    def _on_accelerator_chosen(self, _acc_id: str) -> None:
        offer = None if self._kept_price is None else offer_named_in(self._kept_price[1])
        acc = self._current_accelerator()
        if offer is not None and (acc is None or offer.accelerator_id != acc.id):
            # The scenario's offer is for another accelerator: its price no longer applies.
            self._kept_price = None
            self._price_from_catalog = True
        self._refresh_precisions()
        self._refresh_utilization()
        self._refresh_price()
        self.schedule()

    def _on_precision_chosen(self, precision: str) -> None:
        # Storage follows the compute precision between fp32 and mixed; the user can change it.
        storage = str(self.inputs.storage.currentData())
        if precision in ("fp32", "tf32") and storage != "fp32":
            select_data(self.inputs.storage, "fp32")
        elif precision not in ("fp32", "tf32") and storage == "fp32":
            select_data(self.inputs.storage, "mixed")
        self.schedule()

    def _on_utilization_moved(self, _value: float) -> None:
        self._utilization_user_set = True
        self._refresh_utilization()
        self.schedule()

    def _on_price_typed(self) -> None:
        self._price_from_catalog = False
        self._kept_price = None
        self._refresh_price()
        self.schedule()

    def _on_price_reset(self) -> None:
        self._price_from_catalog = True
        self._kept_price = None
        self._refresh_price()
        self.schedule()

    def _on_method_changed(self, _method: str) -> None:
        self._refresh_inference_fields()
        self.schedule()

    def _refresh_inference_fields(self) -> None:
        language = self.inputs.method() == METHOD_6ND
        inp = self.inputs
        for widget in (inp.prompt_tokens, inp.output_tokens, inp.prompt_label):
            widget.setEnabled(language)
        inp.inference_section.set_note(
            "Serving the same model, token by token."
            if language
            else "Serving the same model: one forward pass per prediction."
        )

    # --- presets and state → widgets --------------------------------------------------------
    def apply_preset(self, preset_id: str) -> None:
        """Fill every input from a workload class and recompute at once (choosing the
        "Custom" entry changes nothing)."""
        if not preset_id:
            self._show_preset_choice()
            return
        preset = get_preset(preset_id)
        inp = self.inputs
        self._preset_id = preset.id
        self._show_preset_choice()
        with blocked(inp.devices, inp.micro_batch, inp.seq_len, inp.layers, inp.hidden, inp.heads):
            inp.set_method(METHOD_FORWARD if preset.method == "forward" else METHOD_6ND)
            inp.params.set_value(preset.params)
            inp.tokens.set_value(preset.tokens)
            inp.forward_flops.set_value(preset.forward_flops)
            inp.samples.set_value(preset.samples)
            inp.epochs.set_value(preset.epochs)
            if preset.accelerator and self._catalog.find(preset.accelerator) is not None:
                inp.accelerator.set_accelerator_id(self._catalog.get(preset.accelerator).id)
            inp.devices.setValue(preset.devices)
            select_data(inp.storage, preset.memory_precision)
            select_data(inp.optimizer, preset.optimizer)
            select_data(inp.zero_stage, preset.zero_stage)
            inp.micro_batch.setValue(preset.batch_size)
            inp.seq_len.setValue(preset.seq_len or 0)
            inp.layers.setValue(preset.layers or 0)
            inp.hidden.setValue(preset.hidden or 0)
            inp.heads.setValue(preset.heads or 0)
            inp.kv_heads.setValue(0)
        with blocked(inp.checkpointing, inp.flash_attention):
            inp.checkpointing.setChecked(preset.checkpointing)
            inp.flash_attention.setChecked(preset.flash_attention)
        self._refresh_precisions(preset.precision)
        self._refresh_utilization()
        self._refresh_price()
        self._refresh_inference_fields()
        self._preset_snapshot = self._preset_fields()
        self.recompute()

    def _preset_fields(self) -> tuple[object, ...]:
        """What a preset sets, as the widgets show it now."""
        inp = self.inputs
        quantities = (inp.params, inp.tokens, inp.forward_flops, inp.samples, inp.epochs)
        spins = (inp.devices, inp.micro_batch, inp.seq_len, inp.layers, inp.hidden, inp.heads)
        combos = (inp.precision, inp.storage, inp.optimizer, inp.zero_stage)
        return (
            inp.method(),
            inp.accelerator.accelerator_id(),
            *(edit.value() for edit in quantities),
            *(spin.value() for spin in (*spins, inp.kv_heads)),
            *(combo.currentData() for combo in combos),
            inp.checkpointing.isChecked(),
            inp.flash_attention.isChecked(),
        )

    def _note_preset_edits(self) -> None:
        """An input a preset set was changed: the workload is no longer that preset."""
        if self._preset_id is None or self._preset_snapshot is None:
            return
        if self._preset_fields() == self._preset_snapshot:
            return
        name = get_preset(self._preset_id).name
        self._preset_id = None
        self._preset_snapshot = None
        self._custom_label = CUSTOM_EDITED
        self._custom_note = f"Edited from {name}; choose a preset to start again from its figures."
        self._show_preset_choice()

    def _show_preset_choice(self) -> None:
        """The preset picker and its notes: the current preset, or the "Custom" entry."""
        inp = self.inputs
        combo = inp.preset_combo
        if self._preset_id is not None:
            select_data(combo, self._preset_id)
            self._show_preset_notes(get_preset(self._preset_id))
            return
        index = combo.findData(CUSTOM_PRESET)
        combo.setItemText(index, self._custom_label)
        select_data(combo, CUSTOM_PRESET)
        self._show_preset_notes(None)
        inp.preset_description.setText(self._custom_note)
        inp.preset_description.setToolTip("")

    @property
    def preset_id(self) -> str | None:
        """The preset the inputs are (None: custom)."""
        return self._preset_id

    def _show_preset_notes(self, preset: Preset | None) -> None:
        """A preset's description, hardware and memory advice (hidden for custom inputs)."""
        inp = self.inputs
        for label in (inp.preset_hardware, inp.preset_memory):
            label.setVisible(preset is not None)
        if preset is None:
            for label in (inp.preset_description, inp.preset_hardware, inp.preset_memory):
                label.setText("")
            return
        inp.preset_description.setText(preset.description)
        inp.preset_description.setToolTip(f"Source: {preset.source}")
        inp.preset_hardware.setText(
            f"<span style='color:{COLORS['accent_dark']}; font-weight:600'>Hardware</span>"
            f"<br>{html.escape(preset.hardware)}"
        )
        inp.preset_memory.setText(
            f"<span style='color:{COLORS['accent_dark']}; font-weight:600'>Memory</span>"
            f"<br>{html.escape(preset.memory_range)}"
        )

    def _on_state_workload_changed(self) -> None:
        if not self._writing_state:
            self._apply_state_workload()

    def _apply_state_workload(self) -> None:
        """Show a workload set from outside (a scenario file) and recompute."""
        inp = self.inputs
        training = self.state.training
        memory = self.state.memory
        inference = self.state.inference
        preset_id = self.state.preset_id
        preset = None
        if preset_id:
            try:
                preset = get_preset(preset_id)
            except ValueError:
                preset = None
        self._preset_id = None if preset is None else preset.id
        self._preset_snapshot = None
        if preset is None:
            self._custom_label = CUSTOM_FROM_SCENARIO
            self._custom_note = "Inputs from the scenario, not one of the presets."
        self._show_preset_choice()
        widgets = (inp.devices, inp.micro_batch, inp.seq_len, inp.layers, inp.hidden, inp.heads)
        with blocked(*widgets, inp.kv_heads, inp.inference_batch, inp.prompt_tokens):
            if training is not None:
                method = training.resolved_method
                inp.set_method(method)
                inp.params.set_value(training.params if training.params else _params_of(memory))
                inp.tokens.set_value(training.tokens)
                inp.forward_flops.set_value(training.forward_flops)
                inp.samples.set_value(training.samples)
                inp.epochs.set_value(training.epochs)
                if training.accelerator and self._catalog.find(training.accelerator):
                    inp.accelerator.set_accelerator_id(self._catalog.get(training.accelerator).id)
                inp.devices.setValue(training.gpus)
            if memory is not None:
                if training is None or training.params is None:
                    inp.params.set_value(memory.params)
                select_data(inp.storage, memory.precision)
                select_data(inp.optimizer, memory.optimizer)
                select_data(inp.zero_stage, memory.zero_stage)
                inp.micro_batch.setValue(memory.batch_size)
                inp.seq_len.setValue(memory.seq_len or 0)
                inp.layers.setValue(memory.layers or 0)
                inp.hidden.setValue(memory.hidden or 0)
                inp.heads.setValue(memory.heads or 0)
                inp.kv_heads.setValue(memory.kv_heads or 0)
            if inference is not None:
                inp.inference_batch.setValue(inference.batch_size)
                inp.prompt_tokens.setValue(inference.prompt_tokens)
                inp.output_tokens.setValue(inference.output_tokens)
                inp.inference_devices.setValue(inference.gpus)
        if memory is not None:
            with blocked(inp.checkpointing, inp.flash_attention):
                inp.checkpointing.setChecked(memory.checkpointing)
                inp.flash_attention.setChecked(memory.flash_attention)
        self._refresh_precisions(None if training is None else training.precision)
        if inference is not None:
            select_data(inp.inference_precision, inference.precision)
        if training is not None:
            # A scenario without a utilization plans with the default, not the last file's.
            self._utilization_user_set = training.utilization is not None
            if training.utilization is not None:
                inp.utilization.set_fraction(training.utilization)
        self._refresh_utilization()
        if training is not None and training.price is not None:
            source = training.price_source
            self._price_from_catalog = source.startswith("cheapest")
            kept = not self._price_from_catalog and source not in TYPED_PRICE_SOURCES
            self._kept_price = (training.price, source) if kept else None
            inp.price.set_value(training.price)
        self._refresh_price()
        self._refresh_inference_fields()
        if preset is not None:
            self._preset_snapshot = self._preset_fields()
        self.recompute()

    # --- measured accelerator from the Hardware tab -------------------------------------------
    def _on_custom_accelerator(self, custom: object) -> None:
        combo = self.inputs.accelerator
        index = combo.findData(CUSTOM_ID)
        if not isinstance(custom, CustomAccelerator):
            if index < 0:
                return
            was_selected = combo.accelerator_id() == CUSTOM_ID
            with blocked(combo):
                combo.removeItem(index)
                if combo.count() and combo.itemData(index) is None:
                    combo.removeItem(index)  # the separator under it
            if was_selected:
                fallback = self.state.accelerator_id or (combo.accelerator_ids() or [""])[0]
                if fallback and combo.set_accelerator_id(fallback):
                    self._on_accelerator_chosen(fallback)
            return
        label = f"★ {custom.name} (measured)"
        with blocked(combo):
            if index < 0:
                combo.insertItem(0, label, CUSTOM_ID)
                combo.insertSeparator(1)
                index = 0
            else:
                combo.setItemText(index, label)
            combo.setItemData(index, custom.source, Qt.ItemDataRole.ToolTipRole)
        # "Use in estimates" on the Hardware tab: plan with the measured device from now on.
        combo.set_accelerator_id(CUSTOM_ID)
        self._on_accelerator_chosen(CUSTOM_ID)

    def use_custom_accelerator(self) -> bool:
        """Select the measured accelerator, if the Hardware tab provided one."""
        if self.inputs.accelerator.findData(CUSTOM_ID) < 0:
            return False
        self.inputs.accelerator.set_accelerator_id(CUSTOM_ID)
        self._on_accelerator_chosen(CUSTOM_ID)
        return True

    # --- widgets → model ------------------------------------------------------------------------
    def _training_widgets(self) -> Mapping[str, QWidget]:
        inp = self.inputs
        return {
            "params": inp.params,
            "tokens": inp.tokens,
            "forward_flops": inp.forward_flops,
            "samples": inp.samples,
            "epochs": inp.epochs,
            "gpus": inp.devices,
            "precision": inp.precision,
            "accelerator": inp.accelerator,
            "peak_tflops": inp.accelerator,
            "utilization": inp.utilization,
            "price": inp.price,
            "method": inp.method_6nd,
        }

    def _memory_widgets(self) -> Mapping[str, QWidget]:
        inp = self.inputs
        return {
            "params": inp.params,
            "precision": inp.storage,
            "optimizer": inp.optimizer,
            "layers": inp.layers,
            "hidden": inp.hidden,
            "heads": inp.heads,
            "kv_heads": inp.kv_heads,
            "seq_len": inp.seq_len,
            "batch_size": inp.micro_batch,
            "zero_stage": inp.zero_stage,
            "gpus": inp.devices,
            "accelerator": inp.accelerator,
            "memory_gb": inp.accelerator,
        }

    def _inference_widgets(self) -> Mapping[str, QWidget]:
        inp = self.inputs
        return {
            "params": inp.params,
            "forward_flops": inp.forward_flops,
            "precision": inp.inference_precision,
            "batch_size": inp.inference_batch,
            "prompt_tokens": inp.prompt_tokens,
            "output_tokens": inp.output_tokens,
            "layers": inp.layers,
            "hidden": inp.hidden,
            "heads": inp.heads,
            "kv_heads": inp.kv_heads,
            "gpus": inp.inference_devices,
            "accelerator": inp.accelerator,
            "peak_tflops": inp.accelerator,
            "bandwidth_gbs": inp.accelerator,
            "price": inp.price,
        }

    def _shape(self) -> dict[str, int | None]:
        inp = self.inputs

        def opt(spin_value: int) -> int | None:
            return spin_value if spin_value > 0 else None

        return {
            "layers": opt(inp.layers.value()),
            "hidden": opt(inp.hidden.value()),
            "heads": opt(inp.heads.value()),
            "kv_heads": opt(inp.kv_heads.value()),
        }

    def _build_training(self, errors: dict[QWidget, str]) -> TrainingInputs | None:
        inp = self.inputs
        method = inp.method()
        params = read_quantity(inp.params, errors)
        epochs = read_quantity(inp.epochs, errors)
        fields: dict[str, object] = {"method": method}
        if method == METHOD_6ND:
            tokens = read_quantity(inp.tokens, errors)
            if params is None or tokens is None or epochs is None:
                return None
            fields.update(params=params, tokens=tokens)
        else:
            forward = read_quantity(inp.forward_flops, errors)
            samples = read_quantity(inp.samples, errors)
            if forward is None or samples is None or epochs is None:
                return None
            fields.update(forward_flops=forward, samples=samples)
        price = read_quantity(inp.price, errors)
        if inp.price.error() is not None and not inp.price.is_empty():
            return None
        custom = self._custom_selected()
        acc = self._current_accelerator()
        precision = str(inp.precision.currentData() or "bf16")
        if custom is not None:
            fields["accelerator"] = custom.based_on
            if precision in custom.peak_tflops:
                fields["peak_tflops"] = custom.peak_tflops[precision]
        else:
            fields["accelerator"] = None if acc is None else acc.id
        price_source = ""
        if price is not None:
            found = None if acc is None else catalog_price(acc.id, "on_demand")
            kept = self._kept_price
            if self._price_from_catalog and found is not None:
                price_source = found[1]
            elif kept is not None and price == kept[0]:
                price_source = kept[1]  # as the scenario gave it (an offer, an owned fleet)
            else:
                price_source = "typed in"
        fields.update(
            epochs=epochs,
            precision=precision,
            gpus=inp.devices.value(),
            utilization=inp.utilization.fraction(),
            price=price,
            price_source=price_source,
        )
        return self._construct(TrainingInputs, fields, self._training_widgets(), errors)

    def _build_memory(self, errors: dict[QWidget, str]) -> MemoryInputs | None:
        inp = self.inputs
        params = inp.params.value()
        if params is None:
            return None
        custom = self._custom_selected()
        acc = self._current_accelerator()
        seq = inp.seq_len.value()
        fields: dict[str, object] = {
            "params": params,
            "mode": "train",
            "precision": str(inp.storage.currentData()),
            "optimizer": str(inp.optimizer.currentData()),
            "seq_len": seq if seq > 0 else None,
            "batch_size": inp.micro_batch.value(),
            "checkpointing": inp.checkpointing.isChecked(),
            "flash_attention": inp.flash_attention.isChecked(),
            "zero_stage": int(inp.zero_stage.currentData()),
            "gpus": inp.devices.value(),
            "accelerator": None if acc is None else acc.id,
        }
        fields.update(self._shape())
        if custom is not None and custom.memory_bytes:
            fields["memory_gb"] = custom.memory_bytes / units.GIB
        return self._construct(MemoryInputs, fields, self._memory_widgets(), errors)

    def _build_inference(
        self, training: TrainingInputs | None, errors: dict[QWidget, str]
    ) -> InferenceInputs | None:
        inp = self.inputs
        params = inp.params.value()
        if params is None:
            return None
        acc = self._current_accelerator()
        custom = self._custom_selected()
        if custom is not None and acc is None:
            # A measured device with no catalog match has no memory bandwidth to plan with.
            return None
        precision = str(inp.inference_precision.currentData() or "bf16")
        shape = self._shape()
        has_shape = all(shape[k] is not None for k in ("layers", "hidden", "heads"))
        fields: dict[str, object] = {
            "params": params,
            "accelerator": None if acc is None else acc.id,
            "precision": precision,
            "batch_size": inp.inference_batch.value(),
            "prompt_tokens": inp.prompt_tokens.value(),
            "output_tokens": inp.output_tokens.value(),
            "gpus": inp.inference_devices.value(),
            "price": None if training is None else training.price,
            "price_source": "" if training is None else training.price_source,
        }
        if inp.method() == METHOD_FORWARD:
            forward = inp.forward_flops.value()
            if forward is None:
                return None
            fields["forward_flops"] = forward
        if has_shape:
            fields.update(shape)
        if custom is not None and precision in custom.peak_tflops:
            fields["peak_tflops"] = custom.peak_tflops[precision]
        return self._construct(InferenceInputs, fields, self._inference_widgets(), errors)

    def _construct(
        self,
        kind: Callable[..., T],
        fields: dict[str, object],
        widgets: Mapping[str, QWidget],
        errors: dict[QWidget, str],
    ) -> T | None:
        try:
            return kind(**fields)
        except ValueError as exc:
            message = str(exc).splitlines()[0]
            widget = widgets.get(field_of(exc))
            errors[widget if widget is not None else self.inputs.params] = message
            return None

    # --- compute and show -----------------------------------------------------------------------
    def recompute(self) -> None:
        """Read every input, run the model and update every result (one pass)."""
        self._timer.stop()
        self._note_preset_edits()
        errors: dict[QWidget, str] = {}
        training = self._build_training(errors)
        memory = self._build_memory(errors)
        inference = self._build_inference(training, errors)

        t_est = self._run(estimate_training, training, errors, self._training_widgets())
        m_est = self._run(estimate_memory, memory, errors, self._memory_widgets())
        i_est = self._run(estimate_inference, inference, errors, self._inference_widgets())

        self._show_training(t_est, training, errors)
        self._show_memory(m_est)
        self._show_inference(i_est, inference)
        self._show_assumptions(t_est, m_est, i_est)
        self._marks.show(errors)

        self.outcome = _Outcome(
            t_est,
            m_est,
            i_est,
            {w.objectName() or type(w).__name__: m for w, m in errors.items()},
        )
        self._publish(training, memory, inference, t_est, m_est, i_est, bool(errors))
        self.recomputed_once()

    def _run(
        self,
        fn: Callable[[T], R],
        inputs: T | None,
        errors: dict[QWidget, str],
        widgets: Mapping[str, QWidget],
    ) -> R | None:
        if inputs is None:
            return None
        try:
            return fn(inputs)
        except ValueError as exc:
            widget = widgets.get(field_of(exc), self.inputs.params)
            errors[widget] = str(exc).splitlines()[0]
            return None

    def _publish(
        self,
        training: TrainingInputs | None,
        memory: MemoryInputs | None,
        inference: InferenceInputs | None,
        t_est: TrainingEstimate | None,
        m_est: MemoryEstimate | None,
        i_est: InferenceEstimate | None,
        invalid: bool,
    ) -> None:
        """Write the results to the shared state.

        While some input is invalid the state keeps the last valid inputs and estimates (other
        tabs keep showing them); a part that does not apply (a preset without a FLOP rule, no
        parameter count) is cleared.
        """

        self._writing_state = True
        try:
            self.state.set_workload(
                training=_keep_if(invalid, training),
                memory=_keep_if(invalid, memory),
                inference=_keep_if(invalid, inference),
                preset_id=self._preset_id,
            )
            if not (invalid and training is None):
                offer = self._price_offer(training)
                self.state.set_price(
                    PriceChoice(
                        None if training is None else training.price,
                        "" if training is None else training.price_source,
                        from_catalog=offer is not None,
                        offer_name="" if offer is None else offer.name,
                        offer_date="" if offer is None else offer.price_date,
                    )
                )
            if t_est is not None or not invalid:
                self.state.set_estimate(t_est)
            if m_est is not None or not invalid:
                self.state.set_memory_estimate(m_est)
            if i_est is not None or not invalid:
                self.state.set_inference_estimate(i_est)
        finally:
            self._writing_state = False

    def _price_offer(self, training: TrainingInputs | None) -> CloudOffer | None:
        """The catalog offer the price is from: the cheapest one while the price follows the
        catalog, the one a scenario's price source names, else None."""
        if self._price_from_catalog:
            acc = self._current_accelerator()
            return None if acc is None else cheapest_offer(acc.id)
        if training is None or self._kept_price is None:
            return None
        if training.price_source != self._kept_price[1]:
            return None
        return offer_named_in(training.price_source)

    def _show_training(
        self, est: object | None, inputs: TrainingInputs | None, errors: dict[QWidget, str]
    ) -> None:
        panel = self.training_results
        if not isinstance(est, TrainingEstimate) or inputs is None:
            reason = next(iter(errors.values()), "")
            preset = None if self._preset_id is None else get_preset(self._preset_id)
            if not reason and preset is not None and not preset.has_training_estimate:
                reason = (
                    f"{preset.name}: no FLOP-based estimate for this class. Enter parameters "
                    "and tokens (or forward FLOPs and samples) to estimate anyway."
                )
            panel.clear(reason or "Fill in the inputs on the left")
            panel.range_note.setText(reason)
            self.plots.clear()
            return
        lines = est.formula.splitlines()
        inputs_rows = [(a.name, a.value) for a in est.assumptions]

        def tip(title: str, *indices: int) -> str:
            chosen = "\n".join(lines[i] for i in indices if i < len(lines))
            return formula_tooltip(title, chosen, inputs_rows)

        method = "6·N·D" if est.method == "6nd" else "3 × forward × samples"
        panel.compute_card.set_formatted(
            units.format_flops(est.total_flops),
            f"{est.total_pflops:,.4g} PFLOP · C = {method}",
            tip("Total compute", 0),
        )
        plural = "device" if est.devices == 1 else "devices"
        panel.time_card.set_formatted(
            units.format_duration(est.training_seconds),
            f"{est.devices:,} {plural} at {est.utilization:.0%} utilization",
            tip("Wall time", 1),
        )
        panel.gpu_hours_card.set_value(
            units.format_count(est.gpu_hours).replace(" ", ""),
            "GPU-h",
            f"{units.format_flop_rate(est.achieved_flops_per_second)} achieved",
            tip("GPU-hours", 2),
        )
        if est.estimated_cost_usd is None:
            panel.cost_card.clear("No price per GPU-hour: type one to see the cost")
            panel.cost_card.set_value(units.DASH, "", "no price given", panel.cost_card.toolTip())
        else:
            panel.cost_card.set_formatted(
                units.format_money(est.estimated_cost_usd),
                f"at {units.format_money(est.price_per_gpu_hour)} per GPU-hour",
                tip("Cost", 3),
            )
        panel.time_range.set_range(
            est.planning_low_hours,
            est.planning_low_hours,
            est.planning_high_hours,
            units.format_hours,
            ticks=tuple(float(m) for m in range(1, int(est.project_margin) + 1)),
        )
        if est.planning_low_cost_usd is not None and est.planning_high_cost_usd is not None:
            panel.cost_range.set_range(
                est.planning_low_cost_usd,
                est.planning_low_cost_usd,
                est.planning_high_cost_usd,
                units.format_money,
                ticks=tuple(float(m) for m in range(1, int(est.project_margin) + 1)),
            )
        else:
            panel.cost_range.clear("no price given")
        panel.range_note.setText(PLANNING_NOTE.format(margin=est.project_margin))
        range_tip = formula_tooltip(
            "Planning range",
            f"low = estimate; high = estimate × {est.project_margin:g}",
            [
                (
                    "wall time",
                    f"{units.format_hours(est.planning_low_hours)} … "
                    f"{units.format_hours(est.planning_high_hours)}",
                ),
                (
                    "cost",
                    f"{units.format_money(est.planning_low_cost_usd)} … "
                    f"{units.format_money(est.planning_high_cost_usd)}",
                ),
            ],
        )
        panel.time_range.setToolTip(range_tip)
        panel.cost_range.setToolTip(range_tip)

        by_devices = training_sweep_devices(inputs, DEVICE_SWEEP)
        by_util = training_sweep_utilization(inputs, UTILIZATION_SWEEP)
        self.plots.set_data(
            by_devices.values,
            by_devices.training_hours,
            by_devices.cost_usd,
            est.devices,
            est.training_hours,
            est.estimated_cost_usd,
            by_util.values * 100.0,
            by_util.cost_usd,
            est.utilization * 100.0,
        )
        self.plots.setToolTip(formula_tooltip("Curves", "\n".join(lines[1:]), inputs_rows))

    def _show_memory(self, est: object | None) -> None:
        panel = self.memory_panel
        if not isinstance(est, MemoryEstimate):
            panel.clear("Memory needs the parameter count.")
            return
        fb = units.format_bytes
        parts = {
            "weights": est.per_device_weights_bytes,
            "gradients": est.per_device_gradients_bytes,
            "optimizer": est.per_device_optimizer_bytes,
            "activations": est.per_device_activations_bytes,
            "kv_cache": est.per_device_kv_cache_bytes,
            "overhead": est.overhead_bytes,
        }
        panel.set_parts({k: (v, fb(v)) for k, v in parts.items()}, est.device_memory_bytes)
        panel.bar.setToolTip(
            formula_tooltip(
                "Memory per device",
                est.formula,
                [(a.name, a.value) for a in est.assumptions],
            )
        )
        capacity = est.device_memory_bytes
        if est.fits is None or capacity is None:
            panel.set_verdict("No device memory known", "none")
            panel.set_advice([], f"{fb(est.per_device_bytes)} per device.")
            return
        if est.fits:
            free = est.headroom_fraction or 0.0
            panel.set_verdict(f"✓ Fits · {free:.0%} free", "good")
            panel.set_advice(
                [],
                f"{fb(est.per_device_bytes)} of {fb(capacity)} per device "
                f"({fb(est.headroom_bytes)} free).",
            )
            return
        panel.set_verdict("✗ Does not fit", "bad")
        lines = []
        for suggestion in est.suggestions:
            mark = (
                f"<span style='color:{COLORS['good']}'>✓ fits</span>"
                if suggestion.fits
                else f"<span style='color:{COLORS['muted']}'>still too big</span>"
            )
            lines.append(
                f"{html.escape(suggestion.description)} → <b>{fb(suggestion.per_device_bytes)}"
                f"</b> per device, {mark}"
            )
        heading = f"Needs {fb(est.per_device_bytes)} per device, {fb(capacity)} available. " + (
            "What would make it fit:" if lines else "No single change makes it fit."
        )
        panel.set_advice(lines, heading)

    def _show_inference(self, est: object | None, inputs: InferenceInputs | None) -> None:
        panel = self.inference_panel
        if not isinstance(est, InferenceEstimate) or inputs is None:
            if self._custom_selected() is not None and self._current_accelerator() is None:
                reason = (
                    "The measured accelerator matches no catalog entry, so its memory bandwidth "
                    "is unknown: pick a catalog accelerator to plan inference."
                )
            else:
                reason = "Inference needs the parameter count and an accelerator."
            panel.clear(reason)
            panel.set_note(reason)
            return
        unit = est.unit
        rows = [(a.name, a.value) for a in est.assumptions]
        tip = formula_tooltip("Inference (roofline)", est.formula, rows)
        panel.throughput_card.set_value(
            units.format_count(est.throughput_per_second).replace(" ", ""),
            f"{unit}s/s",
            f"{est.requests_per_second:,.3g} requests/s",
            tip,
        )
        detail = (
            f"prefill {units.format_duration(est.prefill_seconds)} + "
            f"{inputs.output_tokens} × {units.format_duration(est.step_seconds)}"
            if unit == "token"
            else f"one step of {inputs.batch_size}"
        )
        panel.latency_card.set_formatted(units.format_duration(est.latency_seconds), detail, tip)
        if est.cost_per_million is None:
            panel.cost_card.clear("No price per GPU-hour: type one to see the cost")
        else:
            panel.cost_card.set_formatted(
                units.format_money(est.cost_per_million), f"per million {unit}s", tip
            )
        switch = (
            f"compute-bound from batch ≈ {est.compute_bound_batch_size:,.0f}"
            if est.compute_bound_batch_size is not None
            else "memory-bound at every batch size"
        )
        panel.bound_card.set_value(
            f"{est.bound.capitalize()}",
            "bound",
            switch,
            tip,
        )
        fits = est.fits
        note = f"{units.format_bytes(est.memory_per_device_bytes)} per device"
        if fits is False and est.device_memory_bytes is not None:
            note += (
                f", more than the {units.format_bytes(est.device_memory_bytes)} available: "
                "add serving devices or quantize."
            )
        elif fits:
            note += f" of {units.format_bytes(est.device_memory_bytes)}."
        panel.set_note(
            f"Batch of {inputs.batch_size}, {est.compute_precision} compute on {inputs.gpus} × "
            f"{est.accelerator_name or 'device'}; {note}"
        )
        sweep = inference_sweep_batch(inputs, np.union1d(BATCH_SWEEP, [inputs.batch_size]))
        panel.set_curve(
            sweep.batch_size,
            sweep.throughput_per_second,
            unit,
            (float(inputs.batch_size), est.throughput_per_second),
        )

    def _show_assumptions(self, t_est: object, m_est: object, i_est: object) -> None:
        groups = []
        if isinstance(t_est, TrainingEstimate):
            groups.append(("Training", t_est.assumptions))
        if isinstance(m_est, MemoryEstimate):
            groups.append(("Memory", m_est.assumptions))
        if isinstance(i_est, InferenceEstimate):
            groups.append(("Inference", i_est.assumptions))
        self.assumptions.set_groups(groups)

    def marked_fields(self) -> dict[QWidget, str]:
        """Widgets currently marked invalid by the model, with the reason."""
        return self._marks.marked()


def _keep_if(invalid: bool, value: T | None) -> T | Keep | None:
    """``KEEP`` (leave the state's last valid value) for a part missing because of an error."""
    return KEEP if value is None and invalid else value


def _preferred(supported: tuple[str, ...], current: str) -> str:
    for candidate in (current, "bf16", "fp16", "tf32", "fp32"):
        if candidate in supported:
            return candidate
    return supported[0] if supported else current


def _params_of(memory: MemoryInputs | None) -> float | None:
    return None if memory is None else memory.params
