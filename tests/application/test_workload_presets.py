"""Which preset the Workload tab's inputs are (Qt-free policy, issue 12)."""

from __future__ import annotations

from desktopapp.application.workload_presets import (
    CUSTOM_EDITED,
    CUSTOM_FROM_SCENARIO,
    PresetChoice,
)


def test_an_edit_of_what_the_preset_set_makes_the_workload_custom() -> None:
    choice = PresetChoice()
    preset = choice.choose("bert-base")
    assert choice.preset == preset and choice.preset_id == "bert-base"
    choice.remember(("110M", 8))
    assert not choice.edited(("110M", 8))  # nothing changed
    assert choice.edited(("7B", 8))
    assert choice.preset_id is None and choice.preset is None
    assert choice.custom_label == CUSTOM_EDITED and preset.name in choice.custom_note
    assert not choice.edited(("13B", 8))  # already custom


def test_a_scenario_names_its_preset_or_is_custom() -> None:
    choice = PresetChoice()
    assert choice.from_scenario("llm-7b") is not None and choice.preset_id == "llm-7b"
    assert choice.snapshot is None  # remembered once the inputs are shown
    choice.remember(("a",))
    assert choice.snapshot == ("a",)
    assert choice.from_scenario("no-such-preset") is None
    assert choice.preset_id is None and choice.custom_label == CUSTOM_FROM_SCENARIO
    choice.remember(("b",))
    assert choice.snapshot is None  # nothing to compare a custom workload with
    assert not choice.edited(("c",))
