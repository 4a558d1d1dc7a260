"""Widgets ⇄ model for the Workload tab: read the inputs panel into ``TrainingInputs``,
``MemoryInputs`` and ``InferenceInputs``. A field that does not parse, or that the model
rejects (``InputError.field``), is added to ``errors`` with its widget, and that part is None.
The other way, a preset or a scenario's workload fills the widgets (signals blocked).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from PySide6.QtWidgets import QSpinBox, QWidget

from desktopapp.application.plan import CustomAccelerator
from desktopapp.application.workload_carried import carried_from, carried_note
from desktopapp.application.workload_policy import WorkloadController
from desktopapp.model import units
from desktopapp.model.catalog import Accelerator, AcceleratorCatalog
from desktopapp.model.inference import InferenceInputs
from desktopapp.model.memory import DEFAULT_MLP, MemoryInputs
from desktopapp.model.presets import Preset
from desktopapp.model.training import DEFAULT_PROJECT_MARGIN, TrainingInputs
from desktopapp.model.training_defaults import DEFAULT_STACK
from desktopapp.model.validation import user_message
from desktopapp.ui.common.marking import blocked, field_of, read_quantity, select_data
from desktopapp.ui.common.theme import COLORS
from desktopapp.ui.estimate.inputs import METHOD_6ND, METHOD_FORWARD, InputsPanel

T = TypeVar("T")


class WorkloadForm:
    """The Workload inputs panel read as model inputs (see the module docstring)."""

    def __init__(self, inputs: InputsPanel) -> None:
        self.inputs = inputs
        # decoder | encoder: set by the preset or the scenario (BERT is an encoder)
        self.architecture = "decoder"
        # the shape a preset or a scenario set, and the FFN width it came with: that width
        # belongs to that model, so editing the shape to another model clears it (back to the
        # width rule) unless it was typed since
        self._extras_shape: tuple[int, int, int] | None = None
        self._source_ffn = 0
        # an opened workload's inputs with no field here (kept, used and said: workload_carried)
        self.carried: dict[str, dict[str, Any]] = {}
        for spin in (inputs.layers, inputs.hidden, inputs.heads):
            spin.valueChanged.connect(lambda _v: self._shape_edited())

    def training_widgets(self) -> Mapping[str, QWidget]:
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
            "active_params": inp.active_params,
            "tp": inp.tp,
            "pp": inp.pp,
            "micro_batch": inp.plan_micro_batch,
            "global_batch_tokens": inp.global_batch,
            "production_factor": inp.production_factor,
            "software_stack": inp.software_stack,
            "goodput_overhead": inp.goodput_overhead,
            "project_margin": inp.project_margin,
            "power_cap_w": inp.power_cap,
            "moe_top_k": inp.moe_top_k,
        }

    def memory_widgets(self) -> Mapping[str, QWidget]:
        inp = self.inputs
        return {
            "params": inp.params,
            "precision": inp.storage,
            "optimizer": inp.optimizer,
            "layers": inp.layers,
            "hidden": inp.hidden,
            "heads": inp.heads,
            "kv_heads": inp.kv_heads,
            "mlp": inp.mlp,
            "ffn_hidden": inp.ffn_hidden,
            "vocab": inp.vocab,
            "seq_len": inp.seq_len,
            "batch_size": inp.micro_batch,
            "zero_stage": inp.zero_stage,
            "gpus": inp.devices,
            "accelerator": inp.accelerator,
            "memory_gb": inp.accelerator,
        }

    def inference_widgets(self) -> Mapping[str, QWidget]:
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
            "ttft_target_s": inp.ttft_target,
            "tpot_target_s": inp.tpot_target,
            "active_params": inp.active_params,
            "experts": inp.experts,
            "moe_top_k": inp.moe_top_k,
            "kv_precision": inp.kv_precision,
        }

    def shape(self) -> dict[str, int | None]:
        inp = self.inputs

        def opt(spin_value: int) -> int | None:
            return spin_value if spin_value > 0 else None

        return {
            "layers": opt(inp.layers.value()),
            "hidden": opt(inp.hidden.value()),
            "heads": opt(inp.heads.value()),
            "kv_heads": opt(inp.kv_heads.value()),
        }

    def _remember_extras(self, source: object) -> None:
        """Show ``source``'s MLP kind, FFN width and vocabulary (a preset's or a scenario's
        memory inputs; None or unset: the defaults), signals blocked."""
        inp = self.inputs
        mlp = getattr(source, "mlp", None) or DEFAULT_MLP
        ffn = int(getattr(source, "ffn_hidden", None) or 0)
        vocab = int(getattr(source, "vocab", None) or 0)
        with blocked(inp.mlp, inp.ffn_hidden, inp.vocab):
            select_data(inp.mlp, mlp)
            inp.ffn_hidden.setValue(ffn)
            inp.vocab.setValue(vocab)
        layers, hidden, heads = (
            int(getattr(source, n, None) or 0) for n in ("layers", "hidden", "heads")
        )
        self._extras_shape = (layers, hidden, heads) if layers else None
        self._source_ffn = ffn

    def _shape_edited(self) -> None:
        """The Shape fields now describe another model than the one whose FFN width the
        field shows: the width goes back to the rule (a width typed since stays)."""
        inp = self.inputs
        now = (inp.layers.value(), inp.hidden.value(), inp.heads.value())
        if self._source_ffn and now != self._extras_shape:
            if inp.ffn_hidden.value() == self._source_ffn:
                with blocked(inp.ffn_hidden):
                    inp.ffn_hidden.setValue(0)
            self._source_ffn = 0

    def shape_extras(self) -> dict[str, object]:
        """The MLP kind, FFN width and vocabulary in the fields (empty widths: the rules)."""
        inp = self.inputs
        extras: dict[str, object] = {"mlp": str(inp.mlp.currentData() or DEFAULT_MLP)}
        if inp.ffn_hidden.value() > 0:
            extras["ffn_hidden"] = inp.ffn_hidden.value()
        if inp.vocab.value() > 0:
            extras["vocab"] = inp.vocab.value()
        return extras

    def _shape_spins(self) -> dict[str, QSpinBox]:
        inp = self.inputs
        return {
            "layers": inp.layers,
            "hidden": inp.hidden,
            "heads": inp.heads,
            "kv_heads": inp.kv_heads,
            "seq_len": inp.seq_len,
        }

    def shape_fields(self) -> dict[str, int]:
        """The Shape fields and the sequence length as shown (0: not set)."""
        return {name: spin.value() for name, spin in self._shape_spins().items()}

    def set_shape(self, values: Mapping[str, int]) -> None:
        """Write the Shape fields (signals blocked; the tab is recomputing)."""
        spins = self._shape_spins()
        with blocked(*spins.values()):
            for name, value in values.items():
                spins[name].setValue(int(value))

    def training(
        self,
        errors: dict[QWidget, str],
        acc: Accelerator | None,
        custom: CustomAccelerator | None,
        policy: WorkloadController,
    ) -> TrainingInputs | None:
        inp = self.inputs
        method = inp.method()
        params = read_quantity(inp.params, errors)
        epochs = read_quantity(inp.epochs, errors)
        fields: dict[str, object] = {"method": method}
        if method == METHOD_6ND:
            tokens = read_quantity(inp.tokens, errors)
            active = read_quantity(inp.active_params, errors)
            global_batch = read_quantity(inp.global_batch, errors)
            production = read_quantity(inp.production_factor, errors)
            power_cap = read_quantity(inp.power_cap, errors)
            if params is None or tokens is None or epochs is None:
                return None
            fields.update(params=params, tokens=tokens, active_params=active)
            fields.update(
                {n: (s.value() or None) for n, s in self._plan_spins().items()},
                global_batch_tokens=global_batch,
                production_factor=production,
                production_factor_source=inp.production_factor_source(),
                software_stack=_stack_or_none(inp.software_stack.currentData()),
                power_cap_w=power_cap,
                # top-k only for a mixture of experts (the field is off without active params)
                moe_top_k=(inp.moe_top_k.value() or None) if active is not None else None,
            )
        else:
            forward = read_quantity(inp.forward_flops, errors)
            samples = read_quantity(inp.samples, errors)
            if forward is None or samples is None or epochs is None:
                return None
            fields.update(forward_flops=forward, samples=samples)
        price = read_quantity(inp.price, errors)
        if inp.price.error() is not None and not inp.price.is_empty():
            # an invalid price only blanks the cost: compute, time and GPU-hours stand
            price = None
        precision = str(inp.precision.currentData() or "bf16")
        fields.update(self.carried.get("training", {}))
        if custom is not None:
            fields["accelerator"] = custom.based_on
            if precision in custom.peak_tflops:
                fields["peak_tflops"] = custom.peak_tflops[precision]
        else:
            fields["accelerator"] = None if acc is None else acc.id
        price_source = policy.price_source(acc, price)
        # An untouched slider shows the default: it is saved (and planned with) as "default",
        # never as a figure the user gave (a measured device's utilization is its own figure).
        measured = custom is not None and custom.utilization is not None
        utilization = (
            inp.utilization.fraction() if policy.utilization_user_set or measured else None
        )
        overhead = read_quantity(inp.goodput_overhead, errors)  # % extra wall time
        margin = read_quantity(inp.project_margin, errors)
        fields.update(
            epochs=epochs,
            precision=precision,
            gpus=inp.devices.value(),
            utilization=utilization,
            price=price,
            price_source=price_source,
            goodput_overhead=None if overhead is None else overhead / 100.0,
            project_margin=DEFAULT_PROJECT_MARGIN if margin is None else margin,
        )
        return self._construct(TrainingInputs, fields, self.training_widgets(), errors)

    def _plan_spins(self) -> dict[str, QSpinBox]:
        inp = self.inputs
        return {"tp": inp.tp, "pp": inp.pp, "micro_batch": inp.plan_micro_batch}

    def memory(
        self,
        errors: dict[QWidget, str],
        acc: Accelerator | None,
        custom: CustomAccelerator | None,
    ) -> MemoryInputs | None:
        inp = self.inputs
        params = inp.params.value()
        if params is None:
            return None
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
        fields.update(self.shape())
        fields.update(self.shape_extras())
        fields.update(self.carried.get("memory", {}))
        if custom is not None and custom.memory_bytes:
            fields["memory_gb"] = custom.memory_bytes / units.GIB
        return self._construct(MemoryInputs, fields, self.memory_widgets(), errors)

    def inference(
        self,
        training: TrainingInputs | None,
        errors: dict[QWidget, str],
        acc: Accelerator | None,
        custom: CustomAccelerator | None,
    ) -> InferenceInputs | None:
        inp = self.inputs
        params = inp.params.value()
        if params is None:
            return None
        if custom is not None and acc is None:
            # A measured device with no catalog match has no memory bandwidth to plan with.
            return None
        precision = str(inp.inference_precision.currentData() or "bf16")
        shape = self.shape()
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
            "ttft_target_s": inp.ttft_target.value() / 1000.0 or None,
            # the training field: the same model serves (None for a dense one)
            "active_params": None if training is None else training.active_params,
            "tpot_target_s": inp.tpot_target.value() / 1000.0 or None,
            "architecture": self.architecture,
            "kv_precision": inp.kv_precision.currentData() or None,
        }
        if fields["active_params"] is not None:  # the routing of the same mixture of experts
            fields.update(
                experts=inp.experts.value() or None, moe_top_k=inp.moe_top_k.value() or None
            )
        if inp.method() == METHOD_FORWARD:
            forward = inp.forward_flops.value()
            if forward is None:
                return None
            fields["forward_flops"] = forward
        if has_shape:
            fields.update(shape)
        fields.update(self.carried.get("inference", {}))
        if custom is not None and precision in custom.peak_tflops:
            fields["peak_tflops"] = custom.peak_tflops[precision]
        return self._construct(InferenceInputs, fields, self.inference_widgets(), errors)

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
            message = user_message(exc)
            widget = widgets.get(field_of(exc))
            errors[widget if widget is not None else self.inputs.params] = message
            return None

    # --- model → widgets ----------------------------------------------------------------------
    def fill_from_preset(self, preset: Preset, catalog: AcceleratorCatalog) -> None:
        """Every input a workload class sets (signals blocked; the tab recomputes)."""
        inp = self.inputs
        self.architecture = preset.architecture
        self._remember_extras(preset)
        inp.show_architecture(self.architecture)
        if preset.architecture == "encoder" and preset.seq_len:
            with blocked(inp.prompt_tokens):  # an encoder reads its whole sequence per request
                inp.prompt_tokens.setValue(preset.seq_len)
        with blocked(inp.devices, inp.micro_batch, inp.seq_len, inp.layers, inp.hidden, inp.heads):
            inp.set_method(METHOD_FORWARD if preset.method == "forward" else METHOD_6ND)
            inp.params.set_value(preset.params)
            inp.tokens.set_value(preset.tokens)
            inp.forward_flops.set_value(preset.forward_flops)
            inp.samples.set_value(preset.samples)
            inp.epochs.set_value(preset.epochs)
            if preset.accelerator and catalog.find(preset.accelerator) is not None:
                inp.accelerator.set_accelerator_id(catalog.get(preset.accelerator).id)
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
        # The class is a dense model on an automatic plan: a mixture of experts, a plan or a
        # KV format typed for the previous workload would silently change this one. Your
        # team's figures (stack, production factor, goodput, margin, power cap) stay.
        self.set_carried({})
        inp.active_params.set_value(None)
        inp.global_batch.set_value(None)
        with blocked(inp.experts, inp.moe_top_k, inp.kv_precision, *self._plan_spins().values()):
            for spin in (inp.experts, inp.moe_top_k, *self._plan_spins().values()):
                spin.setValue(0)
            select_data(inp.kv_precision, "")
        inp.enable_routing()

    def fill_from_workload(
        self,
        training: TrainingInputs | None,
        memory: MemoryInputs | None,
        inference: InferenceInputs | None,
        catalog: AcceleratorCatalog,
    ) -> None:
        """The inputs of a workload set from outside (a scenario), signals blocked."""
        inp = self.inputs
        self.set_carried(
            {
                section: carried_from(section, inputs)
                for section, inputs in (
                    ("training", training),
                    ("memory", memory),
                    ("inference", inference),
                )
            }
        )
        self.architecture = "decoder" if inference is None else inference.architecture
        self._remember_extras(memory)
        inp.show_architecture(self.architecture)
        widgets = (inp.devices, inp.micro_batch, inp.seq_len, inp.layers, inp.hidden, inp.heads)
        targets = (inp.ttft_target, inp.tpot_target)
        routing = (inp.experts, inp.moe_top_k, inp.kv_precision)
        with blocked(
            *widgets, inp.kv_heads, inp.inference_batch, inp.prompt_tokens, *targets, *routing
        ):
            if training is not None:
                self._fill_training(training, memory, catalog)
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
                # whole milliseconds, rounded (58 ms is 57.99999… ms in binary)
                inp.ttft_target.setValue(round((inference.ttft_target_s or 0.0) * 1000.0))
                inp.tpot_target.setValue(round((inference.tpot_target_s or 0.0) * 1000.0))
                inp.experts.setValue(inference.experts or 0)
                select_data(inp.kv_precision, inference.kv_precision or "")
                if training is None or training.moe_top_k is None:  # one field: the model's
                    inp.moe_top_k.setValue(inference.moe_top_k or 0)
        if memory is not None:
            with blocked(inp.checkpointing, inp.flash_attention):
                inp.checkpointing.setChecked(memory.checkpointing)
                inp.flash_attention.setChecked(memory.flash_attention)

    def _fill_training(
        self, training: TrainingInputs, memory: MemoryInputs | None, catalog: AcceleratorCatalog
    ) -> None:
        inp = self.inputs
        inp.set_method(training.resolved_method)
        params = training.params if training.params else (None if memory is None else memory.params)
        inp.params.set_value(params)
        inp.tokens.set_value(training.tokens)
        inp.active_params.set_value(training.active_params)
        with blocked(inp.moe_top_k):
            inp.moe_top_k.setValue(training.moe_top_k or 0)
        inp.enable_routing()
        inp.power_cap.set_value(training.power_cap_w)
        overhead = training.goodput_overhead
        inp.goodput_overhead.set_value(None if overhead is None else overhead * 100.0)
        margin = training.project_margin
        inp.project_margin.set_value(None if margin == DEFAULT_PROJECT_MARGIN else margin)
        inp.global_batch.set_value(training.global_batch_tokens)
        inp.set_production_factor(training.production_factor, training.production_factor_source)
        select_data(inp.software_stack, training.software_stack or DEFAULT_STACK)
        with blocked(*self._plan_spins().values()):
            for name, spin in self._plan_spins().items():
                spin.setValue(getattr(training, name) or 0)
        inp.forward_flops.set_value(training.forward_flops)
        inp.samples.set_value(training.samples)
        inp.epochs.set_value(training.epochs)
        if training.accelerator and catalog.find(training.accelerator):
            inp.accelerator.set_accelerator_id(catalog.get(training.accelerator).id)
        inp.devices.setValue(training.gpus)

    def set_carried(self, carried: Mapping[str, Mapping[str, Any]]) -> None:
        """Keep (and show) an opened workload's inputs with no field here; {} drops them."""
        self.carried = {k: dict(v) for k, v in carried.items() if v}
        self.inputs.show_carried(carried_note(self.carried))

    def snapshot(self) -> tuple[object, ...]:
        """What a preset sets, as the widgets show it now."""
        inp = self.inputs
        quantities = (
            inp.params,
            inp.active_params,
            inp.tokens,
            inp.forward_flops,
            inp.samples,
            inp.epochs,
        )
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

    def show_preset_notes(self, preset: Preset | None) -> None:
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


def _stack_or_none(stack: object) -> str | None:
    """The chosen stack, None for the default (a saved scenario then follows the default)."""
    return None if stack in (None, DEFAULT_STACK) else str(stack)
