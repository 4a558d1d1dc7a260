"""The Workload tab's input column: grouped sections in a scroll area.

Widgets only: no formulas. :class:`InputsPanel` exposes its fields as attributes and one
``edited`` signal for any user change; the tab reads the fields, builds the model inputs and
writes values back under ``QSignalBlocker``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from desktopapp.application.training_view import production_factor_hint
from desktopapp.model.memory import DEFAULT_VOCAB, KV_PRECISIONS
from desktopapp.model.training import DEFAULT_PROJECT_MARGIN
from desktopapp.model.training_defaults import (
    DEFAULT_MOE_EXPERTS,
    MAX_EXPERTS,
    MOE_TOP_K,
    SOFTWARE_STACKS,
    STACK_LABELS,
)
from desktopapp.ui.common.accelerator_combo import AcceleratorCombo
from desktopapp.ui.common.band_slider import BandSlider
from desktopapp.ui.common.fields import (
    InputsColumn,
    amount_edit,
    choice_combo,
    field_pair,
    hint_label,
    link_button,
    row_widget,
    small_combo,
    source_row,
    spin_box,
    with_note,
    with_units,
)
from desktopapp.ui.common.layouts import flow_grid
from desktopapp.ui.common.marking import flagged_html
from desktopapp.ui.common.quantity_edit import QuantityEdit
from desktopapp.ui.common.section import Section

AUTO = "auto"


class AutoSpinBox(QSpinBox):
    """A whole-number plan field where 0 means "auto": at 0 the field is empty and shows the
    "auto" placeholder, whether 0 was typed, the field emptied or the value set (issue 25: a
    typed 0 stayed on screen as "0"). Typing a number replaces it as usual."""

    def __init__(self, maximum: int, tooltip: str) -> None:
        super().__init__()
        self.setRange(0, maximum)
        self.setGroupSeparatorShown(True)
        self.setAccelerated(True)
        self.setKeyboardTracking(True)
        self.setToolTip(tooltip)
        edit = self.lineEdit()
        edit.setTextMargins(4, 0, 0, 0)
        edit.setPlaceholderText(AUTO)
        self.setMinimumWidth(64)
        edit.textEdited.connect(self._on_edited)
        self.setValue(0)

    def _on_edited(self, text: str) -> None:
        if text.strip() == "0":  # 0 is auto: show the placeholder at once
            self.lineEdit().clear()

    def textFromValue(self, value: int) -> str:
        return "" if value == self.minimum() else super().textFromValue(value)

    def valueFromText(self, text: str) -> int:
        if text.strip().lower() in ("", AUTO, "0"):
            return self.minimum()
        return super().valueFromText(text)

    def validate(self, text: str, pos: int) -> tuple[QValidator.State, str, int]:
        stripped = text.strip().lower()
        if stripped == "" or AUTO.startswith(stripped):
            return QValidator.State.Acceptable, text, pos
        return super().validate(text, pos)


# (value, label) pairs; values are the model's names.
STORAGE_PRECISIONS: tuple[tuple[str, str], ...] = (
    ("mixed", "Mixed (16-bit + fp32 master)"),
    ("fp32", "fp32"),
    ("bf16", "Pure bf16"),
    ("fp16", "Pure fp16"),
)
OPTIMIZERS: tuple[tuple[str, str], ...] = (
    ("adamw", "AdamW"),
    ("sgd", "SGD with momentum"),
    ("adam8bit", "8-bit Adam"),
)
ZERO_STAGES: tuple[tuple[int, str], ...] = (
    (0, "0 · no sharding"),
    (1, "1 · optimizer state"),
    (2, "2 · + gradients"),
    (3, "3 · + weights (FSDP)"),
)
METHOD_6ND = "6nd"
METHOD_FORWARD = "forward"
MAX_DEVICES = 65536


class InputsPanel(InputsColumn):
    """Every input of the Workload tab. ``edited`` fires on any user change."""

    edited = Signal()
    preset_chosen = Signal(str)
    method_changed = Signal(str)
    accelerator_chosen = Signal(str)
    carried_dropped = Signal()  # "Use defaults" under an opened file's kept inputs
    precision_chosen = Signal(str)
    utilization_moved = Signal(float)
    price_typed = Signal()
    price_reset = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.content.setObjectName("InputsContent")
        self._build_preset()
        self._build_training()
        self._build_hardware()
        self._build_plan()
        self._build_memory()
        self._build_inference()
        # every invalid field's message, under the section that holds the field (issue 25)
        self._section_errors: dict[Section, QLabel] = {}
        for section in (
            self.preset_section,
            self.training_section,
            self.hardware_section,
            self.plan_section,
            self.memory_section,
            self.inference_section,
        ):
            label = hint_label()
            label.setObjectName("FieldErrors")
            label.setVisible(False)
            section.add_wide(label)
            self._section_errors[section] = label
        self.set_method(METHOD_6ND)
        self.finish(minimum_width=380)
        self._name_fields()

    # --- sections -----------------------------------------------------------------------------
    def _build_preset(self) -> None:
        section = Section("Workload", "Start from a workload class, then change anything.")
        self.preset_combo = QComboBox()
        self.preset_combo.setToolTip(
            "Fills the model, data, hardware, plan and serving inputs with typical values for "
            "the class (a dense model on an automatic plan); your team's figures (software "
            "stack, production factor, goodput overhead, project margin, power cap) stay"
        )
        self.preset_combo.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.preset_combo.setMinimumContentsLength(20)
        section.add_row("Preset", self.preset_combo)
        self.preset_description = hint_label(rich=False)
        section.add_wide(self.preset_description)
        self.preset_hardware = QLabel()
        self.preset_hardware.setWordWrap(True)
        self.preset_hardware.setTextFormat(Qt.TextFormat.RichText)
        section.add_wide(self.preset_hardware)
        self.preset_memory = QLabel()
        self.preset_memory.setWordWrap(True)
        self.preset_memory.setTextFormat(Qt.TextFormat.RichText)
        section.add_wide(self.preset_memory)
        # an opened file's inputs with no field here, kept and used (workload_carried)
        self.carried_note = hint_label(rich=False)
        self.carried_reset = link_button("Use defaults")
        self.carried_reset.setToolTip(
            "Drop these inputs and plan with the defaults (the accelerator's catalog figures)"
        )
        self.carried_reset.clicked.connect(self.carried_dropped)
        self._carried_row = row_widget(source_row(self.carried_note, self.carried_reset))
        section.add_wide(self._carried_row)
        self._carried_row.setVisible(False)
        self.preset_combo.activated.connect(
            lambda index: self.preset_chosen.emit(str(self.preset_combo.itemData(index) or ""))
        )
        self.preset_section = section
        self.column.addWidget(section)

    def _build_training(self) -> None:
        section = Section("Training compute")
        self.method_6nd = QRadioButton("Params × tokens")
        self.method_6nd.setToolTip("C = 6 × N × D × epochs (transformers)")
        self.method_forward = QRadioButton("FLOPs × samples")
        self.method_forward.setToolTip("C = 3 × forward FLOPs per sample × samples × epochs")
        self.method_group = QButtonGroup(self)
        self.method_group.addButton(self.method_6nd)
        self.method_group.addButton(self.method_forward)
        self.method_6nd.setChecked(True)
        methods = QHBoxLayout()
        methods.setSpacing(14)
        methods.addWidget(self.method_6nd)
        methods.addWidget(self.method_forward)
        methods.addStretch(1)
        section.add_row("Method", methods)

        self.params = QuantityEdit(
            "params", tooltip="Trainable parameters N; also sizes memory and inference"
        )
        section.add_row("Parameters N", self.params)
        self.active_params = QuantityEdit(
            "active_params",
            allow_empty=True,
            placeholder="all (dense)",
            tooltip="Mixture of experts: the parameters each token uses. Compute counts them "
            "(C = 6·N_active·D); memory holds all N. Leave empty for a dense model.",
        )
        self.active_label = section.add_row("Active params (MoE)", self.active_params)
        self.active_params.set_value(None)  # empty is allowed: a dense model
        self.experts = AutoSpinBox(
            MAX_EXPERTS,
            "Mixture of experts: routed experts per layer (Mixtral 8, DeepSeek-V3 256). Serving "
            f"reads the experts a batch touches. Empty: {DEFAULT_MOE_EXPERTS} (the CLI's "
            "--experts).",
        )
        self.experts.lineEdit().setPlaceholderText(str(DEFAULT_MOE_EXPERTS))
        self.moe_top_k = AutoSpinBox(
            MAX_EXPERTS,
            "Mixture of experts: the experts each token is routed to (Mixtral 2, DeepSeek-V3 "
            "8). It sets the training run's expert-parallel traffic and the experts serving "
            f"reads. Empty: top-{MOE_TOP_K} (the CLI's --moe-top-k).",
        )
        self.moe_top_k.lineEdit().setPlaceholderText(f"top-{MOE_TOP_K}")
        self.experts_row = row_widget(field_pair(self.experts, "Top-k", self.moe_top_k))
        self.experts_label = section.add_row("Experts", self.experts_row)
        self.active_params.textChanged.connect(lambda _text: self.enable_routing())
        for spin in (self.experts, self.moe_top_k):
            spin.valueChanged.connect(lambda _v: self.edited.emit())
        self.enable_routing()
        self.tokens = QuantityEdit("tokens", tooltip="Training tokens D per epoch")
        self.tokens_label = section.add_row("Tokens D", self.tokens)
        self.forward_flops = QuantityEdit(
            "forward_flops",
            placeholder="e.g. 8.2G",
            tooltip="FLOPs of one forward pass for one sample (= 2 × multiply-accumulates)",
        )
        self.forward_label = section.add_row("Forward FLOPs / sample", self.forward_flops)
        self.samples = QuantityEdit(
            "samples", placeholder="e.g. 1.28M", tooltip="Training samples per epoch"
        )
        self.samples_label = section.add_row("Samples", self.samples)
        self.epochs = QuantityEdit(
            "epochs", placeholder="1", tooltip="Passes over the data (fractions allowed)"
        )
        section.add_row("Epochs", self.epochs)
        self.goodput_overhead = amount_edit(
            "goodput_overhead",
            "auto (goodput 90%)",
            "Extra wall time for failures, restarts, checkpoint stalls and evaluation, as a % "
            "of the run. Empty: the modelled run takes the published goodput of 90% (Llama 3, "
            "about 11% extra), the flat utilization rule adds none; 0: none at all (the CLI's "
            "--goodput-overhead).",
            allow_empty=True,
        )
        self.goodput_overhead.set_extra_check(
            lambda v: None if v <= 1000 else "must be at most 1,000% (ten times the run)"
        )
        section.add_row(
            "Goodput overhead", with_units(self.goodput_overhead, "", "% extra wall time")
        )
        self.goodput_overhead.set_value(None)
        self.project_margin = QuantityEdit(
            "project_margin",
            allow_empty=True,
            placeholder=f"{DEFAULT_PROJECT_MARGIN:g} (rule of thumb)",
            tooltip="The whole project over this one run (experiments, tuning, failed and "
            "repeated runs, evaluation): the high end of the planning range. Empty: ×3, the "
            "rule of thumb of ×2-3 (the CLI's --project-margin).",
        )
        section.add_row("Project margin", with_units(self.project_margin, "×", ""))
        self.project_margin.set_value(None)

        self.method_6nd.toggled.connect(self._on_method_toggled)
        edits = (self.params, self.active_params, self.tokens, self.forward_flops, self.samples)
        for edit in (*edits, self.epochs, self.goodput_overhead, self.project_margin):
            edit.textEdited.connect(lambda _text: self.edited.emit())
        self.training_section = section
        self.column.addWidget(section)

    def _build_hardware(self) -> None:
        section = Section("Hardware and price")
        self.accelerator = AcceleratorCombo()
        self.accelerator.accelerator_changed.connect(self.accelerator_chosen)
        section.add_row("Accelerator", self.accelerator)

        self.devices = spin_box(1, MAX_DEVICES, 1, "Devices training together (data parallel)")
        self.precision = small_combo(chars=6)
        self.precision.setToolTip(
            "Compute precision; only those the accelerator publishes a peak for"
        )
        section.add_row("Devices", field_pair(self.devices, "Precision", self.precision))
        self.power_cap = QuantityEdit(
            "power_cap_w",
            allow_empty=True,
            placeholder="the TDP",
            tooltip="Sustained board power limit per GPU (nvidia-smi -pl, or a site's power "
            "budget). Below the TDP the modelled run's matmuls slow as (cap/TDP)^(1/3); from a "
            "quarter of the TDP up (drivers refuse lower caps); empty: the TDP (the CLI's "
            "--power-cap-w).",
        )
        self.power_cap_row = row_widget(with_units(self.power_cap, "", "W"))
        self.power_cap_label = section.add_row("Power cap", self.power_cap_row)
        self.power_cap.set_value(None)  # empty: the TDP
        self.power_cap.textEdited.connect(lambda _text: self.edited.emit())

        self.utilization = BandSlider(5, 80, (30, 50), "typical")
        self.utilization.setToolTip(
            "Model FLOPs utilization: the share of peak the run achieves. Large training runs "
            "typically reach 30-50%."
        )
        section.add_row("Utilization", self.utilization)
        self.utilization_note = hint_label(rich=False)
        section.add_row("", self.utilization_note)

        self.price = QuantityEdit(
            "price",
            allow_empty=True,
            currency=True,
            placeholder="type a price, e.g. 2.49",
            tooltip="USD per GPU-hour; typing a price overrides the catalog",
        )
        self.price_reset_button = link_button("Use catalog price")
        self.price_reset_button.setToolTip("Go back to the cheapest on-demand catalog offer")
        section.add_row("Price", with_units(self.price, "$", "/ GPU-hour"))
        self.price_source = hint_label()
        section.add_row("", source_row(self.price_source, self.price_reset_button))

        self.devices.valueChanged.connect(lambda _v: self.edited.emit())
        self.precision.activated.connect(
            lambda i: self.precision_chosen.emit(str(self.precision.itemData(i)))
        )
        self.utilization.value_changed.connect(self.utilization_moved)
        self.price.textEdited.connect(lambda _text: self.price_typed.emit())
        self.price_reset_button.clicked.connect(self.price_reset)
        self.hardware_section = section
        self.column.addWidget(section)

    def _build_plan(self) -> None:
        section = Section(
            "Parallel plan",
            "Auto: the modelled run picks the fastest plan that fits memory. A plan you give "
            "is used as given, or refused with the reason.",
        )
        self.tp = AutoSpinBox(
            4096,
            "Tensor parallel: GPUs that split each layer (inside the NVLink/NVSwitch domain); "
            "empty or 0: auto",
        )
        self.pp = AutoSpinBox(4096, "Pipeline stages; empty or 0: auto")
        section.add_row("Tensor parallel", field_pair(self.tp, "Pipeline", self.pp))
        self.plan_micro_batch = AutoSpinBox(
            1_000_000, "Sequences per GPU per micro-batch; empty or 0: auto"
        )
        self.global_batch = QuantityEdit(
            "global_batch_tokens",
            allow_empty=True,
            placeholder="auto (4M)",
            tooltip="Tokens per optimizer step over all GPUs; it bounds data parallelism "
            "(global batch ÷ micro-batch). Leave empty for the published default.",
        )
        section.add_row(
            "Micro-batch", field_pair(self.plan_micro_batch, "Global batch", self.global_batch)
        )
        self.global_batch.set_value(None)  # empty is allowed: the default
        self.software_stack = choice_combo(
            [(stack, STACK_LABELS[stack]) for stack in SOFTWARE_STACKS],
            "The training software the run uses: Megatron-LM / NeMo (fused Transformer "
            "Engine kernels, overlapped communication), PyTorch FSDP (eager kernels: "
            "torchtitan, llm-foundry), or Typical when unknown (the CLI's --software-stack). "
            "It sets the model's non-matmul and attention efficiency (see Assumptions).",
            chars=22,
        )
        self.software_stack.activated.connect(lambda _i: self.edited.emit())
        section.add_row("Software stack", self.software_stack)
        hint = production_factor_hint()
        self.production_factor = QuantityEdit(
            "production_factor",
            allow_empty=True,
            placeholder=hint.placeholder,
            tooltip=hint.tooltip,
        )
        self.past_runs_button = link_button("From past runs…")
        self.past_runs_button.setToolTip(
            "Fit the production factor to runs your team has finished (a CSV file: params, "
            "tokens, accelerator, gpus, gpu_hours or days; `desktopapp calibrate --help`)"
        )
        self.past_runs_button.clicked.connect(self._production_factor_from_past_runs)
        factor_row = QHBoxLayout()
        factor_row.setContentsMargins(0, 0, 0, 0)
        factor_row.addWidget(self.production_factor, 1)
        factor_row.addWidget(self.past_runs_button)
        # where a factor taken from past runs came from, until the field changes
        self.production_factor_note = hint_label(rich=False)
        self.production_factor_note.setVisible(False)
        section.add_row("Production factor", with_note(factor_row, self.production_factor_note))
        self._noted_factor: float | None = None
        self.production_factor.value_changed.connect(lambda _value: self.note_production_factor())
        self.production_factor.set_value(None)  # empty: the fitted default
        self.production_factor.textEdited.connect(lambda _text: self.edited.emit())
        for spin in (self.tp, self.pp, self.plan_micro_batch):
            spin.valueChanged.connect(lambda _v: self.edited.emit())
        self.global_batch.textEdited.connect(lambda _text: self.edited.emit())
        self.plan_section = section
        self.column.addWidget(section)

    def _production_factor_from_past_runs(self) -> None:
        from desktopapp.ui.estimate.own_runs_dialog import ask_production_factor

        taken = ask_production_factor(self, str(self.software_stack.currentData()))
        if taken is not None:
            self.set_production_factor(*taken)
            self.edited.emit()

    def set_production_factor(self, value: float | None, source: str = "") -> None:
        """Put a factor in the field with where it came from (shown under it while the field
        holds that value; "" or no value: no note)."""
        self.production_factor.set_value(value)
        self._noted_factor = value if source and value is not None else None
        self.production_factor_note.setText(source)
        self.note_production_factor()

    def production_factor_source(self) -> str:
        """The note of the factor the field holds ("" once the value was changed)."""
        return self.production_factor_note.text() if self._noted_factor is not None else ""

    def note_production_factor(self) -> None:
        """Show where the factor came from while the field still holds it (a typed value, a
        preset or a scenario replaces it, and the note goes)."""
        value = self.production_factor.value()
        keep = self._noted_factor is not None and value == self._noted_factor
        if not keep:
            self._noted_factor = None
        self.production_factor_note.setVisible(keep)

    def _build_memory(self) -> None:
        section = Section("Memory per device", "Training memory: model shape, batch and sharding.")
        self.storage = choice_combo(
            STORAGE_PRECISIONS,
            "How weights, gradients and optimizer state are stored",
            chars=14,
        )
        section.add_row("Stored as", self.storage)
        self.optimizer = choice_combo(
            OPTIMIZERS, "Optimizer (sets the bytes of state per parameter)", chars=14
        )
        section.add_row("Optimizer", self.optimizer)
        self.zero_stage = choice_combo(
            ZERO_STAGES,
            "ZeRO stage: what is sharded across the data-parallel devices",
            chars=14,
        )
        section.add_row("ZeRO stage", self.zero_stage)
        self.micro_batch = spin_box(1, 1_000_000, 1, "Sequences (or samples) per device per step")
        self.seq_len = spin_box(0, 10_000_000, 0, "Tokens per sequence", special="not set")
        section.add_row("Micro-batch", field_pair(self.micro_batch, "Sequence", self.seq_len))

        shape = QGridLayout()
        shape.setHorizontalSpacing(8)
        shape.setVerticalSpacing(4)
        self.layers = spin_box(0, 10_000, 0, "Transformer layers", special="—")
        self.hidden = spin_box(0, 1_000_000, 0, "Hidden size (d_model)", special="—")
        self.heads = spin_box(0, 10_000, 0, "Attention heads", special="—")
        self.kv_heads = spin_box(
            0, 10_000, 0, "Key/value heads (grouped-query attention)", special="= heads"
        )
        for col, (caption, spin) in enumerate(
            (
                ("Layers", self.layers),
                ("Hidden", self.hidden),
                ("Heads", self.heads),
                ("KV heads", self.kv_heads),
            )
        ):
            label = QLabel(caption)
            label.setObjectName("Hint")
            # two by two: four in a row set a minimum wider than the pane (issue 16)
            shape.addWidget(label, 2 * (col // 2), col % 2)
            shape.addWidget(spin, 2 * (col // 2) + 1, col % 2)
            spin.setMinimumWidth(50)
        # where the shape came from (a preset), or why it was replaced (issue 21)
        self.shape_note = hint_label()
        self.shape_note.setVisible(False)
        section.add_row("Shape", with_note(shape, self.shape_note))
        # the terms the activation and output memory need beyond the shape (issue 22); a
        # preset or scenario fills them, empty widths follow the model's rules
        self.mlp = choice_combo(
            (("swiglu", "SwiGLU (gated)"), ("gelu", "GELU")),
            "MLP kind: SwiGLU/GeGLU (gated, three matrices: Llama, Mistral) or GELU (two: "
            "GPT-2, BERT); it sets the MLP's activation memory and its default width",
            chars=12,
        )
        self.ffn_hidden = AutoSpinBox(
            10_000_000,
            "MLP (FFN) width; empty: 4·hidden for GELU, about 8·hidden/3 for SwiGLU (rounded "
            "up to a multiple of 256, as Llama)",
        )
        section.add_row("MLP", field_pair(self.mlp, "FFN width", self.ffn_hidden))
        self.vocab = AutoSpinBox(
            10_000_000,
            "Vocabulary size: the embedding, the logits and the fp32 loss and its gradient over "
            f"it for every token; empty: {DEFAULT_VOCAB:,} (Llama 2). Llama 3: 128,256",
        )
        self.vocab.lineEdit().setPlaceholderText(f"auto ({DEFAULT_VOCAB:,})")
        section.add_row("Vocabulary", self.vocab)

        self.checkpointing = QCheckBox("Activation checkpointing")
        self.checkpointing.setToolTip("Keep only layer inputs; recompute activations in backward")
        self.flash_attention = QCheckBox("FlashAttention")
        self.flash_attention.setToolTip("Attention scores are not stored")
        # flows: side by side while they fit, one under the other when narrow (issue 16)
        section.add_row("", flow_grid((self.checkpointing, self.flash_attention), (2, 1)))

        for combo in (self.storage, self.optimizer, self.zero_stage, self.mlp):
            combo.activated.connect(lambda _i: self.edited.emit())
        for spin in (
            self.micro_batch,
            self.seq_len,
            self.layers,
            self.hidden,
            self.heads,
            self.kv_heads,
            self.ffn_hidden,
            self.vocab,
        ):
            spin.valueChanged.connect(lambda _v: self.edited.emit())
        for box in (self.checkpointing, self.flash_attention):
            box.toggled.connect(lambda _on: self.edited.emit())
        self.memory_section = section
        self.column.addWidget(section)

    def _build_inference(self) -> None:
        section = Section("Inference", "Serving the same model on the chosen accelerator.")
        self.inference_batch = spin_box(
            1,
            1_000_000,
            1,
            "Language models: sequences running at once (continuous batching; the KV cache caps "
            "it, and with latency targets the highest concurrency up to this that meets them is "
            "used). Other models: samples per batch.",
        )
        self.inference_precision = small_combo(chars=6)
        self.inference_precision.setToolTip("Weight precision when serving")
        self.concurrency_label = section.add_row(
            "Concurrency", field_pair(self.inference_batch, "Precision", self.inference_precision)
        )
        self.prompt_tokens = spin_box(0, 10_000_000, 512, "Prompt (input) tokens per request")
        self.output_tokens = spin_box(1, 10_000_000, 256, "Generated tokens per request")
        self._prompt_row = field_pair(self.prompt_tokens, "Output", self.output_tokens)
        self.prompt_label = section.add_row("Prompt tokens", self._prompt_row)
        self.inference_devices = spin_box(
            1, MAX_DEVICES, 1, "Devices serving one copy of the model (tensor parallel)"
        )
        self.kv_precision = choice_combo(
            [("", "16-bit"), *((p, p) for p in KV_PRECISIONS)],
            "KV-cache number format: 16-bit (the default; fp32 with fp32 weights), or fp8 "
            "(vLLM's --kv-cache-dtype fp8), which halves the cache: more sequences fit and "
            "decode reads fewer bytes (the CLI's --kv-precision).",
            chars=6,
        )
        self._devices_row = field_pair(self.inference_devices, "KV cache", self.kv_precision)
        section.add_row("Serving devices", self._devices_row)
        self.kv_precision.activated.connect(lambda _i: self.edited.emit())
        self.ttft_target = spin_box(
            0, 600_000, 0, "Target time to first token (0: no target)", suffix=" ms", special="none"
        )
        self.tpot_target = spin_box(
            0,
            60_000,
            0,
            "Target time per output token (0: no target)",
            suffix=" ms",
            special="none",
        )
        self._targets_row = field_pair(self.ttft_target, "TPOT", self.tpot_target)
        self.targets_label = section.add_row("Target TTFT", self._targets_row)
        self.ttft_target.valueChanged.connect(lambda _v: self.edited.emit())
        self.tpot_target.valueChanged.connect(lambda _v: self.edited.emit())
        self.inference_devices.valueChanged.connect(lambda _v: self.edited.emit())
        self.inference_batch.valueChanged.connect(lambda _v: self.edited.emit())
        self.prompt_tokens.valueChanged.connect(lambda _v: self.edited.emit())
        self.output_tokens.valueChanged.connect(lambda _v: self.edited.emit())
        self.inference_precision.activated.connect(lambda _i: self.edited.emit())
        self.inference_section = section
        self.column.addWidget(section)

    def _name_fields(self) -> None:
        """Object names = model field names (error reports, tests, accessibility)."""
        names = {
            "preset": self.preset_combo,
            "params": self.params,
            "active_params": self.active_params,
            "experts": self.experts,
            "moe_top_k": self.moe_top_k,
            "power_cap_w": self.power_cap,
            "kv_precision": self.kv_precision,
            "goodput_overhead": self.goodput_overhead,
            "project_margin": self.project_margin,
            "tp": self.tp,
            "pp": self.pp,
            "plan_micro_batch": self.plan_micro_batch,
            "global_batch_tokens": self.global_batch,
            "production_factor": self.production_factor,
            "software_stack": self.software_stack,
            "tokens": self.tokens,
            "forward_flops": self.forward_flops,
            "samples": self.samples,
            "epochs": self.epochs,
            "accelerator": self.accelerator,
            "gpus": self.devices,
            "precision": self.precision,
            "utilization": self.utilization,
            "price": self.price,
            "memory_precision": self.storage,
            "optimizer": self.optimizer,
            "zero_stage": self.zero_stage,
            "batch_size": self.micro_batch,
            "seq_len": self.seq_len,
            "layers": self.layers,
            "hidden": self.hidden,
            "heads": self.heads,
            "kv_heads": self.kv_heads,
            "mlp": self.mlp,
            "ffn_hidden": self.ffn_hidden,
            "vocab": self.vocab,
            "checkpointing": self.checkpointing,
            "flash_attention": self.flash_attention,
            "inference_batch_size": self.inference_batch,
            "inference_precision": self.inference_precision,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "inference_gpus": self.inference_devices,
            "ttft_target_ms": self.ttft_target,
            "tpot_target_ms": self.tpot_target,
        }
        for name, widget in names.items():
            widget.setObjectName(name)
            widget.setAccessibleName(name.replace("_", " "))

    # --- decoder or encoder -------------------------------------------------------------------
    def show_architecture(self, architecture: str) -> None:
        """An encoder (BERT) reads one sequence per request and generates nothing: no output
        tokens and no TTFT/TPOT targets; the prompt is its sequence and the batch its size."""
        encoder = architecture == "encoder"
        self.concurrency_label.setText("Batch" if encoder else "Concurrency")
        self.prompt_label.setText("Sequence tokens" if encoder else "Prompt tokens")
        self.targets_label.setVisible(not encoder)
        rows = ((self._targets_row, 0), (self._prompt_row, 1), (self._devices_row, 1))
        for row, first in rows:
            for index in range(first, row.count()):
                item = row.itemAt(index)
                widget = None if item is None else item.widget()
                if widget is not None:
                    widget.setVisible(not encoder)

    # --- method switch ------------------------------------------------------------------------
    def method(self) -> str:
        return METHOD_6ND if self.method_6nd.isChecked() else METHOD_FORWARD

    def set_method(self, method: str) -> None:
        """Show the fields of one method (no signal)."""
        with QSignalBlocker(self.method_6nd), QSignalBlocker(self.method_forward):
            self.method_6nd.setChecked(method == METHOD_6ND)
            self.method_forward.setChecked(method != METHOD_6ND)
        self._show_method_fields(method)

    def _show_method_fields(self, method: str) -> None:
        is_6nd = method == METHOD_6ND
        for widget in (self.tokens, self.tokens_label, self.active_params, self.active_label):
            widget.setVisible(is_6nd)
        # MoE routing and the modelled run's clock need C = 6·N·D
        rows = (self.experts_row, self.experts_label, self.power_cap_row, self.power_cap_label)
        for row in rows:
            row.setVisible(is_6nd)
        self.plan_section.setVisible(is_6nd)  # the modelled run needs C = 6·N·D
        for widget in (self.forward_flops, self.forward_label, self.samples, self.samples_label):
            widget.setVisible(not is_6nd)

    def show_carried(self, note: str) -> None:
        """The sentence naming an opened file's inputs with no field here ("": none)."""
        self.carried_note.setText(note)
        self._carried_row.setVisible(bool(note))

    def enable_routing(self) -> None:
        """Experts and top-k apply to a mixture of experts: only with active parameters."""
        moe = self.active_params.text().strip() != ""
        for spin in (self.experts, self.moe_top_k):
            spin.setEnabled(moe)

    def show_tdp(self, tdp_w: float | None) -> None:
        """The power cap's placeholder: the accelerator's TDP, the cap an empty field means."""
        self.power_cap.setPlaceholderText(
            f"the TDP ({tdp_w:,.0f})" if tdp_w else "the TDP (not in the catalog)"
        )

    def _on_method_toggled(self, _checked: bool) -> None:
        method = self.method()
        self._show_method_fields(method)
        self.method_changed.emit(method)

    # --- notes and errors at the fields -------------------------------------------------------
    def show_shape_note(self, note: str, warning: bool) -> None:
        """Where the Shape fields came from, or (``warning``) that they were replaced."""
        self.shape_note.setText(flagged_html(note, "warn") if warning else html.escape(note))
        self.shape_note.setVisible(bool(note))

    def _section_of(self, widget: QWidget) -> Section | None:
        parent: QWidget | None = widget
        while parent is not None:
            if isinstance(parent, Section) and parent in self._section_errors:
                return parent
            parent = parent.parentWidget()
        return None

    def show_field_errors(self, errors: Mapping[QWidget, str]) -> None:
        """Each invalid field's message under its own section, every one of them."""
        grouped: dict[Section, list[str]] = {}
        for widget, message in errors.items():
            section = self._section_of(widget) or self.training_section
            if message not in grouped.setdefault(section, []):
                grouped[section].append(message)
        for section, label in self._section_errors.items():
            messages = grouped.get(section, [])
            label.setText("<br>".join(flagged_html(m) for m in messages))
            label.setVisible(bool(messages))

    def error_label_for(self, widget: QWidget) -> QLabel:
        """The label that shows ``widget``'s error (the one under its section)."""
        return self._section_errors[self._section_of(widget) or self.training_section]

    # --- helpers for the tab ------------------------------------------------------------------
    def set_combo_items(self, combo: QComboBox, items: list[tuple[str, str]], current: str) -> str:
        """Replace a combo's (value, label) items keeping ``current`` if offered; returns the
        value now selected (no signals)."""
        with QSignalBlocker(combo):
            combo.clear()
            for value, label in items:
                combo.addItem(label, value)
            index = combo.findData(current)
            combo.setCurrentIndex(index if index >= 0 else 0)
        data = combo.currentData()
        return "" if data is None else str(data)
