"""``desktopapp monitor --serve-metrics HOST:PORT``: this machine's samples for Prometheus.

Metrics use the ``desktopapp_`` prefix and carry their unit in the name (Prometheus naming
practice: ``_bytes``, ``_watts``, ``_celsius``, ``_percent``, ``_per_second``). A scrape takes a
fresh sample from the sampler (guarded by a lock), so the scrape interval sets the rate; a
scrape within :data:`MIN_SAMPLE_INTERVAL_S` of the last complete sample gets that sample again.
CPU % and rates are differences of two readings, and two readings a few milliseconds apart
(Prometheus and a person's ``curl`` at once) can fall in the same kernel clock tick: CPU % would
then be unknown and the series would drop out of that scrape.
The server binds 127.0.0.1 unless another host is named.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

DEFAULT_HOST = "127.0.0.1"
MIN_SAMPLE_INTERVAL_S = 0.5  # 50 kernel clock ticks (USER_HZ 100): CPU % always has a delta

# (channel of SystemSample.channels(), metric name, help)
_HOST_METRICS: tuple[tuple[str, str, str], ...] = (
    ("cpu.percent", "desktopapp_cpu_utilization_percent", "CPU utilization, all cores, percent"),
    ("cpu.max_core", "desktopapp_cpu_max_core_utilization_percent", "busiest core, percent"),
    ("mem.used", "desktopapp_memory_used_bytes", "RAM in use, bytes"),
    ("swap.used", "desktopapp_swap_used_bytes", "swap in use, bytes"),
    ("disk.read", "desktopapp_disk_read_bytes_per_second", "disk reads, bytes per second"),
    ("disk.write", "desktopapp_disk_write_bytes_per_second", "disk writes, bytes per second"),
    ("net.rx", "desktopapp_network_receive_bytes_per_second", "network receive, bytes/s"),
    ("net.tx", "desktopapp_network_transmit_bytes_per_second", "network transmit, bytes/s"),
)
_GPU_METRICS: tuple[tuple[str, str, str, float], ...] = (
    ("util", "desktopapp_gpu_utilization_percent", "GPU utilization (NVML), percent", 1.0),
    ("mem.used", "desktopapp_gpu_memory_used_bytes", "GPU memory in use, bytes", 1.0),
    ("power", "desktopapp_gpu_power_watts", "GPU power draw, watts", 1.0),
    ("power_limit", "desktopapp_gpu_power_limit_watts", "GPU power limit, watts", 1.0),
    ("temp", "desktopapp_gpu_temperature_celsius", "GPU temperature, degrees Celsius", 1.0),
    ("sm_clock", "desktopapp_gpu_sm_clock_hertz", "GPU SM clock, hertz", 1e6),
)


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``PORT`` (→ 127.0.0.1); ValueError naming ``serve_metrics``."""
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = DEFAULT_HOST, text
    host = host.strip("[]") or DEFAULT_HOST
    shown = repr(text[:40]) + ("…" if len(text) > 40 else "")
    if any(ch.isspace() or not ch.isprintable() for ch in host):
        raise ValueError(
            f"serve_metrics: the host must not hold spaces or control characters, got {shown}"
        )
    if not (port_text.isascii() and port_text.isdigit()):
        raise ValueError(f"serve_metrics: HOST:PORT with a port number, got {shown}")
    if len(port_text.lstrip("0")) > 5:  # never int() of thousands of digits
        raise ValueError(
            f"serve_metrics: port must be 0-65535 (0: any free port), got a {len(port_text):,}-"
            "digit number"
        )
    port = int(port_text)
    if not 0 <= port <= 65535:
        raise ValueError(f"serve_metrics: port must be 0-65535 (0: any free port), got {port}")
    return host, port


class SamplerCollector:
    """A prometheus-client collector that samples on every scrape."""

    def __init__(self, sampler: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self._sampler = sampler
        self._lock = threading.Lock()
        self._hostname = socket.gethostname()
        self._clock = clock
        self._last: tuple[float, Any, dict[str, float]] | None = None  # (when, sample, channels)

    def _sample(self) -> tuple[Any, dict[str, float]]:
        """A fresh sample, or the last one when it is complete (CPU % known) and younger than
        :data:`MIN_SAMPLE_INTERVAL_S`."""
        now = self._clock()
        with self._lock:
            if self._last is not None and now - self._last[0] < MIN_SAMPLE_INTERVAL_S:
                return self._last[1], self._last[2]
            sample = self._sampler.sample()
            channels = sample.channels(per_core=False)
            if math.isfinite(channels.get("cpu.percent", math.nan)):
                self._last = (now, sample, channels)
            return sample, channels

    def describe(self) -> list[Any]:
        return []  # unchecked collector: metrics depend on the GPUs present

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        sample, channels = self._sample()
        info = GaugeMetricFamily("desktopapp_host_info", "this host (value 1)", labels=["hostname"])
        info.add_metric([self._hostname], 1.0)
        yield info
        total = getattr(sample.memory, "total_bytes", math.nan)
        for channel, name, text in _HOST_METRICS:
            value = channels.get(channel, math.nan)
            if math.isfinite(value):
                yield GaugeMetricFamily(name, text, value=value)
        if isinstance(total, int | float) and math.isfinite(total):
            yield GaugeMetricFamily("desktopapp_memory_total_bytes", "RAM, bytes", value=total)
        for channel, name, text, scale in _GPU_METRICS:
            family = GaugeMetricFamily(name, text, labels=["gpu"])
            for gpu in sample.gpus:
                value = channels.get(f"gpu{gpu.index}.{channel}", math.nan)
                if math.isfinite(value):
                    family.add_metric([str(gpu.index)], value * scale)
            if family.samples:
                yield family


def serve(sampler: Any, address: str) -> tuple[Any, Any, int]:
    """Start the HTTP server in a thread; returns (server, thread, bound port)."""
    from prometheus_client import start_http_server
    from prometheus_client.core import CollectorRegistry

    host, port = parse_address(address)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(SamplerCollector(sampler))
    server, thread = start_http_server(port, addr=host, registry=registry)
    return server, thread, int(server.server_address[1])
