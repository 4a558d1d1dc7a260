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
