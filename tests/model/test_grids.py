"""Sweep grids: distinct sorted values, as np.unique gives them, without numpy.ma."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from desktopapp.model.grids import distinct_sorted

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(st.lists(finite, max_size=60))
def test_distinct_sorted_matches_np_unique(values: list[float]) -> None:
    got = distinct_sorted(values)
    want = np.unique(np.asarray(values, dtype=float))
    assert got.dtype == np.float64
    assert np.array_equal(got, want)


def test_distinct_sorted_of_a_rounded_log_grid() -> None:
    grid = distinct_sorted(np.round(np.logspace(0.0, np.log10(4096.0), 160)))
    assert grid[0] == 1.0 and grid[-1] == 4096.0
    assert np.all(np.diff(grid) > 0)  # strictly increasing: no repeated GPU count
    assert distinct_sorted([]).size == 0
    assert list(distinct_sorted([3.0, 1.0, 3.0, 2.0])) == [1.0, 2.0, 3.0]
