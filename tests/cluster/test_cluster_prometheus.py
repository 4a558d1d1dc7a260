"""End to end with real components: Prometheus ← node-exporter, desktopapp exporter, DCGM
recording; read back through ``desktopapp cluster``."""

from __future__ import annotations

import json
import socket
import urllib.request

import pytest

from tests.cluster.conftest import Stack, run_cli


@pytest.fixture(scope="module")
def cluster_json(prometheus_stack: Stack) -> dict:
    result = run_cli(
        "cluster",
        "--prometheus",
        prometheus_stack.prometheus_url,
        "--once",
        "--json",
        "--price-per-gpu-hour",
        "3",
    )
    assert result.returncode == 0, result.stderr
    data: dict = json.loads(result.stdout)
    return data


def test_gpus_from_the_dcgm_recording(cluster_json: dict) -> None:
    gpus = {(g["node"], g["gpu"]): g for g in cluster_json["gpus"]}
    assert set(gpus) == {("gpu-node-01", "0"), ("gpu-node-01", "1"), ("gpu-node-02", "0")}
    busy = gpus[("gpu-node-01", "0")]
    assert cluster_json["metric_source"] == "DCGM_FI_PROF_SM_ACTIVE"
    assert busy["util"] == pytest.approx(82.0)  # SM active 0.82, as a percentage
    assert busy["memory_used_bytes"] == 61440 * 1024**2  # DCGM reports MiB
    assert busy["power_w"] == pytest.approx(612.5)
    assert busy["pod"] == "llama-pretrain-0" and busy["namespace"] == "research"
    assert busy["idle"] is False
    assert gpus[("gpu-node-01", "1")]["idle"] is True


def test_fleet_summary_and_idle_cost(cluster_json: dict) -> None:
    fleet = cluster_json["fleet"]
    # gpu-node-02 GPU 0: SM active 8% is busy above the 5% idle line; GPU 1 of node 01 idle
    assert (fleet["busy"], fleet["idle"], fleet["unreachable"]) == (2, 1, 0)
    assert cluster_json["idle_cost_per_hour"] == pytest.approx(3.0)
    assert cluster_json["idle_cost_per_month"] == pytest.approx(3.0 * 730)


def test_stall_rule_fires_on_the_stalled_gpu_only(cluster_json: dict) -> None:
    stalls = [d for d in cluster_json["diagnosis"] if "communication stall" in d]
    assert len(stalls) == 1
    assert stalls[0].startswith("gpu-node-02 GPU 0")
    assert any(d.startswith("node gpu-node-01") for d in cluster_json["diagnosis"])


def test_host_metrics_from_node_exporter_and_desktopapp(cluster_json: dict) -> None:
    host = socket.gethostname()
    nodes = {n["node"]: n for n in cluster_json["nodes"]}
    assert host in nodes, nodes.keys()
    here = nodes[host]
    assert set(here["source"].split("+")) == {"node-exporter", "desktopapp"}
    assert 0.0 <= here["cpu_percent"] <= 100.0
    assert 0 < here["memory_used_bytes"] < here["memory_total_bytes"]


def test_heat_map_series_respect_the_step(cluster_json: dict) -> None:
    heat = cluster_json["heat_map"]
    assert heat["metric"] == "DCGM_FI_PROF_SM_ACTIVE"
    assert len(heat["series"]) == 3
    for series in heat["series"]:
        assert len(series["values"]) <= 11_000


def test_desktopapp_exporter_names(prometheus_stack: Stack) -> None:
    with urllib.request.urlopen(f"http://{prometheus_stack.desktopapp}/metrics", timeout=5) as r:
        text = r.read().decode()
    names = {line.split("{")[0].split(" ")[0] for line in text.splitlines() if line[:1] != "#"}
    assert "desktopapp_cpu_utilization_percent" in names
    assert "desktopapp_memory_used_bytes" in names
    assert all(n.startswith("desktopapp_") for n in names if n)


def test_missing_metric_is_one_line(prometheus_stack: Stack) -> None:
    from desktopapp.devices.cluster import PrometheusClient, collect

    class OnlyHosts(PrometheusClient):
        def query(self, expr: str, at: float | None = None) -> list:  # type: ignore[override]
            return [] if "DCGM" in expr else super().query(expr, at)

    snap = collect(OnlyHosts(prometheus_stack.prometheus_url))
    assert snap.gpus == () and snap.metric_source == ""
    assert any(p.startswith("DCGM_FI_DEV_GPU_UTIL: no series") for p in snap.problems)


def test_unreachable_server_is_one_line() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    result = run_cli("cluster", "--prometheus", f"http://127.0.0.1:{port}", "--once", "--json")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "unreachable" in lines[0] and "Traceback" not in result.stderr


def test_text_output(prometheus_stack: Stack) -> None:
    result = run_cli("cluster", "--prometheus", prometheus_stack.prometheus_url, "--once")
    assert result.returncode == 0, result.stderr
    assert "2 busy, 1 idle, 0 unreachable GPUs" in result.stdout
    assert "utilization from DCGM_FI_PROF_SM_ACTIVE" in result.stdout
    assert "communication stall" in result.stdout


def test_watching_an_unreachable_server_says_it_tries_again(monkeypatch, capsys) -> None:
    """Without --once the view keeps refreshing: a read that fails is a line saying when the
    next one comes, not an error that reads as the end."""
    import argparse

    from desktopapp.commands import cluster

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    waits: list[float] = []

    class Stop(Exception):
        pass

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        if len(waits) == 2:
            raise Stop

    monkeypatch.setattr(cluster.time, "sleep", sleep)
    args = argparse.Namespace(
        prometheus=f"http://127.0.0.1:{port}",
        token_file=None,
        once=False,
        interval=30.0,
        price_per_gpu_hour=2.0,
        idle_below=5.0,
        timeout_s=2.0,
        json=False,
    )
    with pytest.raises(Stop):
        cluster.run(args)
    lines = capsys.readouterr().err.strip().splitlines()
    assert waits == [30.0, 30.0]
    assert len(lines) == 2
    for line in lines:
        assert line.startswith(f"desktopapp cluster: Prometheus at http://127.0.0.1:{port}")
        assert "unreachable" in line and line.endswith("trying again in 30 s (Ctrl-C stops)")
        assert "error" not in line
