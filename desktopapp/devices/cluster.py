"""Cluster telemetry from a Prometheus server's HTTP API (no Qt).

:class:`PrometheusClient` speaks ``/api/v1/query`` and ``/api/v1/query_range`` with ``urllib``
from the standard library: two GET endpoints returning JSON need no extra dependency, and
``urllib`` honours the usual proxy variables. :func:`collect` reads DCGM-exporter GPU metrics and
node-exporter (or ``desktopapp monitor --serve-metrics``) host metrics into a
:class:`ClusterSnapshot`.

Failures become :class:`ClusterError` with one line: server unreachable, authentication
refused, bad query. A missing metric is a line in ``problems``. The bearer token is read from a
file, sent only in the ``Authorization`` header and never appears in messages or ``repr``.
"""

from __future__ import annotations

import contextlib
import json
import math
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktopapp.model.cluster import (
    IDLE_BELOW_PERCENT,
    FleetSummary,
    GpuReading,
    diagnose_group,
    fleet_summary,
    is_idle,
    range_step,
    stall_finding,
)

NAN = math.nan
DEFAULT_TIMEOUT_S = 5.0
SM_SOURCES: tuple[str, ...] = (
    "DCGM_FI_PROF_SM_ACTIVE",
    "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
    "DCGM_FI_DEV_GPU_UTIL",
)
MIB = 1024**2


class ClusterError(RuntimeError):
    """Prometheus cannot be used; the message is one line saying why and what to do."""


@dataclass(frozen=True)
class Sample:
    labels: Mapping[str, str]
    value: float


@dataclass(frozen=True)
class Series:
    labels: Mapping[str, str]
    times: tuple[float, ...]
    values: tuple[float, ...]


def read_token_file(path: str | Path) -> str:
    """The bearer token in ``path`` (first line, stripped); ValueError naming the option."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"token_file: cannot read {path} ({exc.strerror or exc})") from None
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise ValueError(f"token_file: {path} is empty")
    return token


def check_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValueError(f"prometheus: an http:// or https:// URL, got {url[:80]!r}")
    return url.rstrip("/")


class PrometheusClient:
    def __init__(
        self, url: str, token: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        self.url = check_url(url)
        self._token = token
        self.timeout_s = timeout_s

    def __repr__(self) -> str:  # never the token
        return f"PrometheusClient({self.url!r}, token={'set' if self._token else 'none'})"

    def _get(self, path: str, params: Mapping[str, str]) -> Any:
        query = urllib.parse.urlencode(params)
        request = urllib.request.Request(f"{self.url}{path}?{query}")
        request.add_header("Accept", "application/json")
        if self._token:
            request.add_header("Authorization", f"Bearer {self._token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                body = response.read()
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise ClusterError(
                    f"Prometheus at {self.url} refused access (HTTP {exc.code}): check the "
                    "bearer token file"
                ) from None
            detail = ""
            with contextlib.suppress(ValueError, OSError, AttributeError):
                detail = str(json.loads(exc.read()).get("error", ""))
            raise ClusterError(
                f"Prometheus at {self.url} answered HTTP {exc.code}"
                + (f": {detail}" if detail else "")
            ) from None
        except urllib.error.URLError as exc:
            raise ClusterError(f"Prometheus at {self.url} is unreachable ({exc.reason})") from None
        except (TimeoutError, OSError) as exc:
            raise ClusterError(
                f"Prometheus at {self.url} is unreachable ({type(exc).__name__}: {exc})"
            ) from None
        try:
            data = json.loads(body)
        except ValueError:
            raise ClusterError(f"{self.url} did not answer with Prometheus JSON") from None
        if not isinstance(data, dict) or data.get("status") != "success":
            error = data.get("error", "unknown error") if isinstance(data, dict) else "bad reply"
            raise ClusterError(f"Prometheus query failed: {error}")
        return data.get("data", {})

    def query(self, expr: str, at: float | None = None) -> list[Sample]:
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        data = self._get("/api/v1/query", params)
        out = []
        for item in data.get("result", []):
            try:
                value = float(item["value"][1])
            except (KeyError, IndexError, TypeError, ValueError):
                continue
            out.append(Sample(dict(item.get("metric", {})), value))
        return out

    def query_range(self, expr: str, start: float, end: float, step_s: float) -> list[Series]:
        step = range_step(start, end, step_s)
        data = self._get(
            "/api/v1/query_range",
            {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"},
        )
        out = []
        for item in data.get("result", []):
            points = item.get("values", [])
            out.append(
                Series(
                    dict(item.get("metric", {})),
                    tuple(float(t) for t, _ in points),
                    tuple(float(v) for _, v in points),
                )
            )
        return out


@dataclass(frozen=True)
class NodeReading:
    node: str
    cpu_percent: float = NAN
    memory_used_bytes: float = NAN
    memory_total_bytes: float = NAN
    network_rx_bytes_s: float = NAN
    network_tx_bytes_s: float = NAN
    source: str = ""  # "node-exporter" or "desktopapp"
    reachable: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "cpu_percent": _num(self.cpu_percent),
            "memory_used_bytes": _num(self.memory_used_bytes),
            "memory_total_bytes": _num(self.memory_total_bytes),
            "network_rx_bytes_per_s": _num(self.network_rx_bytes_s),
            "network_tx_bytes_per_s": _num(self.network_tx_bytes_s),
            "source": self.source,
            "reachable": self.reachable,
        }


def _num(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


@dataclass(frozen=True)
class ClusterSnapshot:
    url: str
    timestamp: float
    nodes: tuple[NodeReading, ...]
    gpus: tuple[GpuReading, ...]
    fleet: FleetSummary
    metric_source: str  # which DCGM metric "util" came from, or "" without GPUs
    problems: tuple[str, ...]
    findings: tuple[str, ...]  # diagnosis per node and job
    heat_map: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "prometheus": self.url,
            "timestamp": self.timestamp,
            "nodes": [n.to_dict() for n in self.nodes],
            "gpus": [
                {
                    "node": g.node,
                    "gpu": g.gpu,
                    "util": _num(g.util),
                    "memory_used_bytes": _num(g.memory_used_bytes),
                    "memory_free_bytes": _num(g.memory_free_bytes),
                    "power_w": _num(g.power_w),
                    "temperature_c": _num(g.temperature_c),
                    "sm_active": _num(g.sm_active),
                    "tensor_active": _num(g.tensor_active),
                    "model": g.model,
                    "pod": g.pod,
                    "namespace": g.namespace,
                    "job": g.job,
                    "idle": is_idle(g, self.fleet.idle_below_percent),
                    "reachable": g.reachable,
                }
                for g in self.gpus
            ],
            "fleet": self.fleet.to_dict(),
            "idle_cost_per_hour": self.fleet.idle_cost_per_hour,
            "idle_cost_per_month": self.fleet.idle_cost_per_month,
            "metric_source": self.metric_source,
            "problems": list(self.problems),
            "diagnosis": list(self.findings),
            "heat_map": dict(self.heat_map),
        }


def _gpu_key(labels: Mapping[str, str]) -> tuple[str, str]:
    node = labels.get("Hostname") or labels.get("instance", "").rsplit(":", 1)[0] or "?"
    return node, labels.get("gpu") or labels.get("UUID", "?")


def _by_gpu(samples: Sequence[Sample]) -> dict[tuple[str, str], Sample]:
    return {_gpu_key(s.labels): s for s in samples}


def _instance_names(client: PrometheusClient) -> dict[str, str]:
    """instance label → host name, from node_uname_info and desktopapp_host_info."""
    names: dict[str, str] = {}
    for expr, label in (("node_uname_info", "nodename"), ("desktopapp_host_info", "hostname")):
        for s in client.query(expr):
            instance = s.labels.get("instance", "")
            if instance and s.labels.get(label):
                names[instance] = s.labels[label]
    return names


def _host(instance: str, names: Mapping[str, str]) -> str:
    return names.get(instance) or instance.rsplit(":", 1)[0]


def _nodes(client: PrometheusClient, problems: list[str]) -> list[NodeReading]:
    names = _instance_names(client)
    readings: dict[str, dict[str, Any]] = {}

    def put(expr: str, key: str, source: str, scale: float = 1.0) -> bool:
        found = client.query(expr)
        for s in found:
            node = _host(s.labels.get("instance", ""), names)
            entry = readings.setdefault(node, {"source": source})
            entry.setdefault(key, s.value * scale)  # node-exporter first, ours as fallback
            if source not in entry["source"].split("+"):
                entry["source"] += "+" + source
        return bool(found)

    node_exporter = put(
        '100 * (1 - avg by (instance) (rate(node_cpu_seconds_total{mode="idle"}[1m])))',
        "cpu_percent",
        "node-exporter",
    )
    put(
        "node_memory_MemTotal_bytes - node_memory_MemAvailable_bytes",
        "memory_used_bytes",
        "node-exporter",
    )
    put("node_memory_MemTotal_bytes", "memory_total_bytes", "node-exporter")
    put(
        'sum by (instance) (rate(node_network_receive_bytes_total{device!="lo"}[1m]))',
        "network_rx_bytes_s",
        "node-exporter",
    )
    put(
        'sum by (instance) (rate(node_network_transmit_bytes_total{device!="lo"}[1m]))',
        "network_tx_bytes_s",
        "node-exporter",
    )
    ours = put("desktopapp_cpu_utilization_percent", "cpu_percent", "desktopapp")
    put("desktopapp_memory_used_bytes", "memory_used_bytes", "desktopapp")
    put("desktopapp_memory_total_bytes", "memory_total_bytes", "desktopapp")
    put("desktopapp_network_receive_bytes_per_second", "network_rx_bytes_s", "desktopapp")
    put("desktopapp_network_transmit_bytes_per_second", "network_tx_bytes_s", "desktopapp")
    if not node_exporter and not ours:
        problems.append(
            "node_cpu_seconds_total: no series on this server (no node-exporter scraped): "
            "no host CPU, memory or network"
        )
    down = {
        _host(s.labels.get("instance", ""), names)
        for s in client.query("up == 0")
        if s.labels.get("instance")
    }
    for node in down:
        readings.setdefault(node, {"source": ""})["reachable"] = False
        problems.append(f"{node}: a scrape target is down (up == 0)")
    return [
        NodeReading(
            node=node,
            cpu_percent=e.get("cpu_percent", NAN),
            memory_used_bytes=e.get("memory_used_bytes", NAN),
            memory_total_bytes=e.get("memory_total_bytes", NAN),
            network_rx_bytes_s=e.get("network_rx_bytes_s", NAN),
            network_tx_bytes_s=e.get("network_tx_bytes_s", NAN),
            source=e.get("source", "").strip("+"),
            reachable=e.get("reachable", True),
        )
        for node, e in sorted(readings.items())
    ]


def _gpus(
    client: PrometheusClient, problems: list[str], lookback: str
) -> tuple[list[GpuReading], str]:
    util = _by_gpu(client.query("DCGM_FI_DEV_GPU_UTIL"))
    source = ""
    sm: dict[tuple[str, str], Sample] = {}
    for name in SM_SOURCES:
        found = _by_gpu(client.query(name))
        if found:
            source, sm = name, found
            break
    if not util and not sm:
        problems.append(
            "DCGM_FI_DEV_GPU_UTIL: no series on this server (is DCGM-exporter scraped?): "
            "no GPU figures"
        )
    elif source != SM_SOURCES[0]:
        problems.append(
            f"DCGM_FI_PROF_SM_ACTIVE: no series; utilization taken from {source} instead"
        )
    metrics = {
        "tensor": _by_gpu(client.query("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE")),
        "fb_used": _by_gpu(client.query("DCGM_FI_DEV_FB_USED")),
        "fb_free": _by_gpu(client.query("DCGM_FI_DEV_FB_FREE")),
        "power": _by_gpu(client.query("DCGM_FI_DEV_POWER_USAGE")),
        "limit": _by_gpu(client.query("DCGM_FI_DEV_POWER_MGMT_LIMIT")),
        "temp": _by_gpu(client.query("DCGM_FI_DEV_GPU_TEMP")),
    }
    # GPUs seen in the look-back window but silent now are unreachable.
    seen = _by_gpu(client.query(f"last_over_time(DCGM_FI_DEV_GPU_UTIL[{lookback}])"))
    keys = sorted(set(util) | set(sm) | set(seen))
    out = []
    for key in keys:
        labels = (util.get(key) or sm.get(key) or seen[key]).labels
        reachable = key in util or key in sm

        def value(table: Mapping[tuple[str, str], Sample], scale: float = 1.0) -> float:
            s = table.get(key)  # noqa: B023  (used at once)
            return s.value * scale if s is not None else NAN

        gpu_util = value(util)
        sm_active = value(sm) if source != "DCGM_FI_DEV_GPU_UTIL" else NAN
        headline = sm_active * 100 if math.isfinite(sm_active) else gpu_util
        out.append(
            GpuReading(
                node=key[0],
                gpu=key[1],
                util=headline if reachable else NAN,
                memory_used_bytes=value(metrics["fb_used"], MIB),  # DCGM reports MiB
                memory_free_bytes=value(metrics["fb_free"], MIB),
                power_w=value(metrics["power"]),
                power_limit_w=value(metrics["limit"]),
                temperature_c=value(metrics["temp"]),
                sm_active=sm_active,
                gpu_util_percent=gpu_util,
                tensor_active=value(metrics["tensor"]),
                model=labels.get("modelName", ""),
                pod=labels.get("pod", "") or labels.get("exported_pod", ""),
                namespace=labels.get("namespace", "") or labels.get("exported_namespace", ""),
                job=labels.get("job", ""),
                reachable=reachable,
            )
        )
    return out, source


def _findings(nodes: Sequence[NodeReading], gpus: Sequence[GpuReading]) -> list[str]:
    """Diagnosis per node and per job (the monitor's rules), then the communication-stall
    rule per GPU."""
    out: list[str] = []
    by_node = {n.node: n for n in nodes}
    groups: dict[str, list[GpuReading]] = {}
    for g in gpus:
        if g.reachable:
            groups.setdefault(f"node {g.node}", []).append(g)
            if g.pod:
                job = f"{g.namespace}/{g.pod}" if g.namespace else g.pod
                groups.setdefault(f"job {job}", []).append(g)
    for name, members in groups.items():
        utils = [g.util for g in members if math.isfinite(g.util)]
        if not utils:
            continue
        node = by_node.get(members[0].node) if name.startswith("node ") else None
        mem = [
            g.memory_used_bytes / (g.memory_used_bytes + g.memory_free_bytes)
            for g in members
            if math.isfinite(g.memory_used_bytes + g.memory_free_bytes)
            and g.memory_used_bytes + g.memory_free_bytes > 0
        ]
        ram = NAN
        if node is not None and node.memory_total_bytes > 0:
            ram = node.memory_used_bytes / node.memory_total_bytes
        out.extend(
            diagnose_group(
                name,
                gpu_util_percent=sum(utils) / len(utils),
                gpu_count=len(members),
                cpu_percent=node.cpu_percent if node is not None else NAN,
                gpu_memory_fraction=max(mem) if mem else NAN,
                ram_fraction=ram,
            )
        )
    for g in gpus:
        finding = stall_finding(g)
        if finding:
            out.append(finding)
    return out


def collect(
    client: PrometheusClient,
    *,
    price_per_gpu_hour: float = 2.0,
    idle_below_percent: float = IDLE_BELOW_PERCENT,
    lookback_s: float = 3600.0,
    heat_map_step_s: float = 60.0,
) -> ClusterSnapshot:
    """Read the cluster now (ClusterError when Prometheus cannot be used)."""
    problems: list[str] = []
    client.query("vector(1)")  # reachability and auth, once, with a clear error
    now = time.time()
    lookback = f"{max(1, int(lookback_s))}s"
    gpus, source = _gpus(client, problems, lookback)
    nodes = _nodes(client, problems)
    fleet = fleet_summary(gpus, price_per_gpu_hour, idle_below_percent)
    heat: dict[str, Any] = {}
    if gpus:
        metric = source or "DCGM_FI_DEV_GPU_UTIL"
        step = range_step(now - lookback_s, now, heat_map_step_s)
        series = client.query_range(metric, now - lookback_s, now, step)
        heat = {
            "metric": metric,
            "step_s": step,
            "series": [
                {
                    "node": _gpu_key(s.labels)[0],
                    "gpu": _gpu_key(s.labels)[1],
                    "times": list(s.times),
                    "values": list(s.values),
                }
                for s in series
            ],
        }
    return ClusterSnapshot(
        url=client.url,
        timestamp=now,
        nodes=tuple(nodes),
        gpus=tuple(gpus),
        fleet=fleet,
        metric_source=source,
        problems=tuple(problems),
        findings=tuple(_findings(nodes, gpus)),
        heat_map=heat,
    )
