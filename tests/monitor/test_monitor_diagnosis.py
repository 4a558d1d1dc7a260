"""Bottleneck rules (table), evidence text, hysteresis and hold time."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from desktopapp.model.diagnosis import (
    Diagnoser,
    Diagnosis,
    DiagnosisThresholds,
    Observation,
    Verdict,
    classify_gpu,
    diagnose_series,
    hold_above,
    window_stats,
)
from desktopapp.model.units import MIB

NAN = math.nan


def cat(diagnosis: Diagnosis, category: str) -> Verdict:
    """The verdict of one category, which the test expects to exist."""
    verdict = diagnosis.by_category(category)
    assert verdict is not None, f"no {category} verdict in {diagnosis.keys}"
    return verdict


def steady(seconds: int, start: float = 0.0, **fields: Any) -> list[Observation]:
    """One observation per second with the same readings."""
    base: dict[str, Any] = {
        "gpu_util_percent": 95.0,
        "cpu_percent": 20.0,
        "cpu_max_core_percent": 40.0,
    }
    base.update(fields)
    if math.isfinite(base["gpu_util_percent"]):
        base.setdefault("gpu_count", 1)
    return [Observation(timestamp=start + i, **base) for i in range(seconds)]


def final(observations, thresholds=None):
    return diagnose_series(observations, thresholds)[-1]


UTILIZATION_TABLE = [
    # gpu, cpu, busiest core → verdict key, severity
    (10.0, 92.0, 95.0, "input_bound", "warning"),
    (60.0, 92.0, 95.0, "input_bound", "warning"),
    (10.0, 20.0, 100.0, "single_core_input", "warning"),
    (10.0, 10.0, 30.0, "underused", "warning"),
    (60.0, 10.0, 30.0, "partly_used", "info"),
    (95.0, 10.0, 30.0, "gpu_bound", "ok"),
    (95.0, 92.0, 100.0, "saturated", "info"),
    (NAN, 50.0, 60.0, "no_gpu", "info"),
]


@pytest.mark.parametrize(("gpu", "cpu", "core", "key", "severity"), UTILIZATION_TABLE)
def test_utilization_table(gpu, cpu, core, key, severity):
    d = final(steady(40, gpu_util_percent=gpu, cpu_percent=cpu, cpu_max_core_percent=core))
    verdict = cat(d, "utilization")
    assert (verdict.key, verdict.severity) == (key, severity)
    assert verdict.title and verdict.advice
    assert d.keys == (key,)  # nothing else raised by these readings


def test_evidence_states_the_numbers():
    d = final(steady(40, gpu_util_percent=12.0, cpu_percent=92.0, cpu_max_core_percent=99.0))
    v = cat(d, "utilization")
    assert v.evidence == "GPU 12% mean over 30 s while CPU 92%"
    assert "DataLoader workers" in v.advice and "pin_memory" in v.advice
    multi = final(steady(40, gpu_util_percent=12.0, cpu_percent=92.0, gpu_count=4))
    assert cat(multi, "utilization").evidence.startswith("GPU (mean of 4) 12%")
    idle = final(steady(40, gpu_util_percent=3.0, cpu_percent=5.0))
    assert "batch size" in cat(idle, "utilization").advice
    assert "I/O" in cat(idle, "utilization").advice


OTHER_TABLE = [
    ({"gpu_memory_fraction": 0.95}, "gpu_memory_pressure", "warning"),
    ({"ram_fraction": 0.93}, "host_memory_pressure", "warning"),
    ({"ram_fraction": 0.97, "swap_rate_bytes_s": 20 * MIB}, "swapping", "critical"),
    ({"thermal_throttle": True}, "thermal_throttling", "warning"),
    ({"temperature_margin_c": 3.0}, "thermal_throttling", "warning"),
    ({"power_throttle": True}, "power_throttling", "info"),
    ({"thermal_throttle": True, "power_throttle": True}, "thermal_throttling", "warning"),
]


@pytest.mark.parametrize(("fields", "key", "severity"), OTHER_TABLE)
def test_memory_and_throttling_table(fields, key, severity):
    d = final(steady(40, **fields))
    found = [v for v in d.verdicts if v.key == key]
    assert len(found) == 1 and found[0].severity == severity
    assert cat(d, "utilization").key == "gpu_bound"


def test_memory_evidence_has_numbers():
    d = final(steady(40, gpu_memory_fraction=0.953, ram_fraction=0.5))
    assert cat(d, "gpu_memory").evidence.startswith("GPU memory 95% used")
    d = final(steady(40, ram_fraction=0.97, swap_rate_bytes_s=20 * MIB))
    assert "20.0 MiB/s" in cat(d, "host_memory").evidence
    assert d.worst.key == "swapping"


def test_below_the_thresholds_nothing_but_utilization():
    d = final(
        steady(
            40,
            gpu_memory_fraction=0.8,
            ram_fraction=0.8,
            swap_rate_bytes_s=0.1 * MIB,
            temperature_margin_c=20.0,
        )
    )
    assert d.keys == ("gpu_bound",)


def test_collecting_until_enough_data():
    diagnoser = Diagnoser()
    obs = steady(10, gpu_util_percent=5.0, cpu_percent=5.0)
    first = diagnoser.update(obs[0])
    assert first.keys == ("collecting",)
    results = [diagnoser.update(o) for o in obs[1:]]
    assert results[3].keys == ("collecting",)  # 4 s of the 5 s needed
    assert results[4].keys == ("underused",)  # adopted at once: no hold for the first verdict
    assert cat(results[4], "utilization").since == 5.0


def test_oscillation_around_a_threshold_does_not_flip_the_verdict():
    # GPU well below the "low" threshold, then hovering around it: 38/48 alternating has a
    # mean of 43 (above the 40% enter level, below the 50% exit level): it stays "underused".
    obs = steady(40, gpu_util_percent=20.0, cpu_percent=10.0)
    obs += [
        Observation(40.0 + i, gpu_util_percent=38.0 if i % 2 else 48.0, cpu_percent=10.0)
        for i in range(200)
    ]
    keys = {cat(d, "utilization").key for d in diagnose_series(obs)[10:]}
    assert keys == {"underused"}


def test_short_excursions_do_not_flip_but_a_sustained_change_does():
    th = DiagnosisThresholds(window_s=2.0, min_coverage_s=1.0, hold_s=10.0)
    obs = steady(20, gpu_util_percent=95.0, cpu_percent=10.0)
    t = 20.0
    for _ in range(6):  # 5 s low, 5 s high: the candidate never holds for 10 s
        for util in [5.0] * 5 + [95.0] * 5:
            obs.append(Observation(t, gpu_util_percent=util, cpu_percent=10.0))
            t += 1
    flicker_end = len(obs)
    sustained_start = t
    for _ in range(30):
        obs.append(Observation(t, gpu_util_percent=5.0, cpu_percent=10.0))
        t += 1
    results = diagnose_series(obs, th)
    during = {cat(d, "utilization").key for d in results[2:flicker_end]}
    assert during == {"gpu_bound"}
    after = [cat(d, "utilization") for d in results[flicker_end:]]
    flipped = next(v for v in after if v.key == "underused")
    # window (2 s) to see it, then hold (10 s) before it counts
    assert sustained_start + 10 <= flipped.since <= sustained_start + 13
    assert after[-1].key == "underused" and after[-1].since == flipped.since


def test_memory_pressure_needs_to_hold_too():
    th = DiagnosisThresholds(window_s=2.0, min_coverage_s=1.0, hold_s=5.0)
    obs = steady(10, gpu_memory_fraction=0.5)
    obs += steady(3, start=10, gpu_memory_fraction=0.99)  # brief spike
    obs += steady(10, start=13, gpu_memory_fraction=0.5)
    obs += steady(20, start=23, gpu_memory_fraction=0.97)  # sustained
    results = diagnose_series(obs, th)
    assert all(d.by_category("gpu_memory") is None for d in results[:23])
    assert cat(results[-1], "gpu_memory").key == "gpu_memory_pressure"


def test_bands_have_separate_enter_and_exit_levels():
    th = DiagnosisThresholds()
    assert classify_gpu(45.0, None, th) == "mid"
    assert classify_gpu(45.0, "low", th) == "low"  # not above the 50% exit level yet
    assert classify_gpu(55.0, "low", th) == "mid"
    assert classify_gpu(75.0, "high", th) == "high"  # not below the 70% exit level
    assert classify_gpu(75.0, "mid", th) == "mid"
    assert classify_gpu(65.0, "high", th) == "mid"
    assert classify_gpu(NAN, "high", th) is None
    assert hold_above(0.87, True, 0.90, 0.85) and not hold_above(0.87, False, 0.90, 0.85)
    assert not hold_above(NAN, True, 0.90, 0.85)


def test_window_drops_old_samples_and_ignores_nan():
    obs = steady(100, gpu_util_percent=10.0)
    obs[-1] = replace(obs[-1], cpu_percent=NAN)
    s = window_stats(obs[-31:])
    assert s.seconds == 30 and s.gpu_util == 10.0 and s.cpu == 20.0
    diagnoser = Diagnoser()
    for o in obs:
        d = diagnoser.update(o)
    assert d.window_s == 30.0
    assert len(diagnoser._window) == 31


def test_thresholds_are_validated():
    with pytest.raises(ValueError, match=r"^gpu_low_exit: must be at least gpu_low_enter"):
        DiagnosisThresholds(gpu_low_enter=60.0, gpu_low_exit=50.0)
    with pytest.raises(ValueError, match=r"^gpu_memory_enter"):
        DiagnosisThresholds(gpu_memory_enter=1.5)
    with pytest.raises(ValueError, match=r"^min_coverage_s"):
        DiagnosisThresholds(window_s=3.0, min_coverage_s=5.0)
    with pytest.raises(ValueError, match=r"^window_s"):
        DiagnosisThresholds(window_s=0.0)
    with pytest.raises(ValueError, match=r"^gpu_low_exit: must not exceed gpu_high_exit"):
        DiagnosisThresholds(gpu_low_exit=75.0)


def test_time_must_not_go_backwards():
    diagnoser = Diagnoser()
    diagnoser.update(Observation(10.0))
    with pytest.raises(ValueError, match=r"^timestamp"):
        diagnoser.update(Observation(9.0))
    diagnoser.reset()
    assert diagnoser.update(Observation(1.0)).keys == ("collecting",)


def test_diagnosis_to_dict():
    d = final(steady(40, gpu_util_percent=10.0, cpu_percent=95.0))
    payload = d.to_dict()
    assert payload["verdicts"][0]["key"] == "input_bound"
    assert set(payload["verdicts"][0]) >= {"title", "severity", "evidence", "advice", "since"}
