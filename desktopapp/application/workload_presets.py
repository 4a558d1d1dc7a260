"""Which preset the Workload tab's inputs are, without Qt (issue 12: policy out of the view).

A preset fills the inputs; any later edit of an input it set makes the workload "Custom"
(edited from the preset); a scenario names its preset or is "Custom (from scenario)". The tab
gives a snapshot of what presets set, as shown, and renders :attr:`PresetChoice.custom_label`
and :attr:`PresetChoice.custom_note` for the picker's "Custom" entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from desktopapp.model import units
from desktopapp.model.perf_training import DEFAULT_SEQ_LEN, assumed_shape
from desktopapp.model.presets import Preset, get_preset

CUSTOM_FROM_SCENARIO = "Custom (from scenario)"
CUSTOM_EDITED = "Custom"
SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "seq_len")
SIZE_TOLERANCE = 0.05  # a parameter count within 5% of the shape's still describes it


def params_text(params: float) -> str:
    """A parameter count as people write it: 110M, 6.7B, 13B, 175B."""
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if params >= scale:
            return f"{units.format_plain(params / scale, 3)}{suffix}"
    return units.format_plain(params, 3)


@dataclass(frozen=True)
class ShapeOrigin:
    """Where the Shape fields' values came from: a preset, or assumed from a parameter count.
    ``values``: the fields (SHAPE_FIELDS, 0 = not set) as they were filled."""

    label: str
    params: float
    values: tuple[int, ...]


@dataclass(frozen=True)
class ShapeChange:
    """Shape fields to write (SHAPE_FIELDS, 0 = not set) and the sentence that says why."""

    values: Mapping[str, int]
    note: str


def shape_values(shape: Mapping[str, int]) -> tuple[int, ...]:
    return tuple(int(shape.get(name) or 0) for name in SHAPE_FIELDS)


def preset_shape(preset: Preset) -> dict[str, int]:
    return {
        "layers": preset.layers or 0,
        "hidden": preset.hidden or 0,
        "heads": preset.heads or 0,
        "kv_heads": 0,
        "seq_len": preset.seq_len or 0,
    }


def _shape_words(values: tuple[int, ...]) -> str:
    layers, hidden, heads, _kv, seq = values
    words = f"{layers:,} layers, hidden {hidden:,}, {heads:,} heads"
    return f"{words}, sequence {seq:,}" if seq else words


@dataclass
class PresetChoice:
    """Which preset the inputs are, or why they are custom, and where the shape came from."""

    preset_id: str | None = None
    # the inputs the preset set, as shown; an edit that changes them makes the workload custom
    snapshot: tuple[object, ...] | None = None
    custom_label: str = CUSTOM_FROM_SCENARIO
    custom_note: str = ""
    # where the Shape fields came from while they still show those values (None: typed/opened)
    shape_origin: ShapeOrigin | None = None
    shape_note: str = ""
    shape_warning: bool = False  # the note says the shape was replaced

    @property
    def preset(self) -> Preset | None:
        return None if self.preset_id is None else get_preset(self.preset_id)

    def choose(self, preset_id: str) -> Preset:
        """A preset picked; the tab fills the inputs, then calls :meth:`remember`."""
        preset = get_preset(preset_id)
        self.preset_id, self.snapshot = preset.id, None
        shape = preset_shape(preset)
        if preset.params and shape["layers"]:
            self.shape_origin = ShapeOrigin(
                f"the {preset.name} preset", float(preset.params), shape_values(shape)
            )
            self.shape_note = (
                f"Shape from the {preset.name} preset ({params_text(preset.params)} parameters)."
            )
        else:
            self.shape_origin, self.shape_note = None, ""
        self.shape_warning = False
        return preset

    def shape_after_edit(
        self, params: float | None, shape: Mapping[str, int]
    ) -> ShapeChange | None:
        """The inputs as shown now. While the Shape fields still hold what a preset (or an
        earlier assumption) put there and the parameter count has moved away from it, those
        fields describe another model: they are replaced by the shape assumed from the new
        count (the modelled run's rule, N ≈ 12·layers·hidden²), and the note says so in words.
        A shape the user typed is theirs: it is never replaced."""
        origin = self.shape_origin
        if origin is None:
            return None
        if shape_values(shape) != origin.values:
            self.shape_origin, self.shape_note, self.shape_warning = None, "", False
            return None
        if params is None or params <= 0 or abs(params / origin.params - 1.0) <= SIZE_TOLERANCE:
            return None
        layers, hidden, heads = assumed_shape(params)
        # a decoder-length context is kept; an encoder's short one (BERT: 512) is not
        seq = origin.values[4] if origin.values[4] >= 2048 else DEFAULT_SEQ_LEN
        values = {"layers": layers, "hidden": hidden, "heads": heads, "kv_heads": 0, "seq_len": seq}
        new = shape_values(values)
        note = (
            f"Shape replaced for {params_text(params)}: {_shape_words(origin.values)} were "
            f"{origin.label}'s ({params_text(origin.params)} parameters). Now "
            f"{_shape_words(new)}, assumed from the parameter count "
            "(N ≈ 12 × layers × hidden²); type the real shape to use it."
        )
        self.shape_origin = ShapeOrigin(f"the shape assumed for {params_text(params)}", params, new)
        self.shape_note, self.shape_warning = note, True
        return ShapeChange(values, note)

    def remember(self, snapshot: tuple[object, ...]) -> None:
        """What the preset set, as the widgets now show it."""
        if self.preset_id is not None:
            self.snapshot = snapshot

    def edited(self, snapshot: tuple[object, ...]) -> bool:
        """The inputs as shown now; True when an edit just turned the preset into "Custom"."""
        if self.preset_id is None or self.snapshot is None or snapshot == self.snapshot:
            return False
        name = get_preset(self.preset_id).name
        self.preset_id, self.snapshot = None, None
        self.custom_label = CUSTOM_EDITED
        self.custom_note = f"Edited from {name}; choose a preset to start again from its figures."
        return True

    def from_scenario(self, preset_id: str | None) -> Preset | None:
        """A scenario's workload: its preset when it names a known one, else custom."""
        preset = None
        if preset_id:
            try:
                preset = get_preset(preset_id)
            except ValueError:
                preset = None
        self.preset_id, self.snapshot = (None if preset is None else preset.id), None
        self.shape_origin, self.shape_note, self.shape_warning = None, "", False
        if preset is None:
            self.custom_label = CUSTOM_FROM_SCENARIO
            self.custom_note = "Inputs from the scenario, not one of the presets."
        return preset
