"""Sweep grids: sorted, distinct values.

``np.unique`` would do, but its first call imports ``numpy.ma`` (about 8 ms) to rule out
masked arrays; the Workload tab builds its grids at import, on the way to its first window.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def distinct_sorted(values: Iterable[float] | FloatArray) -> FloatArray:
    """The distinct values in ascending order (as ``np.unique`` of a 1-D float array)."""
    arr = np.sort(np.asarray(values, dtype=float).ravel())
    if arr.size == 0:
        return arr
    keep = np.empty(arr.size, dtype=bool)
    keep[0] = True
    np.not_equal(arr[1:], arr[:-1], out=keep[1:])
    return arr[keep]


def in_grid(values: Iterable[float] | FloatArray, grid: FloatArray) -> npt.NDArray[np.bool_]:
    """Whether each of ``values`` is one of ``grid``'s values (``grid`` sorted and distinct,
    as :func:`distinct_sorted` gives): ``np.isin``, which calls ``np.unique`` on small arrays."""
    arr = np.asarray(values, dtype=float)
    if grid.size == 0:
        return np.zeros(arr.shape, dtype=bool)
    at = np.minimum(np.searchsorted(grid, arr), grid.size - 1)
    return np.asarray(grid[at] == arr, dtype=bool)
