"""The demand shapes of a hybrid rent-and-own plan (``model.tco.demand_profile`` draws them).

Named here, apart from the cost model, so that a scenario can check its shape without importing
``model.tco`` on the way to the first window.
"""

from __future__ import annotations

DEMAND_SHAPES: tuple[str, ...] = ("flat", "growing", "bursty")
