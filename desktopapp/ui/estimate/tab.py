"""Workload estimation tab: inputs on the left, results and plots on the right.

The tab reads its widgets, builds the model's input dataclasses, calls the model
(``estimate_training``, ``estimate_memory``, ``estimate_inference`` and the sweeps) and shows
the results. Edits are coalesced by a short single-shot timer. A ``ValueError`` from the model
names a field; the tab maps it to the widget, marks it and shows "—" for what cannot be
computed. The estimates take milliseconds, so they run on the GUI thread.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QWidget

from desktopapp.application import workload
from desktopapp.application import workload_policy as policy
from desktopapp.application.defaults import ServingOptions
from desktopapp.application.snapshot import (
    INFERENCE,
    MEMORY,
    SERVING,
    TRAINING,
    Snapshot,
    WorkloadRequest,
    compute_snapshot,
)
from desktopapp.application.text import implausible_inputs
from desktopapp.application.training_view import ModelledRun, NotModelled, modelled_view
from desktopapp.application.workload import WorkloadResults
from desktopapp.application.workload_compute import (
    MeasuredDevice,
    WorkloadComputation,
    publish_workload,
)
from desktopapp.application.workload_policy import WorkloadController
from desktopapp.application.workload_presets import (
    CUSTOM_EDITED,
    PresetChoice,
)
from desktopapp.model.catalog import (
    Accelerator,
    CloudOffer,
    accelerator_catalog,
)
from desktopapp.model.inference import InferenceEstimate
from desktopapp.model.memory import MemoryEstimate
from desktopapp.model.presets import Preset, load_presets
from desktopapp.model.training import TrainingEstimate, TrainingInputs
from desktopapp.ui.common.layouts import scrolling_column, two_panes
from desktopapp.ui.common.marking import (
    FieldMarks,
    blocked,
    select_data,
)
from desktopapp.ui.common.recompute import RecomputingTab
from desktopapp.ui.common.theme import COLORS
from desktopapp.ui.common.timers import when
from desktopapp.ui.estimate import advisor_button
from desktopapp.ui.estimate.assumptions import AssumptionsPanel
from desktopapp.ui.estimate.form import WorkloadForm
from desktopapp.ui.estimate.inference_panel import InferencePanel
from desktopapp.ui.estimate.inputs import METHOD_6ND, InputsPanel
from desktopapp.ui.estimate.modelled import ModelledPanel
from desktopapp.ui.estimate.results import (
    MemoryPanel,
    PlotsPanel,
    TrainingResults,
)
from desktopapp.ui.state import AppState, CustomAccelerator, PriceChoice

DEFAULT_PRESET = "bert-base"
CUSTOM_ID = "custom:measured"
CUSTOM_PRESET = ""  # data of the preset picker's "Custom" entry
# How often the tab checks whether the plots in view are drawn before it builds the ones
# below them (milliseconds).
OFFSCREEN_POLL_MS = 10
OFFSCREEN_WAIT_S = 15.0  # longest it waits for them (then it places the curve anyway)
# How long after the plots in view are drawn the ones below them are built (milliseconds):
# after the first paint, long before anyone can scroll to them.
OFFSCREEN_DELAY_MS = 150


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
        self.presets = PresetChoice()  # which preset the inputs are, or why "Custom"
        self.policy = WorkloadController()  # price and utilization: catalog, typed or kept
        self._writing_state = False
        self._marks = FieldMarks(state, "Cannot compute: ")
        self.outcome = _Outcome()
        self.snapshot: Snapshot | None = None  # the last recompute's (issue 21)
        self._modelled_reason = ""  # why there is no modelled run (a refused input)
        # the Concurrency field typed by the user (else the engine's operating point)
        self._concurrency_given = False

        self.inputs = InputsPanel()
        self.form = WorkloadForm(self.inputs)
        self.training_results = TrainingResults()
        self.plots = PlotsPanel()
        self.modelled = ModelledPanel()
        # Inputs of the modelled run waiting to be shown (deferred until the tab is ready).
        self._modelled_pending: tuple[ModelledRun | None] | None = None
        self.memory_panel = MemoryPanel()
        self.inference_panel = InferencePanel()
        self.assumptions = AssumptionsPanel()
        # Built into a window on screen: the assumptions (below the first screen) are laid out
        # after the tab's first paint, not before it (see paintEvent).
        self._first_paint_done = parent is None or not parent.isVisible()
        if not self._first_paint_done:
            self.assumptions.hold()
        self._build_layout()
        advisor_button.install(self)  # issue 24: the What to run on view (imported on click)

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
        # The plots come after the figures: the tab is ready (and painted) first.
        self.ready.connect(self.plots.build_later)
        self.ready.connect(self.modelled.build_later)
        self.ready.connect(self._build_offscreen_plots)
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

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._first_paint_done:
            self._first_paint_done = True
            QTimer.singleShot(0, self, self.assumptions.release)

    # --- layout ------------------------------------------------------------------------------
    def _build_layout(self) -> None:
        self.results_scroll = scrolling_column(
            (
                self.training_results,
                self.modelled,
                (self.plots, 1),
                self.memory_panel,
                self.inference_panel,
                self.assumptions,
            ),
            end_stretch=0,
        )
        self.splitter = two_panes(self, self.inputs, self.results_scroll, (470, 930), stacking=True)

    def _connect(self) -> None:
        inp = self.inputs
        inp.edited.connect(self.schedule)
        inp.method_changed.connect(self._on_method_changed)
        inp.preset_chosen.connect(self.apply_preset)
        inp.accelerator_chosen.connect(self._on_accelerator_chosen)
        inp.carried_dropped.connect(self._on_carried_dropped)
        inp.precision_chosen.connect(self._on_precision_chosen)
        inp.utilization_moved.connect(self._on_utilization_moved)
        inp.price_typed.connect(self._on_price_typed)
        inp.price_reset.connect(self._on_price_reset)
        inp.inference_batch.valueChanged.connect(self._on_concurrency_typed)
        self.state.workload_changed.connect(self._on_state_workload_changed)
        self.state.custom_accelerator_changed.connect(self._on_custom_accelerator)
        # the Hardware tab's measured all-reduce bus bandwidth (Collectives, "Use in estimates")
        self.state.measured_busbw_changed.connect(lambda _v: self.schedule())

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

    def _refresh_precisions(self, wanted: str | None = None) -> None:
        """The precisions the accelerator offers (and the TDP an empty power cap means)."""
        inp = self.inputs
        current = wanted or str(inp.precision.currentData() or "bf16")
        acc = self._current_accelerator()
        inp.show_tdp(None if acc is None else acc.tdp_w)
        items, preferred = policy.precision_items(acc, self._custom_selected(), current)
        inp.set_combo_items(inp.precision, items, preferred)
        inference_current = str(inp.inference_precision.currentData() or "bf16")
        inp.set_combo_items(
            inp.inference_precision, policy.inference_precision_items(acc), inference_current
        )

    def _refresh_utilization(self) -> None:
        shown = self.policy.utilization_field(self._current_accelerator(), self._custom_selected())
        if shown.value is not None:
            self.inputs.utilization.set_fraction(shown.value)
        self.inputs.utilization_note.setText(shown.note)
        self.inputs.utilization_note.setToolTip(shown.tooltip)

    def _show_utilization_note(self, done: WorkloadComputation) -> None:
        modelled = done.modelled is not None and done.modelled.sets_headline
        mfu = done.training.utilization if modelled and done.training is not None else None
        note = self.policy.utilization_note(
            self._current_accelerator(), self._custom_selected(), mfu
        )
        self.inputs.utilization_note.setText(note)

    def _refresh_price(self) -> None:
        """Catalog price for the accelerator unless the user typed one (or a scenario gave one
        with its source)."""
        inp = self.inputs
        shown = self.policy.price_field(self._current_accelerator())
        inp.price_reset_button.setEnabled(shown.reset_enabled)
        if shown.set_value:
            inp.price.set_value(shown.value)
        inp.price_source.setText(shown.note)
        inp.price_source.setToolTip(shown.tooltip)

    def _on_accelerator_chosen(self, _acc_id: str) -> None:
        self.policy.accelerator_changed(self._current_accelerator())
        self._refresh_precisions()
        self._refresh_utilization()
        self._refresh_price()
        self.schedule()

    def _on_carried_dropped(self) -> None:
        self.form.set_carried({})
        self.schedule()

    def _on_precision_chosen(self, precision: str) -> None:
        # Storage follows the compute precision between fp32 and mixed; the user can change it.
        storage = str(self.inputs.storage.currentData())
        wanted = policy.storage_for(precision, storage)
        if wanted != storage:
            select_data(self.inputs.storage, wanted)
        self.schedule()

    def _on_utilization_moved(self, _value: float) -> None:
        self.policy.utilization_moved()
        self._refresh_utilization()
        self.schedule()

    def _on_price_typed(self) -> None:
        self.policy.price_typed()
        self._refresh_price()
        self.schedule()

    def _on_price_reset(self) -> None:
        self.policy.price_reset()
        self._refresh_price()
        self.schedule()

    def _on_concurrency_typed(self, _value: int) -> None:
        self._concurrency_given = True  # (fills from presets and scenarios are blocked)

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
        preset = self.presets.choose(preset_id)
        self._concurrency_given = False
        self._show_preset_choice()
        self.form.fill_from_preset(preset, self._catalog)
        self._refresh_precisions(preset.precision)
        self._refresh_utilization()
        self._refresh_price()
        self._refresh_inference_fields()
        self.presets.remember(self.form.snapshot())
        self.recompute()

    def _check_shape(self) -> None:
        """Shape fields a preset (or an earlier assumption) filled never feed another model
        size silently: replaced, and said so under them (workload_presets.shape_after_edit)."""
        change = self.presets.shape_after_edit(self.inputs.params.value(), self.form.shape_fields())
        if change is not None:
            self.form.set_shape(change.values)
        self.inputs.show_shape_note(self.presets.shape_note, self.presets.shape_warning)

    def _note_preset_edits(self) -> None:
        """An input a preset set was changed: the workload is no longer that preset."""
        if self.presets.snapshot is not None and self.presets.edited(self.form.snapshot()):
            self._show_preset_choice()

    def _show_preset_choice(self) -> None:
        """The preset picker and its notes: the current preset, or the "Custom" entry."""
        inp = self.inputs
        combo = inp.preset_combo
        choice = self.presets
        if choice.preset_id is not None:
            select_data(combo, choice.preset_id)
            self.form.show_preset_notes(choice.preset)
            return
        index = combo.findData(CUSTOM_PRESET)
        combo.setItemText(index, choice.custom_label)
        select_data(combo, CUSTOM_PRESET)
        self.form.show_preset_notes(None)
        inp.preset_description.setText(choice.custom_note)
        inp.preset_description.setToolTip("")

    @property
    def preset_id(self) -> str | None:
        """The preset the inputs are (None: custom)."""
        return self.presets.preset_id

    def _on_state_workload_changed(self) -> None:
        if not self._writing_state:
            self._apply_state_workload()

    def _apply_state_workload(self) -> None:
        """Show a workload set from outside (a scenario file) and recompute."""
        inp = self.inputs
        training = self.state.training
        memory = self.state.memory
        inference = self.state.inference
        self.presets.from_scenario(self.state.preset_id)
        self._show_preset_choice()
        self.form.fill_from_workload(training, memory, inference, self._catalog)
        self._refresh_precisions(None if training is None else training.precision)
        if inference is not None:
            select_data(inp.inference_precision, inference.precision)
        # a saved concurrency other than 1 (the default) is the user's, as the CLI reads it
        self._concurrency_given = inference is not None and inference.batch_size != 1
        if training is not None:
            self.policy.scenario_utilization(training.utilization)
            if training.utilization is not None:
                inp.utilization.set_fraction(training.utilization)
        self._refresh_utilization()
        if training is not None and training.price is not None:
            self.policy.scenario_price(training.price, training.price_source)
            inp.price.set_value(training.price)
        self._refresh_price()
        self._refresh_inference_fields()
        self.presets.remember(self.form.snapshot())
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

    # --- compute and show -----------------------------------------------------------------------
    def recompute(self) -> None:
        """Read every input, run the model and update every result (one pass)."""
        self._timer.stop()
        self._note_preset_edits()
        self._check_shape()
        errors: dict[QWidget, str] = {}
        acc, custom = self._current_accelerator(), self._custom_selected()
        training = self.form.training(errors, acc, custom, self.policy)
        memory = self.form.memory(errors, acc, custom)
        inference = self.form.inference(training, errors, acc, custom)

        # One snapshot (issue 21): the figures every face shows for these inputs. A plan (or
        # size) the model refuses is an error at its field; the headline never switches
        # silently to another model (the flat rule) for it.
        snap = compute_snapshot(
            WorkloadRequest(
                training=training,
                memory=memory,
                inference=inference,
                serving=ServingOptions(batch_size_given=self._concurrency_given),
                preset_id=self.presets.preset_id,
                utilization_user_set=self.policy.utilization_user_set,
                measured_busbw=self.state.measured_busbw,
                measured=None
                if custom is None
                else MeasuredDevice(custom.peak_tflops, custom.based_on),
                with_verdict=False,  # the Cost tab compares with its own inputs
            )
        )
        self.snapshot = snap
        modelled = None if snap.training is None else snap.training.modelled
        done = WorkloadComputation(
            snap.training_estimate, snap.memory, snap.inference, modelled, snap.errors
        )
        widgets = {
            TRAINING: self.form.training_widgets(),
            MEMORY: self.form.memory_widgets(),
            INFERENCE: self.form.inference_widgets(),
            SERVING: self.form.inference_widgets(),
        }
        for error in done.errors:
            section = widgets.get(error.section, widgets[TRAINING])
            errors[section.get(error.field, self.inputs.params)] = error.message
        t_est, m_est, i_est = done.training, done.memory, done.inference
        if memory is None and errors:
            m_est = None  # the Memory inputs are invalid: no memory figure stands for them
        refused = next((e.message for e in snap.errors if e.section == TRAINING), "")
        self._modelled_reason = f"Not modelled: {refused}" if refused else ""
        self._show_utilization_note(done)

        targets = (
            (None, None)
            if inference is None
            else (inference.ttft_target_s, inference.tpot_target_s)
        )
        results = WorkloadResults(training, t_est, m_est, inference, i_est, targets, snap.serving)
        view = workload.present(results, COLORS)
        self._show(results, view, errors)
        self.memory_panel.set_note(workload.memory_origin(snap.memory_for_plan, modelled))
        if t_est is not None:
            run = modelled.run if modelled is not None and modelled.sets_headline else None
            self.training_results.show_hero(workload.hero_view(t_est, run))
            serving = view.inference.headline if view.inference is not None else ""
            if serving and i_est is not None:
                self.training_results.show_serving_line(workload.serving_sentence(i_est, serving))
            else:
                self.training_results.show_serving_line("")
            if errors:  # figures shown beside an invalid field are not the current ones
                hero = self.training_results.hero
                price_error = errors.get(self.inputs.price)
                if price_error is not None:
                    hero.setText(f"{hero.text()}; no cost: {price_error}")
                else:
                    hero.setText(f"Not current: {next(iter(errors.values()))}")
        self.modelled.show_plan_changes(workload.given_plan_note(modelled, training))
        self._show_modelled(modelled)
        self._marks.show(errors)
        self.inputs.show_field_errors(errors)
        # the warnings `desktopapp estimate` prints for inputs beyond any real system
        self.training_results.show_warnings(implausible_inputs(training, memory, inference))
        self.state.set_not_current(list(errors.values()))

        self.outcome = _Outcome(
            t_est,
            m_est,
            i_est,
            {w.objectName() or type(w).__name__: m for w, m in errors.items()},
        )
        if self.inputs.price in errors:  # shown without a cost; the state keeps the last valid
            training, done = None, replace(done, training=None)
        offer = self._price_offer(training)
        price = PriceChoice(
            None if training is None else training.price,
            "" if training is None else training.price_source,
            from_catalog=offer is not None,
            offer_name="" if offer is None else offer.name,
            offer_date="" if offer is None else offer.price_date,
        )
        self._writing_state = True
        try:
            publish_workload(
                self.state,
                (training, memory, inference),
                done,
                invalid=bool(errors),
                preset_id=self.presets.preset_id,
                price=price,
            )
        finally:
            self._writing_state = False
        self.recomputed_once()

    def _price_offer(self, training: TrainingInputs | None) -> CloudOffer | None:
        source = None if training is None else training.price_source
        return self.policy.price_offer(self._current_accelerator(), source)

    def _show(
        self,
        results: WorkloadResults,
        view: workload.WorkloadView,
        errors: dict[QWidget, str],
    ) -> None:
        """Put the presenter's views into the panels (or say why a panel is empty)."""
        if view.training is None:
            preset = self.presets.preset
            reason = workload.training_missing_reason(
                next(iter(errors.values()), "")
                or workload.method_missing_reason(
                    self.inputs.method(),
                    self.inputs.forward_flops.is_empty(),
                    self.inputs.samples.is_empty(),
                ),
                None if preset is None else preset.name,
                preset is None or preset.has_training_estimate,
            )
            self.training_results.clear(
                reason or "Fill in the inputs on the left", not_current=bool(errors)
            )
            self.training_results.range_note.setText(reason)
            self.plots.clear()
        else:
            self.training_results.show_view(view.training, errors.get(self.inputs.price, ""))
            self.plots.set_data(*view.training.curves.args())
            self.plots.setToolTip(view.training.curves_tooltip)
        if view.memory is None:
            self.memory_panel.clear(workload.MEMORY_MISSING)
        else:
            self.memory_panel.show_view(view.memory)
        if view.inference is None:
            measured_only = (
                self._custom_selected() is not None and self._current_accelerator() is None
            )
            reason = workload.inference_missing_reason(measured_only)
            self.inference_panel.clear(reason)
            self.inference_panel.set_note(reason)
        else:
            self.inference_panel.show_view(view.inference)
        self.assumptions.set_groups(list(view.assumptions))

    def _show_modelled(self, modelled: ModelledRun | None) -> None:
        """The modelled run (issue 13): plan, breakdown, scaling; or why there is none. Before
        the tab first reports ready it is shown just after (the first window does not wait for
        the 1-4,096 GPU sweep)."""
        first = self._modelled_pending is None
        self._modelled_pending = (modelled,)
        if not self.is_ready():
            if first:
                QTimer.singleShot(0, self, self._show_modelled_pending)
            return
        self._show_modelled_pending()

    def _show_modelled_pending(self) -> None:
        """Show the latest modelled run (a deferred call never shows a stale one)."""
        pending, self._modelled_pending = self._modelled_pending, None
        if pending is not None:
            self._show_modelled_now(*pending)

    def _show_modelled_now(self, modelled: ModelledRun | None) -> None:
        if modelled is None:
            self.modelled.clear(
                self._modelled_reason or "The modelled run needs a valid training estimate above."
            )
            return
        view = modelled_view(modelled)
        if isinstance(view, NotModelled):
            self.modelled.clear(view.reason)
        else:
            self.modelled.show_view(view, workload.scaling_plots(view.scaling, modelled.run))
        # the modelled scaling plots (that bend) replace the flat-utilization ones
        self.plots.setVisible(isinstance(view, NotModelled))

    def _in_view(self, widget: QWidget) -> bool:
        """Whether ``widget`` is on screen: not hidden and, in a tab on screen, inside the
        visible part of its scrolling column (a tab not on screen counts every shown widget)."""
        if widget.isHidden():
            return False
        return not self.isVisible() or not widget.visibleRegion().isEmpty()

    def plots_drawn(self) -> bool:
        """Every plot of the tab in view exists and shows the current figures: the modelled
        run's scaling plots (or the flat ones they replace) and the serving curve, where each is
        on screen. The plots are built after the figures (``ready``); this says when they are
        done. A plot scrolled out of view is built just after (see _build_offscreen_plots)."""
        if not self._figures_in():
            return False
        panels = (
            (self.modelled, self.modelled),
            (self.plots, self.plots),
            (self.inference_panel, self.inference_panel.holder),
        )
        return all(panel.is_drawn or not self._in_view(part) for panel, part in panels)

    def _build_offscreen_plots(self) -> None:
        """The serving curve, below the first screen at the default size, is built shortly
        after the plots in view are drawn, or at once when it is (or is scrolled) in view: the
        first complete screen does not wait for a plot nobody can see yet, and it is there
        before anyone scrolls to it."""
        if not self.inference_panel.is_built:
            self.results_scroll.verticalScrollBar().valueChanged.connect(self._on_results_scrolled)
            when(
                self._plots_above_drawn,
                self._place_offscreen_plot,
                self,
                OFFSCREEN_WAIT_S,
                every_ms=OFFSCREEN_POLL_MS,
            )

    def _figures_in(self) -> bool:
        """The figures are shown and no modelled run waits to be shown."""
        return self.is_ready() and self._modelled_pending is None

    def _plots_above_drawn(self) -> bool:
        """The figures are in and the plots above the serving curve are drawn (or hidden)."""
        above = (self.modelled, self.plots)
        return self._figures_in() and all(p.isHidden() or p.is_drawn for p in above)

    def _place_offscreen_plot(self) -> None:
        panel = self.inference_panel
        if panel.is_built:
            return
        column = self.results_scroll.widget()
        layout = None if column is None else column.layout()
        if layout is not None:
            layout.activate()  # where it is now, not before the plots above were added
        if self._in_view(panel.holder):
            panel.build_later()
            return
        QTimer.singleShot(OFFSCREEN_DELAY_MS, self, self._build_offscreen_plot_now)

    def _build_offscreen_plot_now(self) -> None:
        if not self.inference_panel.is_built:
            self.inference_panel.ensure_built()

    def _on_results_scrolled(self, _value: int) -> None:
        """Build the serving curve the moment it scrolls into view (if the delay has not)."""
        panel = self.inference_panel
        if panel.is_built:
            self.results_scroll.verticalScrollBar().valueChanged.disconnect(
                self._on_results_scrolled
            )
        elif self._in_view(panel.holder):
            panel.ensure_built()

    def marked_fields(self) -> dict[QWidget, str]:
        """Widgets currently marked invalid by the model, with the reason."""
        return self._marks.marked()
