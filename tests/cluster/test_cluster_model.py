"""Pure cluster logic and the Prometheus client's error lines (no Prometheus needed)."""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from desktopapp.devices.cluster import ClusterError, PrometheusClient, read_token_file
from desktopapp.model.cluster import (
    MAX_POINTS_PER_SERIES,
    GpuReading,
    fleet_summary,
    range_step,
    stall_finding,
)
from desktopapp.model.collective import AdvertisedRate, interpret


def test_range_step_keeps_under_the_point_limit() -> None:
    assert range_step(0, 3600, 15) == 15
    week = 7 * 86400
    step = range_step(0, week, 15)
    assert week / step + 1 <= MAX_POINTS_PER_SERIES
    assert week / (step - 1) + 1 > MAX_POINTS_PER_SERIES  # and not coarser than needed
    with pytest.raises(ValueError, match="range"):
        range_step(10, 10, 15)
    with pytest.raises(ValueError, match="step"):
        range_step(0, 10, 0)


def _gpu(util: float, **kw: object) -> GpuReading:
    return GpuReading(node="n1", gpu="0", util=util, **kw)  # type: ignore[arg-type]


def test_fleet_summary_counts_and_cost() -> None:
    gpus = [_gpu(90), _gpu(2), _gpu(0), _gpu(math.nan), _gpu(50, reachable=False)]
    fleet = fleet_summary(gpus, price_per_gpu_hour=2.5)
    assert (fleet.busy, fleet.idle, fleet.unreachable) == (1, 2, 2)
    assert fleet.idle_cost_per_hour == pytest.approx(5.0)
    assert fleet.idle_cost_per_month == pytest.approx(5.0 * 730)
    with pytest.raises(ValueError, match="price_per_gpu_hour"):
        fleet_summary(gpus, price_per_gpu_hour=-1)


def test_stall_rule() -> None:
    busy = _gpu(85, gpu_util_percent=100, sm_active=0.85, power_w=600, power_limit_w=700)
    assert stall_finding(busy) is None
    sm_low = _gpu(10, gpu_util_percent=100, sm_active=0.10)
    assert "SM active 10% against GPU util 100%" in (stall_finding(sm_low) or "")
    power_low = _gpu(95, gpu_util_percent=95, power_w=80, power_limit_w=700)
    assert "power 80 W of a 700 W limit" in (stall_finding(power_low) or "")
    assert stall_finding(_gpu(30, gpu_util_percent=30, sm_active=0.01)) is None  # util not high


def test_interpretation_nvls_and_per_nic() -> None:
    nvlink = AdvertisedRate(450e9, "NVLink 4", "test")
    lines = interpret([("all_reduce", 1 << 30, 480e9)], nodes=1, gpus_per_node=8, advertised=nvlink)
    assert "NVLS" in lines[0] and "107%" in lines[0]
    lines = interpret([("all_reduce", 1 << 30, 300e9)], nodes=1, gpus_per_node=8, advertised=nvlink)
    assert "above the wire rate" not in lines[0]
    lines = interpret([("all_reduce", 1 << 30, 900e9)], nodes=1, gpus_per_node=8, advertised=nvlink)
    assert "above what even in-network reduction allows" in lines[0]
    lines = interpret([("all_reduce", 1 << 30, 45e9)], nodes=4, gpus_per_node=8, nics_per_node=4)
    assert any("per NIC 720 Gbit/s" in line for line in lines)


class _Refuse(BaseHTTPRequestHandler):
    seen: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Refuse.seen.append(self.headers.get("Authorization", ""))
        self.send_response(401)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def refusing_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refuse)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_auth_error_is_one_line_without_the_token(refusing_server: str, tmp_path: Path) -> None:
    secret = "s3cr3t-token-value"
    token_file = tmp_path / "token"
    token_file.write_text(secret + "\n")
    client = PrometheusClient(refusing_server, read_token_file(token_file))
    with pytest.raises(ClusterError) as info:
        client.query("up")
    text = str(info.value)
    assert "HTTP 401" in text and "token" in text and secret not in text and "\n" not in text
    assert _Refuse.seen[-1] == f"Bearer {secret}"
    assert secret not in repr(client)


def test_token_file_problems_name_the_option(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="token_file"):
        read_token_file(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.write_text("\n")
    with pytest.raises(ValueError, match="token_file"):
        read_token_file(empty)


def test_exporter_address_defaults_to_loopback() -> None:
    from desktopapp.devices.exporter import parse_address

    assert parse_address("9101") == ("127.0.0.1", 9101)
    assert parse_address(":9101") == ("127.0.0.1", 9101)
    assert parse_address("0.0.0.0:9101") == ("0.0.0.0", 9101)
    with pytest.raises(ValueError, match="serve_metrics"):
        parse_address("host:http")
    with pytest.raises(ValueError, match="serve_metrics"):
        parse_address("host:70000")


def test_scrapes_close_together_reuse_the_last_complete_sample() -> None:
    """Two scrapes in the same kernel clock tick would measure no CPU time: the exporter's CPU
    series dropped out of a scrape (seen in CI under load). A scrape within the minimum interval
    of the last complete sample gets that sample; a warm-up sample (CPU % unknown) is never
    reused."""
    import math
    from types import SimpleNamespace

    from desktopapp.devices.exporter import MIN_SAMPLE_INTERVAL_S, SamplerCollector

    readings = iter([math.nan, 37.0, 52.0])  # NaN: the first reading has no predecessor

    class Sampler:
        calls = 0

        def sample(self) -> SimpleNamespace:
            Sampler.calls += 1
            cpu = next(readings)
            return SimpleNamespace(
                channels=lambda per_core=False: {"cpu.percent": cpu, "mem.used": 1e9},
                memory=SimpleNamespace(total_bytes=4e9),
                gpus=(),
            )

    now = [100.0]
    collector = SamplerCollector(Sampler(), clock=lambda: now[0])

    def cpu_metric() -> float | None:
        for family in collector.collect():
            if family.name == "desktopapp_cpu_utilization_percent":
                return float(family.samples[0].value)
        return None

    assert cpu_metric() is None  # the first reading has no predecessor
    now[0] += 0.01
    assert cpu_metric() == 37.0 and Sampler.calls == 2  # the warm-up sample was not reused
    now[0] += 0.01
    assert cpu_metric() == 37.0 and Sampler.calls == 2  # same tick: the last sample again
    now[0] += MIN_SAMPLE_INTERVAL_S
    assert cpu_metric() == 52.0 and Sampler.calls == 3


def test_serve_metrics_binds_loopback_and_stops(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import urllib.request

    env = dict(os.environ, DESKTOPAPP_HOME=str(tmp_path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktopapp", "monitor", "--serve-metrics", "0", "--duration", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("serving http://127.0.0.1:"), line + (proc.stderr.read() or "")
        url = line.split()[1]
        with urllib.request.urlopen(url, timeout=5) as reply:
            text = reply.read().decode()
        assert "desktopapp_host_info" in text and "desktopapp_memory_used_bytes" in text
        proc.terminate()  # SIGTERM ends it cleanly, like Ctrl-C
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
