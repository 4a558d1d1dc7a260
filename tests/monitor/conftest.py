"""Fixtures for the monitor tests: a fake ``pynvml`` installed through ``sys.modules``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from monitor_fake_pynvml import FakeGpu, make_module

from desktopapp.devices import nvml


@pytest.fixture
def fake_nvml(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., Any]]:
    """``install(gpus, **kwargs)`` puts a fake pynvml in place and resets the NVML wrapper."""

    def install(gpus: list[FakeGpu], **kwargs: Any) -> Any:
        module = make_module(gpus, **kwargs)
        nvml.reset_for_tests()
        monkeypatch.setitem(sys.modules, "pynvml", module)
        return module

    yield install
    nvml.reset_for_tests()  # before monkeypatch puts the real module back
