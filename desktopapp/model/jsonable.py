"""One conversion to plain JSON types, shared by the CLI's ``--json``, the benchmark store and
exports (pure Python; numpy scalars are handled through their ``item()``)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any


def jsonable(value: Any) -> Any:
    """Dataclasses, tuples, mappings and floats to plain JSON types; NaN/inf become None.

    A dataclass with ``to_dict()`` is converted through it; numpy arrays through ``tolist()``.
    """
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if hasattr(value, "to_dict"):
            return jsonable(value.to_dict())
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    ndim = getattr(value, "ndim", None)
    if isinstance(ndim, int) and ndim > 0 and callable(getattr(value, "tolist", None)):
        return jsonable(value.tolist())  # numpy arrays
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return jsonable(value.item())
    return value
