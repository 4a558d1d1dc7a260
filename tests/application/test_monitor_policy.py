"""Sampler problems are records (kind, device, text) and the Monitor tab's policy sorts them
by kind, without Qt."""

from __future__ import annotations

import json
import pickle

import pytest

from desktopapp.application.monitor import (
    DEFAULT_IDLE_PRICE_USD,
    GapPolicy,
    idle_config,
    idle_price,
    no_gpu_reason,
    sort_problems,
)
from desktopapp.application.plan import PriceChoice
from desktopapp.devices import problems as kinds
from desktopapp.devices.problems import Problem, kind_of
from desktopapp.testing.sampler import FakeSampler

LOST = Problem(kinds.GPU_LOST, "GPU 1 (H100): lost (GPU is lost); NaN from now on", "GPU 1")
DISK = Problem(kinds.HOST, "disk counters unavailable on this system", "host")
RATES = Problem(kinds.WARMING_UP, "rates need two readings: CPU % … are NaN", "host")
NO_GPU = Problem(kinds.NO_GPU, "GPU: unavailable because no NVIDIA driver installed.")


def test_a_problem_is_its_text_with_a_kind_and_device() -> None:
    assert LOST == "GPU 1 (H100): lost (GPU is lost); NaN from now on"
    assert (LOST.kind, LOST.device) == (kinds.GPU_LOST, "GPU 1")
    assert json.loads(json.dumps([LOST])) == [LOST.text]
    copy = pickle.loads(pickle.dumps(LOST))
    assert (copy.kind, copy.device, copy.text) == (LOST.kind, LOST.device, LOST.text)
    assert kind_of("typed by a test") == kinds.OTHER
    with pytest.raises(ValueError, match=r"^kind: "):
        Problem("strange", "x")


def test_lost_gpus_go_to_the_banner_notes_to_the_tooltip_warm_up_is_hidden() -> None:
    view = sort_problems([LOST, DISK, RATES, NO_GPU, "free text"])
    assert view.lost == (LOST,)
    assert view.notes == (DISK, "free text")
    assert view.notes_label == "2 sensor notes"
    assert sort_problems([RATES]).notes_label == ""


def test_the_no_gpu_reason_comes_from_the_no_gpu_problem_only() -> None:
    # A lost-GPU text mentions "GPU" too; only the kind decides.
    assert no_gpu_reason([LOST, NO_GPU]) == "no NVIDIA driver installed"
    assert no_gpu_reason([LOST]) == "the sampler reports no GPU on this machine"


def test_the_scripted_sampler_reports_typed_problems() -> None:
    fake = FakeSampler(gpu_count=2, lose_gpu_at={1: 1})
    fake.sample()
    lost = [p for p in fake.sample().problems if kind_of(p) == kinds.GPU_LOST]
    assert lost and lost[0].device == "GPU 1"
    fake.close()
    (closed,) = fake.sample().problems
    assert kind_of(closed) == kinds.CLOSED


def test_a_pause_leaves_a_gap_halfway_and_running_steps_do_not() -> None:
    gaps = GapPolicy()
    assert gaps.gap_at(1.0, 0.0, 1.0) is None  # learns the usual step (1 s)
    assert gaps.gap_at(2.0, 1.0, 1.0) is None
    gaps.resume(had_samples=True)
    assert gaps.gap_at(12.0, 2.0, 1.0) == pytest.approx(7.0)  # paused 10 s: gap at 7 s
    assert gaps.gap_at(13.0, 12.0, 1.0) is None  # only right after the resume
    gaps.resume(had_samples=True)
    assert gaps.gap_at(14.5, 13.0, 1.0) is None  # 1.5 steps is not a pause
    fresh = GapPolicy()
    fresh.resume(had_samples=True)
    assert fresh.gap_at(50.0, 0.0, 1.0) is None  # no usual step known yet


def test_idle_price_typed_then_workload_then_default() -> None:
    workload = PriceChoice(2.5, "catalog", from_catalog=True, offer_name="Lambda H100")
    typed = idle_price(1.2, workload)
    assert (typed.usd_per_gpu_hour, typed.typed) == (1.2, True)
    follows = idle_price(None, workload)
    assert follows.usd_per_gpu_hour == 2.5 and "Lambda H100" in follows.source
    none = idle_price(None, PriceChoice(None))
    assert none.usd_per_gpu_hour == DEFAULT_IDLE_PRICE_USD and none.source.startswith("Default")
    bad = idle_price(None, PriceChoice(float("nan")))
    assert bad.usd_per_gpu_hour == DEFAULT_IDLE_PRICE_USD
    config = idle_config(follows, 15.0)
    assert config.price_per_gpu_hour == 2.5 and config.alert_after_minutes == 15.0
