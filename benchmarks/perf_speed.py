"""Speed of one modelled training estimate (plan search) plus the full 1..4096-GPU sweep.

Prints milliseconds per (estimate + sweep) and, as the baseline measured in the same run, the
milliseconds of the old flat-utilization estimate + sweep, with their ratio. Target: ≤ 50 ms.

    .venv/bin/python benchmarks/perf_speed.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from desktopapp.model.perf_training import RunInputs, estimate_run, scaling_sweep
from desktopapp.model.training import (
    TrainingInputs,
    estimate_training,
    training_sweep_devices,
)
from tests.model.perf_cases import FOUR_HUNDRED_FIVE_B_SHAPE, SEVEN_B, SEVENTY_B_SHAPE

CASES = {
    "7B, 2T tokens, H100": RunInputs(**SEVEN_B, gpus=512),
    "70B, 15T tokens, H100": RunInputs(
        **SEVENTY_B_SHAPE, tokens=15e12, accelerator="h100-sxm", gpus=2048, seq_len=8192
    ),
    "405B, GB200 NVL72": RunInputs(
        **FOUR_HUNDRED_FIVE_B_SHAPE, tokens=15e12, accelerator="gb200", gpus=4096, seq_len=8192
    ),
}


def _best_ms(fn, repeat: int = 15) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return 1000.0 * min(times)


def main() -> int:
    old = TrainingInputs(params=7e9, tokens=2e12, accelerator="h100-sxm", gpus=512)
    counts = np.arange(1, 4097)
    base = _best_ms(lambda: (estimate_training(old), training_sweep_devices(old, counts)))
    print(f"baseline (flat-utilization estimate + sweep 1..4096): {base:.2f} ms")
    worst = 0.0
    for name, inp in CASES.items():
        estimate_run(inp)  # warm the resource caches
        ms = _best_ms(lambda inp=inp: (estimate_run(inp), scaling_sweep(inp)))
        worst = max(worst, ms)
        print(
            f"{name:24s} estimate + plan search + sweep 1..4096: {ms:7.2f} ms "
            f"({ms / base:.0f}× the baseline)"
        )
    print(f"slowest: {worst:.1f} ms (target ≤ 50 ms) -> {'OK' if worst <= 50 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
