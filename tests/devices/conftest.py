"""Fixtures for the device tests: a fake ``pynvml`` through ``sys.modules``, CPU sample roots."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from devices_fake_pynvml import FakeGpu, make_module

from desktopapp.devices import nvml


@pytest.fixture
def fake_nvml(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:
    """``install(gpus, **kwargs)`` puts a fake pynvml in place and resets the NVML wrapper."""

    def install(gpus: list[FakeGpu], **kwargs: Any) -> Any:
        module = make_module(gpus, **kwargs)
        monkeypatch.setitem(sys.modules, "pynvml", module)
        nvml.reset_for_tests()
        return module

    yield install
    nvml.reset_for_tests()


@pytest.fixture
def no_nvml(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``import pynvml`` fails, as on a machine without nvidia-ml-py."""
    monkeypatch.setitem(sys.modules, "pynvml", None)
    nvml.reset_for_tests()
    yield
    nvml.reset_for_tests()
