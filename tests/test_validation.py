"""Shared input checks name the field and say what is allowed."""

from __future__ import annotations

import math

import pytest

from desktopapp.model import validation as v


@pytest.mark.parametrize("bad", [0, -1, math.nan, math.inf, "3", None, True])
def test_require_positive_rejects(bad):
    with pytest.raises(ValueError, match=r"^gpus: "):
        v.require_positive("gpus", bad)


def test_require_fraction_bounds():
    assert v.require_fraction("utilization", 1.0) == 1.0
    assert v.require_fraction("utilization", 0.0, allow_zero=True) == 0.0
    for bad in (0.0, 1.0001, -0.1):
        with pytest.raises(ValueError, match=r"^utilization: must be in \(0, 1\]"):
            v.require_fraction("utilization", bad)


def test_require_int_accepts_whole_floats_only():
    assert v.require_int("gpus", 8.0) == 8
    with pytest.raises(ValueError, match="whole number"):
        v.require_int("gpus", 8.5)
    with pytest.raises(ValueError, match="at most 4"):
        v.require_int("zero_stage", 5, minimum=0, maximum=4)


def test_require_choice_lists_options():
    with pytest.raises(ValueError, match="optimizer: must be one of adamw, sgd"):
        v.require_choice("optimizer", "lion", ["adamw", "sgd"])


# --- errors speak the field's label (issue 16) ------------------------------------------------


def test_user_message_names_the_label_not_the_internal_field():
    assert v.user_message(v.InputError("params", "must be greater than 0, got -1")) == (
        "Parameters: must be greater than 0, got -1"
    )
    assert v.user_message(ValueError("gpu_hours_per_month: must be 0 or more")) == (
        "GPU-hours per month: must be 0 or more"
    )
    assert v.user_message(ValueError("plain sentence, no field")) == "plain sentence, no field"


def test_field_label_of_a_dotted_or_unknown_field_has_no_underscores():
    assert v.field_label("cost.demand.gpu_hours_per_month") == "GPU-hours per month"
    assert v.field_label("some_new_field") == "some new field"


def test_every_labelled_field_reads_as_words():
    for field, label in v.FIELD_LABELS.items():
        assert "_" not in label and label.strip() == label and label, field


def test_a_scenario_file_error_keeps_the_key_and_adds_its_label():
    from desktopapp.model.scenario import ScenarioError

    exc = ScenarioError("plan.json", "training.params: must be greater than 0", "training.params")
    assert v.is_file_error(exc)
    assert v.user_message(exc) == (
        "plan.json: training.params (Parameters): must be greater than 0"
    )
    assert v.user_message(ScenarioError("plan.json", "file not found")) == (
        "plan.json: file not found"
    )


def test_a_percentage_typed_for_a_fraction_says_how_to_write_it():
    from desktopapp.model.validation import InputError, require_fraction

    with pytest.raises(InputError, match=r"got 40 \(a fraction: 0\.4 means 40%\)$"):
        require_fraction("utilization", 40)
    with pytest.raises(InputError) as raised:  # beyond 100 it is no percentage either
        require_fraction("utilization", 150.0)
    assert "a fraction" not in str(raised.value)
    assert require_fraction("utilization", 0.4) == 0.4


@pytest.mark.parametrize(
    ("shape", "field", "words"),
    [
        ((32, None, None), "hidden", "given: layers"),
        ((None, None, 32), "layers", "given: attention heads"),
        ((None, None, None, 8), "kv_heads", "needs the model shape"),
        ((32, 4097, 32), "hidden", "divisible by heads (32)"),
        ((32, 4096, 32, 5), "kv_heads", "must divide heads (32), got 5"),
        ((32, 4096, 32, 64), "kv_heads", "must divide heads"),
    ],
)
def test_a_shape_is_whole_or_absent_and_the_error_names_what_to_fix(shape, field, words):
    from desktopapp.model.validation import InputError, require_shape

    with pytest.raises(InputError) as raised:
        require_shape(*shape)
    assert raised.value.field == field and words in raised.value.text


def test_a_whole_shape_or_none_passes():
    from desktopapp.model.validation import require_shape

    require_shape(None, None, None)
    require_shape(32, 4096, 32)
    require_shape(32, 4096, 32, 8)
