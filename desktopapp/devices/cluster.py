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
import http.client
import json
import math
import socket
import threading
import time
import unicodedata
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktopapp.devices.bounded_read import read_bounded
from desktopapp.model.cluster import (
    IDLE_BELOW_PERCENT,
    PLAUSIBLE,
    FleetSummary,
    GpuReading,
    diagnose_group,
    fleet_summary,
    is_idle,
    plausible,
    range_step,
    stall_finding,
)
from desktopapp.model.validation import InputError

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


TOKEN_FILE_MAX_BYTES = 64 * 1024
MAX_RESPONSE_BYTES = 32 * 1024 * 1024  # a range query of 11,000 points × 100s of series fits
MAX_URL_CHARS = 2048
EXCERPT_CHARS = 120
MAX_LABEL_CHARS = 200


def excerpt(text: object, limit: int = EXCERPT_CHARS) -> str:
    """A short, printable excerpt of text that came from outside (a server, a URL): control
    and format characters become ``?``, one line, at most ``limit`` characters."""
    clean = "".join(
        ch if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp") else "?"
        for ch in str(text)[: limit + 1]
    )
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def clean_label(text: object) -> str:
    """A label value from the server: control and format characters dropped (an escape
    sequence never reaches the terminal), at most 200 characters."""
    if not isinstance(text, str):
        text = str(text)
    clean = "".join(
        ch for ch in text[: MAX_LABEL_CHARS * 2] if unicodedata.category(ch) not in ("Cc", "Cf")
    )
    return clean[:MAX_LABEL_CHARS]


def read_token_file(path: str | Path) -> str:
    """The bearer token in ``path`` (first line, stripped); InputError naming the option.
    Regular files only (a pipe or ``/dev/zero`` is refused unread), at most 64 KiB."""
    raw = read_bounded(path, TOKEN_FILE_MAX_BYTES, "token_file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("token_file", f"{excerpt(path)} is not UTF-8 text") from None
    lines = text.strip().splitlines()
    token = lines[0].strip() if lines else ""
    if not token:
        raise InputError("token_file", f"{excerpt(path)} is empty")
    if any(not (32 < ord(ch) < 127) for ch in token):
        raise InputError(
            "token_file", "the token's first line holds characters an HTTP header cannot carry"
        )
    return token


def check_url(url: str) -> str:
    """The Prometheus base URL, checked: http or https, a host, a port 1-65535 when given, no
    white space or control characters, no query or fragment. InputError in one line."""
    if not isinstance(url, str) or not url.strip():
        raise InputError("prometheus", "an http:// or https:// URL, got an empty value")
    if len(url) > MAX_URL_CHARS:
        raise InputError("prometheus", f"at most {MAX_URL_CHARS} characters, got {len(url):,}")
    if any(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf") for ch in url):
        raise InputError(
            "prometheus", f"must not hold spaces or control characters, got {excerpt(url, 60)!r}"
        )
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        raise InputError(
            "prometheus", f"the port must be a whole number 1-65535, got {excerpt(url, 60)!r}"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            "prometheus", f"an http:// or https:// URL with a host, got {excerpt(url, 60)!r}"
        )
    if port == 0:
        raise InputError("prometheus", f"the port must be 1-65535, got {excerpt(url, 60)!r}")
    if parts.query or parts.fragment:
        raise InputError(
            "prometheus",
            f"the server's address without ?query or #fragment, got {excerpt(url, 60)!r}",
        )
    return url.rstrip("/")


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


class PrometheusClient:
    """``/api/v1/query`` and ``/api/v1/query_range`` over ``http.client`` with bounds.

    - A deadline, not a socket timeout: every request of one read (``collect``) shares
      ``timeout_s``; a watchdog shuts the socket down when it passes, so a server that
      trickles its headers or body byte by byte cannot hold the read longer.
    - At most 32 MiB per answer (``Content-Length`` checked first, then while reading).
    - ``Content-Type`` must be JSON and the JSON must have Prometheus's shape; anything else is
      one line with a short, sanitized excerpt at most.
    - Proxies from the usual environment variables (``http_proxy``, ``https_proxy``,
      ``no_proxy``), as ``urllib`` would.
    """

    def __init__(
        self, url: str, token: str | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> None:
        self.url = check_url(url)
        self._token = token
        self.timeout_s = timeout_s
        self._deadline: float | None = None
        self.skipped = 0  # series of an unexpected shape, left out

    def __repr__(self) -> str:  # never the token
        return f"PrometheusClient({self.url!r}, token={'set' if self._token else 'none'})"

    @contextlib.contextmanager
    def one_read(self) -> Iterator[None]:
        """All requests inside share one deadline of ``timeout_s`` seconds."""
        self._deadline = time.monotonic() + self.timeout_s
        try:
            yield
        finally:
            self._deadline = None

    def _timeout_error(self) -> ClusterError:
        return ClusterError(
            f"Prometheus at {self.url} did not answer in full within --timeout-s "
            f"{self.timeout_s:g} s"
        )

    def _connection(self, target: urllib.parse.SplitResult, timeout: float) -> Any:
        host, port = target.hostname or "", target.port
        proxy = urllib.request.getproxies().get(target.scheme)
        if proxy and not urllib.request.proxy_bypass(host):
            proxy_parts = urllib.parse.urlsplit(proxy if "://" in proxy else f"http://{proxy}")
            if target.scheme == "https":
                conn = http.client.HTTPSConnection(
                    proxy_parts.hostname or "", proxy_parts.port or 8080, timeout=timeout
                )
                conn.set_tunnel(host, port or 443)
                return conn, False
            return (
                http.client.HTTPConnection(
                    proxy_parts.hostname or "", proxy_parts.port or 8080, timeout=timeout
                ),
                True,
            )
        if target.scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout), False
        return http.client.HTTPConnection(host, port, timeout=timeout), False

    def _fetch(self, full_url: str) -> tuple[int, str, bytes]:
        """(status, content type, body) within the deadline and the size cap."""
        deadline = self._deadline or (time.monotonic() + self.timeout_s)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._timeout_error()
        target = urllib.parse.urlsplit(full_url)
        conn, absolute = self._connection(target, remaining)
        expired = threading.Event()
        held: list[socket.socket] = []  # http.client drops conn.sock on "Connection: close"

        def watchdog() -> None:
            expired.set()
            for sock in held or ([conn.sock] if conn.sock is not None else []):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

        timer = threading.Timer(remaining, watchdog)
        timer.daemon = True
        timer.start()
        headers = {"Accept": "application/json", "Connection": "close"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        path = (
            full_url
            if absolute
            else (target.path or "/") + (f"?{target.query}" if target.query else "")
        )
        try:
            conn.connect()
            held.append(conn.sock)
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            length = response.getheader("Content-Length")
            if length and length.strip().isdigit() and int(length) > MAX_RESPONSE_BYTES:
                raise self._too_large()
            body = bytearray()
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise self._too_large()
                if time.monotonic() >= deadline:
                    raise self._timeout_error()
            if expired.is_set():
                raise self._timeout_error()
            return response.status, response.getheader("Content-Type") or "", bytes(body)
        except ClusterError:
            raise
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if expired.is_set() or time.monotonic() >= deadline:
                raise self._timeout_error() from None
            if isinstance(exc, http.client.HTTPException | ValueError):
                raise ClusterError(
                    f"{self.url} did not answer with valid HTTP ({type(exc).__name__})"
                ) from None
            reason = getattr(exc, "strerror", None) or type(exc).__name__
            raise ClusterError(
                f"Prometheus at {self.url} is unreachable ({excerpt(reason, 60)})"
            ) from None
        finally:
            timer.cancel()
            timer.join()
            conn.close()

    def _too_large(self) -> ClusterError:
        return ClusterError(
            f"Prometheus at {self.url} answered with more than {MAX_RESPONSE_BYTES // 2**20} MiB;"
            " refused (narrow the query or check the address)"
        )

    def _get(self, path: str, params: Mapping[str, str]) -> dict[str, Any]:
        query = urllib.parse.urlencode(params)
        status, content_type, body = self._fetch(f"{self.url}{path}?{query}")
        data: Any = None
        kind = content_type.split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            try:
                data = json.loads(body, parse_constant=_no_constant)
            except (ValueError, RecursionError):
                data = None
        if status in (401, 403):
            raise ClusterError(
                f"Prometheus at {self.url} refused access (HTTP {status}): check the bearer "
                "token file"
            )
        if status != 200:
            detail = data.get("error") if isinstance(data, dict) else None
            raise ClusterError(
                f"Prometheus at {self.url} answered HTTP {status}"
                + (f": {excerpt(detail)}" if isinstance(detail, str) and detail else "")
            )
        if data is None:
            shown = ""
            if kind != "application/json":
                shown = f" (Content-Type {excerpt(content_type, 40)!r})"
            raise ClusterError(f"{self.url} did not answer with Prometheus JSON{shown}")
        if not isinstance(data, dict) or data.get("status") != "success":
            error = data.get("error") if isinstance(data, dict) else None
            raise ClusterError(
                "Prometheus query failed: "
                + (excerpt(error) if isinstance(error, str) and error else "unexpected reply")
            )
        inner = data.get("data")
        if not isinstance(inner, dict) or not isinstance(inner.get("result", []), list):
            raise ClusterError(
                f'{self.url} answered with an unexpected shape ("data" is '
                f"{type(inner).__name__}, not Prometheus's result object)"
            )
        return inner

    def _labels(self, item: Mapping[str, Any]) -> dict[str, str] | None:
        metric = item.get("metric", {})
        if not isinstance(metric, dict):
            return None
        return {clean_label(k): clean_label(v) for k, v in list(metric.items())[:64]}

    def query(self, expr: str, at: float | None = None) -> list[Sample]:
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        data = self._get("/api/v1/query", params)
        if data.get("resultType", "vector") != "vector":
            return []
        out = []
        for item in data.get("result", []):
            labels = self._labels(item) if isinstance(item, dict) else None
            try:
                value = _number(item["value"][1])
            except (KeyError, IndexError, TypeError, ValueError):
                labels = None
            if labels is None:
                self.skipped += 1
                continue
            out.append(Sample(labels, value))
        return out

    def query_range(self, expr: str, start: float, end: float, step_s: float) -> list[Series]:
        step = range_step(start, end, step_s)
        data = self._get(
            "/api/v1/query_range",
            {"query": expr, "start": f"{start:.3f}", "end": f"{end:.3f}", "step": f"{step:g}"},
        )
        if data.get("resultType", "matrix") != "matrix":
            return []
        out = []
        for item in data.get("result", []):
            labels = self._labels(item) if isinstance(item, dict) else None
            try:
                points = [(_number(t), _number(v)) for t, v in item.get("values", [])]
            except (TypeError, ValueError, AttributeError):
                labels = None
            if labels is None:
                self.skipped += 1
                continue
            out.append(Series(labels, tuple(t for t, _ in points), tuple(v for _, v in points)))
        return out


def _number(text: object) -> float:
    """A sample value or time as Prometheus writes it (a string, "NaN", "+Inf") or a number."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise TypeError("not a number")
    if isinstance(text, str) and len(text) > 64:
        raise ValueError("too long")
    return float(text)


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
                    "implausible": list(g.implausible),
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
    out = []
    for node, e in sorted(readings.items()):
        values = {
            key: e.get(key, NAN)
            for key in (
                "cpu_percent",
                "memory_used_bytes",
                "memory_total_bytes",
                "network_rx_bytes_s",
                "network_tx_bytes_s",
            )
        }
        _implausible(node, values, problems)
        out.append(
            NodeReading(
                node=node,
                source=e.get("source", "").strip("+"),
                reachable=e.get("reachable", True),
                **values,
            )
        )
    return out


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
        readings = {
            "util": headline if reachable else NAN,
            "memory_used_bytes": value(metrics["fb_used"], MIB),  # DCGM reports MiB
            "memory_free_bytes": value(metrics["fb_free"], MIB),
            "power_w": value(metrics["power"]),
            "power_limit_w": value(metrics["limit"]),
            "temperature_c": value(metrics["temp"]),
            "sm_active": sm_active,
            "gpu_util_percent": gpu_util,
            "tensor_active": value(metrics["tensor"]),
        }
        odd = _implausible(f"{key[0]} GPU {key[1]}", readings, problems)
        out.append(
            GpuReading(
                node=key[0],
                gpu=key[1],
                model=labels.get("modelName", ""),
                pod=labels.get("pod", "") or labels.get("exported_pod", ""),
                namespace=labels.get("namespace", "") or labels.get("exported_namespace", ""),
                job=labels.get("job", ""),
                reachable=reachable,
                implausible=odd,
                **readings,
            )
        )
    return out, source


def _implausible(who: str, readings: dict[str, float], problems: list[str]) -> tuple[str, ...]:
    """Readings outside their physical range (``model.cluster.PLAUSIBLE``) become NaN, are
    named in ``problems`` and returned; they are never shown or counted as real."""
    odd = []
    for name, reading in readings.items():
        if not plausible(name, reading):
            low, high = PLAUSIBLE[name]
            problems.append(
                f"{who}: {name} = {reading:.4g} is implausible (physical range {low:g} to "
                f"{high:g}); not shown"
            )
            readings[name] = NAN
            odd.append(name)
    return tuple(odd)


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
    with client.one_read():
        return _collect(client, price_per_gpu_hour, idle_below_percent, lookback_s, heat_map_step_s)


def _collect(
    client: PrometheusClient,
    price_per_gpu_hour: float,
    idle_below_percent: float,
    lookback_s: float,
    heat_map_step_s: float,
) -> ClusterSnapshot:
    problems: list[str] = []
    client.skipped = 0
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
    if client.skipped:
        problems.append(
            f"{client.skipped} series of an unexpected shape in the server's answers were left out"
        )
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
