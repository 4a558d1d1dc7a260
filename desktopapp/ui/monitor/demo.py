"""Demo data for the Monitor tab on machines without a GPU (documentation screenshots, trying
the tab out): ``DESKTOPAPP_MONITOR_DEMO=1 desktopapp --tab monitor``.

A scripted :class:`~desktopapp.testing.sampler.FakeSampler` on the real clock: GPU 0 runs a
training job whose input pipeline stalls now and then, GPU 1 sits idle while a notebook holds
its memory. The tab says plainly that the data is a demo.
"""

from __future__ import annotations

import os
import time

import numpy as np

from desktopapp.testing.sampler import FakeProcessSpec, FakeSampler

DEMO_ENV = "DESKTOPAPP_MONITOR_DEMO"
DEMO_NOTE = f"Demo data ({DEMO_ENV} is set): scripted readings, not measurements of this machine."


def demo_requested() -> bool:
    return os.environ.get(DEMO_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def demo_sampler(steps: int = 600) -> FakeSampler:
    rng = np.random.default_rng(7)
    i = np.arange(steps)
    stall = (i % 45) >= 38  # the data loader falls behind for 7 of every 45 samples
    train = np.clip(np.where(stall, 35.0, 93.0) + rng.normal(0, 3.0, steps), 0, 100)
    idle = np.clip(rng.normal(0.4, 0.3, steps), 0, 3)
    temp0 = 58 + 16 * (1 - np.exp(-i / 60.0)) + rng.normal(0, 0.6, steps) - 6 * stall
    temp1 = 34 + rng.normal(0, 0.3, steps)
    mem0 = 0.71 + 0.02 * np.sin(i / 9.0)
    mem1 = np.full(steps, 0.31)
    cpu = np.clip(np.where(stall, 88.0, 41.0) + rng.normal(0, 4.0, steps), 0, 100)
    busiest = np.clip(np.where(stall, 100.0, 72.0) + rng.normal(0, 5.0, steps), 0, 100)
    io = np.abs(rng.normal(90e6, 25e6, steps)) * np.where(stall, 1.8, 1.0)
    return FakeSampler(
        gpu_count=2,
        gpu_util=(train.tolist(), idle.tolist()),
        gpu_memory_fraction=(mem0.tolist(), mem1.tolist()),
        temperature_c=(temp0.tolist(), temp1.tolist()),
        cpu_percent=cpu.tolist(),
        busiest_core_percent=busiest.tolist(),
        ram_fraction=(0.46 + 0.05 * np.sin(i / 40.0)).tolist(),
        io_bytes_s=io.tolist(),
        cores=max(2, min(os.cpu_count() or 8, 32)),
        processes=(
            FakeProcessSpec(
                0, 41235, "python", "alice", "python train.py --config vit-l.yaml", 0.7
            ),
            FakeProcessSpec(1, 38810, "python", "bob", "jupyter-lab kernel (notebook)", 0.3, 0.5),
        ),
        clock=time.time,
        gpu_name="NVIDIA H100 80GB HBM3 (demo)",
        power_limit_w=700.0,
        idle_power_w=72.0,
    )
