"""Hardware access (psutil, NVML, torch). No Qt.

Sensors never raise to callers: a missing library, driver or GPU gives NaN / None together with
an "unavailable because …" reason. Long work (benchmarks) is a generator yielding progress.
"""
