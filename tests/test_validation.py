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
