"""``cluster --prometheus`` against slow, endless and hostile loopback servers: one line on
stderr within --timeout-s + 1 s, memory bounded, server text never echoed beyond a short
sanitized excerpt, odd but valid JSON handled, readings outside physical ranges marked
"implausible", bad URLs and token files refused in one line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from desktopapp.cli import run_command
from desktopapp.devices.cluster import ClusterError, PrometheusClient, collect

Behaviour = Callable[[socket.socket, threading.Event], None]


class Server:
    """A loopback TCP server that answers every connection with ``behaviour``."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.stop = threading.Event()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.behaviour = behaviour
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data and len(data) < 65536:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                data += chunk
            self.behaviour(conn, self.stop)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.sock.close()


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], Server]]:
    servers: list[Server] = []

    def start(behaviour: Behaviour) -> Server:
        servers.append(Server(behaviour))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def _reply(body: bytes | str, status: str = "200 OK", ctype: str = "application/json") -> Behaviour:
    raw = body.encode() if isinstance(body, str) else body

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            f"HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {len(raw)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + raw
        )

    return behaviour


def _slow_headers(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    while not stop.wait(0.05):
        conn.sendall(b"X-Slow: a\r\n")


def _slow_body(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n")
    conn.sendall(b'{"status": "success", "data": {"resultType": "vector", "result": [')
    while not stop.wait(0.05):
        conn.sendall(b" ")


def _endless(conn: socket.socket, stop: threading.Event) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")
    block = b"1," * 32768
    while not stop.is_set():
        conn.sendall(block)


def _vector(rows: list[tuple[dict[str, str], str]]) -> str:
    return json.dumps(
        {
            "status": "success",
            "data": {
                "resultType": "vector",
                "result": [{"metric": m, "value": [1.0, v]} for m, v in rows],
            },
        }
    )


def _cli(*args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """Run the CLI in a child; returns (result, seconds, the child's peak memory in bytes)."""
    code = (
        "import resource, subprocess, sys, time, json\n"
        "start = time.monotonic()\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "took = time.monotonic() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024\n"
        "print(json.dumps([done.returncode, done.stdout, done.stderr, took, peak]))\n"
    )
    outer = subprocess.run(
        [sys.executable, "-c", code, sys.executable, "-m", "desktopapp", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    rc, out, err, took, peak = json.loads(outer.stdout)
    return subprocess.CompletedProcess(args, rc, out, err), took, peak


def _one_line(text: str) -> bool:
    return len(text.strip().splitlines()) == 1 and "Traceback" not in text


@pytest.mark.parametrize(
    "behaviour", [_slow_headers, _slow_body, _endless], ids=lambda f: f.__name__.lstrip("_")
)
def test_slow_or_endless_server_is_bounded_in_time_and_memory(behaviour, serve):
    server = serve(behaviour)
    result, took, peak = _cli("cluster", "--prometheus", server.url, "--once", "--timeout-s", "2")
    assert result.returncode == 1 and _one_line(result.stderr), result.stderr
    # The startup of the child is inside `took`; the read itself is bounded by the deadline.
    assert took < 2 + 1 + 2.5, f"took {took:.1f} s"
    assert peak < 200 * 2**20, f"peak memory {peak / 2**20:.0f} MiB"


def test_deadline_covers_a_trickled_body_in_process(serve):
    server = serve(_slow_body)
    client = PrometheusClient(server.url, timeout_s=1.0)
    start = time.monotonic()
    with pytest.raises(ClusterError, match="within --timeout-s 1 s"):
        collect(client)
    assert time.monotonic() - start < 1.0 + 1.0


HOSTILE_REPLIES = {
    "data list": _reply('{"status": "success", "data": []}'),
    "data null": _reply('{"status": "success", "data": null}'),
    "result number": _reply('{"status": "success", "data": {"result": 5}}'),
    "top list": _reply("[1, 2, 3]"),
    "deep": _reply("[" * 100_000 + "]" * 100_000),
    "html": _reply("<html>" + "x\n" * 50 + "</html>", ctype="text/html"),
    "error 50 lines": _reply(
        json.dumps({"status": "error", "error": "\x1b[31mred\n" * 50}), status="400 Bad Request"
    ),
    "error 50k": _reply(json.dumps({"status": "error", "error": "E" * 50_000})),
    "bad status line": lambda conn, stop: conn.sendall(b"NOT HTTP\r\n\r\n"),
    "many headers": lambda conn, stop: conn.sendall(
        b"HTTP/1.1 200 OK\r\n" + b"X-A: b\r\n" * 500 + b"\r\n"
    ),
    "nan constant": _reply('{"status": "success", "data": {"result": [NaN]}}'),
    "content length huge": lambda conn, stop: conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n"
    ),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_REPLIES))
def test_hostile_reply_is_one_short_sanitized_line(name, serve, capsys):
    server = serve(HOSTILE_REPLIES[name])
    code = run_command(["cluster", "--prometheus", server.url, "--once", "--timeout-s", "3"])
    captured = capsys.readouterr()
    assert code == 1, captured
    assert _one_line(captured.err), captured.err
    assert "\x1b" not in captured.err and len(captured.err) < 400


def test_escape_sequences_in_labels_never_reach_the_terminal(serve, capsys):
    labels = {"Hostname": "node\x1b]0;pwned\x07-1", "gpu": "0\x1b[2J", "pod": "p\u202eod"}
    server = serve(_reply(_vector([(labels, "50")])))
    code = run_command(["cluster", "--prometheus", server.url, "--once"])
    out = capsys.readouterr().out
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "node]0;pwned-1" in out


@pytest.mark.parametrize("value", ["-50", "250", "700"])
def test_utilization_outside_0_to_100_is_marked_implausible(value, serve, capsys):
    server = serve(_reply(_vector([({"Hostname": "n1", "gpu": "0"}, value)])))
    code = run_command(["cluster", "--prometheus", server.url, "--once", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    gpu = doc["gpus"][0]
    assert gpu["util"] is None and "util" in gpu["implausible"]
    assert doc["fleet"]["implausible"] == 1 and doc["fleet"]["busy"] == 0
    assert any("implausible" in p for p in doc["problems"])


def test_text_view_says_implausible(serve, capsys):
    server = serve(_reply(_vector([({"Hostname": "n1", "gpu": "0"}, "250")])))
    run_command(["cluster", "--prometheus", server.url, "--once"])
    out = capsys.readouterr().out
    assert "implausible" in out and "250 %" not in out


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:99999",
        "http://127.0.0.1:abc",
        "http://127.0.0.1:-1",
        "http://exa mple:9090",
        "http://example:9090\nHost: evil",
        "http://" + "a" * 50_000,
        "ftp://example",
        "http://",
        "",
        "http://example:9090/?query=up",
    ],
)
def test_bad_url_is_one_line_naming_the_option(url, capsys):
    code = run_command(["cluster", "--prometheus", url, "--once"])
    err = capsys.readouterr().err
    assert code == 2 and _one_line(err) and "--prometheus" in err
    assert len(err) < 300


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_token_file_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "token"
    os.mkfifo(fifo)
    result, _, _ = _cli(
        "cluster", "--prometheus", "http://127.0.0.1:9", "--once", "--token-file", str(fifo)
    )
    assert result.returncode == 2 and "not a regular file" in result.stderr


def test_token_file_dev_zero_is_refused_unread(tmp_path):
    link = tmp_path / "token"
    link.symlink_to("/dev/zero")
    result, _, peak = _cli(
        "cluster", "--prometheus", "http://127.0.0.1:9", "--once", "--token-file", str(link)
    )
    assert result.returncode == 2 and "--token-file" in result.stderr
    assert peak < 200 * 2**20


def test_token_file_too_large_is_refused(tmp_path, capsys):
    token = tmp_path / "token"
    token.write_bytes(b"t" * (1 << 20))
    code = run_command(
        ["cluster", "--prometheus", "http://127.0.0.1:9", "--once", "--token-file", str(token)]
    )
    assert code == 2 and "--token-file" in capsys.readouterr().err
