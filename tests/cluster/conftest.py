"""A real Prometheus on loopback, scraping a real node-exporter, ``desktopapp monitor
--serve-metrics`` and a local HTTP server playing a recorded DCGM-exporter exposition.

Skips (with the reason) when the ``prometheus`` or ``prometheus-node-exporter`` binaries are
missing (scripts/setup.sh installs Debian's packages when it runs as root). Every wait is
bounded; every process is killed in teardown; everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "dcgm_exporter.prom"
READY_TIMEOUT_S = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _binary(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name) or (
            f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None
        )
        if found:
            return found
    return None


class _DcgmHandler(BaseHTTPRequestHandler):
    body = FIXTURE.read_bytes()

    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/metrics":
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: object) -> None:
        return


class _QuietServer(ThreadingHTTPServer):
    """Prometheus may drop a scrape mid-answer (its timeout under load): that is not an error
    worth a traceback on stderr, which would land in whatever test captures stderr then."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        return


@dataclass(frozen=True)
class Stack:
    prometheus_url: str
    node_exporter: str
    desktopapp: str
    dcgm: str
    started_s: float  # seconds until every target was up


def _wait_targets_up(url: str, expected: int, deadline: float) -> None:
    last = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/api/v1/targets", timeout=2) as r:
                data = json.load(r)
            active = data["data"]["activeTargets"]
            up = [t for t in active if t.get("health") == "up"]
            last = ", ".join(f"{t['labels'].get('job')}={t.get('health')}" for t in active)
            if len(up) >= expected:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.3)
    raise TimeoutError(f"Prometheus targets not all up in time: {last or 'no answer'}")


def _wait_query(url: str, expr: str, deadline: float) -> None:
    query = urllib.parse.urlencode({"query": expr})
    while time.monotonic() < deadline:
        with (
            contextlib.suppress(OSError, ValueError, KeyError),
            urllib.request.urlopen(f"{url}/api/v1/query?{query}", timeout=2) as r,
        ):
            if json.load(r)["data"]["result"]:
                return
        time.sleep(0.3)
    raise TimeoutError(f"no result for {expr} in time")


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture(scope="package")  # stopped once the cluster tests are done
def prometheus_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    prom = _binary("prometheus")
    node = _binary("prometheus-node-exporter", "node_exporter")
    if prom is None or node is None:
        missing = [
            n for n, b in (("prometheus", prom), ("prometheus-node-exporter", node)) if not b
        ]
        pytest.skip(
            f"{' and '.join(missing)} not installed (scripts/setup.sh installs Debian's "
            "packages when run as root)"
        )
    tmp = tmp_path_factory.mktemp("prometheus")
    ports = {name: _free_port() for name in ("prom", "node", "ours", "dcgm")}
    dcgm_server = _QuietServer(("127.0.0.1", ports["dcgm"]), _DcgmHandler)
    threading.Thread(target=dcgm_server.serve_forever, daemon=True).start()
    config = tmp / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n  evaluation_interval: 1s\n"
        "scrape_configs:\n"
        f"  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:{ports['node']}']\n"
        f"  - job_name: desktopapp\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{ports['ours']}']\n"
        f"  - job_name: dcgm\n    static_configs:\n"
        f"      - targets: ['127.0.0.1:{ports['dcgm']}']\n",
        encoding="utf-8",
    )
    procs: list[subprocess.Popen[bytes]] = []
    logs = []
    start = time.monotonic()
    try:
        for name, command in (
            (
                "node-exporter",
                [
                    node,
                    f"--web.listen-address=127.0.0.1:{ports['node']}",
                    "--collector.disable-defaults",
                    "--collector.cpu",
                    "--collector.meminfo",
                    "--collector.netdev",
                    "--collector.uname",
                ],
            ),
            (
                "desktopapp",
                [
                    sys.executable,
                    "-m",
                    "desktopapp",
                    "monitor",
                    "--serve-metrics",
                    f"127.0.0.1:{ports['ours']}",
                ],
            ),
            (
                "prometheus",
                [
                    prom,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp / 'data'}",
                    f"--web.listen-address=127.0.0.1:{ports['prom']}",
                    "--log.level=warn",
                ],
            ),
        ):
            log = open(tmp / f"{name}.log", "wb")  # noqa: SIM115 (closed in teardown)
            logs.append(log)
            procs.append(
                subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            )
        url = f"http://127.0.0.1:{ports['prom']}"
        deadline = time.monotonic() + READY_TIMEOUT_S
        try:
            _wait_targets_up(url, 3, deadline)
            # rate() over [1m] needs two scrapes of node-exporter.
            _wait_query(url, 'rate(node_cpu_seconds_total{mode="idle"}[1m])', deadline)
        except TimeoutError as exc:
            tails = {p.name: p.read_text(errors="replace")[-400:] for p in tmp.glob("*.log")}
            pytest.fail(f"{exc}; logs: {tails}")
        yield Stack(
            url,
            f"127.0.0.1:{ports['node']}",
            f"127.0.0.1:{ports['ours']}",
            f"127.0.0.1:{ports['dcgm']}",
            time.monotonic() - start,
        )
    finally:
        _stop(procs)
        dcgm_server.shutdown()
        dcgm_server.server_close()
        for log in logs:
            log.close()


def run_cli(*args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "desktopapp", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
