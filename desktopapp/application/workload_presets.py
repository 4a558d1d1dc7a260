"""Which preset the Workload tab's inputs are, without Qt (issue 12: policy out of the view).

A preset fills the inputs; any later edit of an input it set makes the workload "Custom"
(edited from the preset); a scenario names its preset or is "Custom (from scenario)". The tab
gives a snapshot of what presets set, as shown, and renders :attr:`PresetChoice.custom_label`
and :attr:`PresetChoice.custom_note` for the picker's "Custom" entry.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktopapp.model.presets import Preset, get_preset

CUSTOM_FROM_SCENARIO = "Custom (from scenario)"
CUSTOM_EDITED = "Custom"


@dataclass
class PresetChoice:
    preset_id: str | None = None
    # the inputs the preset set, as shown; an edit that changes them makes the workload custom
    snapshot: tuple[object, ...] | None = None
    custom_label: str = CUSTOM_FROM_SCENARIO
    custom_note: str = ""

    @property
    def preset(self) -> Preset | None:
        return None if self.preset_id is None else get_preset(self.preset_id)

    def choose(self, preset_id: str) -> Preset:
        """A preset picked; the tab fills the inputs, then calls :meth:`remember`."""
        preset = get_preset(preset_id)
        self.preset_id, self.snapshot = preset.id, None
        return preset

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
        if preset is None:
            self.custom_label = CUSTOM_FROM_SCENARIO
            self.custom_note = "Inputs from the scenario, not one of the presets."
        return preset
