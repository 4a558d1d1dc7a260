"""GPU checks as one script: every hardware path of the app on this machine, one JSON summary.

Runs, each as a separate ``desktopapp`` process with its own time limit:

1. ``detect``                       what the app sees (CPU, GPUs, torch, catalog match)
2. ``bench --suite matmul``         peak (best repeat) and sustained (median) TFLOP/s per dtype
3. ``bench --suite bandwidth``      device copy and host↔device rates
4. ``bench --suite amp``            training step per precision at a size that fills the device
5. ``bench --suite memory``         measured peak memory of a training step against the model's
                                    estimate (only where the suite exists in this checkout)
6. ``monitor``                      10 s of samples while a matmul load runs on the device, with
                                    the diagnosis
7. exporter scrape                  ``monitor --serve-metrics`` on loopback, one GET /metrics
8. ``bench --suite allreduce``      collectives over the local GPUs (or Gloo ranks on a CPU)

A step that fails or runs past its limit is recorded (``ok: false`` with the reason) and the
script goes on. The summary is written to ``--out`` (default ``$OUT/gpu_check.json`` where
``$OUT`` is set, else ``gpu_check.json`` in the current folder) and a short human summary is
printed. Results are not saved to the user's results store: the runs use a scratch data folder.

    .venv/bin/python benchmarks/gpu_check.py [--quick] [--device auto|cpu|cuda] [--out FILE]

About 4-6 minutes on an H100/H200 without ``--quick``, about 1 minute with it; the CPU path
with ``--quick`` is what CI runs (tests/devices/test_gpu_check.py).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
STEPS = ("detect", "matmul", "bandwidth", "amp", "memory", "monitor", "exporter", "collectives")

# A matmul load for the monitor step: runs until killed or for the given seconds.
_LOAD = """
import sys, time
import torch
device, seconds, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
a = torch.randn(n, n, device=device, dtype=dtype)
b = torch.randn(n, n, device=device, dtype=dtype)
end = time.monotonic() + seconds
while time.monotonic() < end:
    for _ in range(20):
        c = a @ b
    if device.startswith("cuda"):
        torch.cuda.synchronize()
"""


@dataclass
class Plan:
    device: str
    quick: bool
    nproc: int
    monitor_s: float
    home: str

    @property
    def budget(self) -> str:
        return "0.3" if self.quick else "1"

    def limits(self) -> dict[str, float]:
        """Seconds each step may take before it is stopped."""
        if self.quick:
            return {
                "detect": 60,
                "matmul": 90,
                "bandwidth": 90,
                "amp": 120,
                "memory": 120,
                "monitor": self.monitor_s + 60,
                "exporter": 60,
                "collectives": 120,
            }
        return {
            "detect": 60,
            "matmul": 100,
            "bandwidth": 60,
            "amp": 150,
            "memory": 60,
            "monitor": self.monitor_s + 40,
            "exporter": 40,
            "collectives": 90,
        }


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "desktopapp", *args]


def _env(plan: Plan) -> dict[str, str]:
    env = dict(os.environ)
    env["DESKTOPAPP_HOME"] = plan.home
    env.setdefault("COLUMNS", "100")
    pythonpath = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + pythonpath if pythonpath else "")
    return env


def run_json(cmd: list[str], timeout_s: float, env: dict[str, str]) -> dict[str, Any]:
    """Run ``cmd``; its stdout must be JSON. Raises RuntimeError with the reason otherwise."""
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout_s, env=env, cwd=REPO
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"stopped after its {timeout_s:g} s limit") from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"exit status {proc.returncode}: " + " | ".join(tail))
    try:
        data = json.loads(proc.stdout)
    except json.JSONDecodeError as exc:
        raise RuntimeError(f"output is not JSON ({exc}): {proc.stdout[:200]!r}") from exc
    if not isinstance(data, dict):
        raise RuntimeError("output is JSON but not an object")
    return data


def run_step(name: str, fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """Run one step; never raises. Records ok, seconds and the error in words."""
    start = time.monotonic()
    try:
        body = fn()
        record: dict[str, Any] = {"ok": True, **body}
    except Exception as exc:  # a failed step is recorded and the script goes on
        record = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    record["seconds"] = round(time.monotonic() - start, 2)
    record["step"] = name
    return record


# --- the steps --------------------------------------------------------------------------------


def step_detect(plan: Plan, timeout_s: float) -> dict[str, Any]:
    data = run_json(_cli("detect", "--json"), timeout_s, _env(plan))
    gpus = data.get("gpus") or []
    names = [g.get("name") for g in gpus if isinstance(g, dict)]
    return {"gpus": names, "gpu_count": len(names), "detect": data}


def _bench(
    plan: Plan, suite: str, timeout_s: float, *extra: str, budget: str | None = None
) -> dict[str, Any]:
    args = ["bench", "--suite", suite, "--device", plan.device, "--json", "--no-save"]
    args += ["--budget-s", budget or plan.budget, *extra]
    if plan.quick:
        args.append("--quick")
    data = run_json(_cli(*args), timeout_s, _env(plan))
    results = [r for r in data.get("results", []) if isinstance(r, dict)]
    info = data.get("device_info") or {}
    conditions = info.get("conditions") or {}
    if not results:
        warnings = data.get("warnings") or data.get("problems") or []
        raise RuntimeError(f"no {suite} results" + (f": {warnings}" if warnings else ""))
    return {
        "device_name": info.get("name"),
        "conditions": conditions.get("summary"),
        "disturbed": conditions.get("disturbed"),
        "results": results,
        "warnings": data.get("warnings", []),
    }


def step_matmul(plan: Plan, timeout_s: float) -> dict[str, Any]:
    if plan.device == "cpu":
        extra: tuple[str, ...] = ("--max-size", "512") if plan.quick else ()
    else:  # the figures are at 8192; larger sizes add minutes, not information
        extra = ("--max-size", "4096" if plan.quick else "8192")
    body = _bench(plan, "matmul", timeout_s, *extra)
    best: dict[str, dict[str, Any]] = {}
    for r in body["results"]:
        dtype = f"{r.get('dtype')}{'+' + r['variant'] if r.get('variant') else ''}"
        tflops = r.get("tflops") or 0.0
        if dtype not in best or tflops > (best[dtype].get("tflops") or 0.0):
            best[dtype] = {
                "size": r.get("size"),
                "tflops": tflops,
                "tflops_best": r.get("tflops_best", (r.get("extra") or {}).get("tflops_best")),
                "percent_of_peak": r.get("percent_of_peak"),
            }
    body["by_dtype"] = best
    return body


def step_bandwidth(plan: Plan, timeout_s: float) -> dict[str, Any]:
    body = _bench(plan, "bandwidth", timeout_s)
    body["by_kind"] = {
        f"{r.get('dtype')} {r.get('variant') or ''}".strip(): {
            "value": r.get("value"),
            "metric": r.get("metric"),
            "size": r.get("size"),
        }
        for r in body["results"]
    }
    return body


def step_amp(plan: Plan, timeout_s: float) -> dict[str, Any]:
    # The AMP suite's time is 15 × its budget: 75 s sizes a model that fills an H100/H200
    # (the 1.34B yardstick needs about 40 s for fp32 alone); on a CPU it stays small anyway.
    budget = {(True, True): "0.3", (True, False): "1", (False, True): "2", (False, False): "5"}[
        (plan.device == "cpu", plan.quick)
    ]
    body = _bench(plan, "amp", timeout_s, budget=budget)
    body["by_precision"] = {
        str(r.get("dtype")): {
            k: (r.get("extra") or {}).get(k)
            for k in (
                "model",
                "sizing",
                "params",
                "batch",
                "seq",
                "tokens_per_s",
                "repeats",
                "speedup_vs_fp32",
                "speedup_vs_tf32",
                "mfu",
                "tflops_best",
                "matmul_tflops",
                "matmul_share",
                "sizing_share",
            )
        }
        | {"tflops": r.get("tflops")}
        for r in body["results"]
    }
    return body


def memory_suite_present() -> bool:
    return (REPO / "desktopapp" / "devices" / "bench" / "memory.py").exists()


def step_memory(plan: Plan, timeout_s: float) -> dict[str, Any]:
    if not memory_suite_present():
        return {"skipped": "no memory suite in this checkout (desktopapp/devices/bench/memory.py)"}
    return _bench(plan, "memory", timeout_s)


def _start_load(plan: Plan, seconds: float) -> subprocess.Popen[bytes]:
    n = "1024" if plan.device == "cpu" else "8192"
    return subprocess.Popen(
        [sys.executable, "-c", _LOAD, plan.device, f"{seconds:g}", n],
        env=_env(plan),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def step_monitor(plan: Plan, timeout_s: float) -> dict[str, Any]:
    load = _start_load(plan, plan.monitor_s + 8)
    try:
        time.sleep(2.0)  # let the load reach the device before sampling starts
        args = ["monitor", "--duration", f"{plan.monitor_s:g}", "--interval", "0.5"]
        data = run_json(_cli(*args, "--json", "--quiet"), timeout_s, _env(plan))
    finally:
        _stop(load)
    channels = data.get("channels") or {}
    gpu = {
        k: {"unit": v.get("unit"), "mean": v.get("mean"), "max": v.get("max")}
        for k, v in channels.items()
        if k.startswith("gpu") and isinstance(v, dict)
    }
    diagnosis = [
        {k: d.get(k) for k in ("key", "severity", "title", "evidence")}
        for d in data.get("diagnosis") or []
        if isinstance(d, dict)
    ]
    cpu = channels.get("cpu.percent") or {}
    return {
        "samples": data.get("samples"),
        "cpu_percent_mean": cpu.get("mean"),
        "gpu_channels": gpu,
        "diagnosis": diagnosis,
        "problems": data.get("problems", []),
    }


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def step_exporter(plan: Plan, timeout_s: float) -> dict[str, Any]:
    port = _free_port()
    args = ["monitor", "--serve-metrics", f"127.0.0.1:{port}", "--duration", f"{timeout_s:g}"]
    server = subprocess.Popen(
        _cli(*args, "--quiet", "--interval", "0.5"),
        env=_env(plan),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    deadline = time.monotonic() + timeout_s - 5
    text = ""
    last_error = "no answer"
    try:
        while time.monotonic() < deadline:
            if server.poll() is not None:
                err = server.stderr.read().decode(errors="replace") if server.stderr else ""
                raise RuntimeError(f"exporter exited ({server.returncode}): {err.strip()[-300:]}")
            try:
                url = f"http://127.0.0.1:{port}/metrics"
                with urllib.request.urlopen(url, timeout=3) as resp:
                    text = resp.read().decode()
                if "desktopapp_" in text:
                    # one more scrape after a couple of samples so the rates are filled in
                    time.sleep(1.5)
                    with urllib.request.urlopen(url, timeout=3) as resp:
                        text = resp.read().decode()
                    break
            except OSError as exc:
                last_error = str(exc)
            time.sleep(0.5)
        else:
            raise RuntimeError(f"no metrics within the limit ({last_error})")
    finally:
        _stop(server)
    samples = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    names = sorted({ln.split("{")[0].split(" ")[0] for ln in samples})
    return {
        "series": len(samples),
        "metric_names": names,
        "gpu_series": sum(1 for ln in samples if ln.startswith("desktopapp_gpu")),
    }


def step_collectives(plan: Plan, timeout_s: float, gpu_count: int) -> dict[str, Any]:
    nproc = plan.nproc or (max(gpu_count, 1) if plan.device.startswith("cuda") else 2)
    device = "cuda" if plan.device.startswith("cuda") else "cpu"
    args = ["bench", "--suite", "allreduce", "--nproc", str(nproc), "--device", device]
    args += ["--json", "--no-save"]
    if plan.quick:
        args.append("--quick")
    data = run_json(_cli(*args), timeout_s, _env(plan))
    results = [r for r in data.get("results", []) if isinstance(r, dict)]
    if not results:
        raise RuntimeError(f"no collective results: {data.get('problems') or data.get('error')}")
    largest: dict[str, dict[str, Any]] = {}
    for r in results:
        op = str(r.get("op"))
        if op not in largest or (r.get("bytes") or 0) >= (largest[op].get("bytes") or 0):
            largest[op] = {
                k: r.get(k) for k in ("bytes", "seconds", "algbw_gbs", "busbw_gbs", "copy_gbs")
            }
    return {
        "world_size": data.get("world_size"),
        "backend": data.get("backend"),
        "nccl": (data.get("versions") or {}).get("nccl"),
        "largest_message": largest,
        "notes": data.get("notes") or data.get("findings") or [],
        "results": results,
    }


# --- the yardstick: plain PyTorch figures measured on an H200 ------------------------------------


def _reference_rows() -> list[dict[str, str]]:
    import csv

    for base in (REPO / "shared", REPO.parent / "shared"):
        path = base / "reference" / "measured_h200.csv"
        if path.exists():
            with path.open(newline="", encoding="utf-8") as handle:
                return list(csv.DictReader(handle))
    return []


def yardstick(summary: dict[str, Any]) -> dict[str, Any]:
    """The app's figures against a plain PyTorch loop on an H200 (shared/reference), on CUDA
    only: matmul TFLOP/s at 8192 and the AMP speed-ups (bf16 over fp32 and over TF32)."""
    rows = _reference_rows()
    if not rows or not str(summary.get("device", "")).startswith("cuda"):
        return {"skipped": "no reference file or not a CUDA run"}
    out: dict[str, Any] = {"source": "shared/reference/measured_h200.csv (plain PyTorch, H200)"}
    matmul = (summary["steps"].get("matmul") or {}).get("results") or []
    at_8192 = {r.get("dtype"): r.get("tflops") for r in matmul if r.get("size") == 8192}
    for row in rows:
        if row["kind"] == "matmul" and row["precision"] in at_8192 and at_8192[row["precision"]]:
            ref = float(row["value"])
            out[f"matmul_{row['precision']}_vs_plain_torch"] = at_8192[row["precision"]] / ref
    tokens = {
        row["precision"]: float(row["value"])
        for row in rows
        if row["kind"] == "train_step"
        and row["model"] == "dense-1.36B"
        and row["micro_batch"] == "8"
        and row["metric"] == "tokens_per_second"
    }
    amp = (summary["steps"].get("amp") or {}).get("by_precision") or {}
    bf16 = amp.get("bf16") or {}
    if "bf16-autocast" in tokens and "fp32" in tokens and bf16.get("speedup_vs_fp32"):
        ref = tokens["bf16-autocast"] / tokens["fp32"]
        out["amp_bf16_vs_fp32"] = {"app": bf16["speedup_vs_fp32"], "plain_torch": ref,
                                   "ratio": bf16["speedup_vs_fp32"] / ref}  # fmt: skip
    if "bf16-autocast" in tokens and "tf32" in tokens and bf16.get("speedup_vs_tf32"):
        ref = tokens["bf16-autocast"] / tokens["tf32"]
        out["amp_bf16_vs_tf32"] = {"app": bf16["speedup_vs_tf32"], "plain_torch": ref,
                                   "ratio": bf16["speedup_vs_tf32"] / ref}  # fmt: skip
    if bf16.get("tokens_per_s") and "bf16-autocast" in tokens:
        out["amp_bf16_tokens_per_s_vs_1_36b"] = bf16["tokens_per_s"] / tokens["bf16-autocast"]
    return out


# --- the run ----------------------------------------------------------------------------------


def _auto_device() -> str:
    with contextlib.suppress(Exception):
        import torch

        if torch.cuda.is_available():
            return "cuda"
    return "cpu"


_STEP_FUNCTIONS: dict[str, Callable[[Plan, float], dict[str, Any]]] = {
    "detect": step_detect,
    "matmul": step_matmul,
    "bandwidth": step_bandwidth,
    "amp": step_amp,
    "memory": step_memory,
    "monitor": step_monitor,
    "exporter": step_exporter,
}


def run(plan: Plan, steps: tuple[str, ...]) -> dict[str, Any]:
    limits = plan.limits()
    summary: dict[str, Any] = {
        "format": "desktopapp-gpu-check",
        "version": 1,
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": plan.device,
        "quick": plan.quick,
        "python": sys.version.split()[0],
        "steps": {},
    }
    start = time.monotonic()
    gpu_count = 0
    for name in steps:
        print(f"gpu_check: {name} …", file=sys.stderr, flush=True)
        limit = limits[name]
        if name == "collectives":
            fn = functools.partial(step_collectives, plan, limit, gpu_count)
        else:
            fn = functools.partial(_STEP_FUNCTIONS[name], plan, limit)
        record = run_step(name, fn)
        record["limit_s"] = limit
        summary["steps"][name] = record
        if name == "detect" and record["ok"]:
            gpu_count = int(record.get("gpu_count") or 0)
        status = "ok" if record["ok"] else f"FAILED ({record['error']})"
        print(f"gpu_check: {name} {status} in {record['seconds']:.1f} s", file=sys.stderr)
    summary["seconds"] = round(time.monotonic() - start, 1)
    summary["failed"] = [n for n, r in summary["steps"].items() if not r["ok"]]
    try:
        summary["yardstick"] = yardstick(summary)
    except Exception as exc:  # the summary is written whatever happens here
        summary["yardstick"] = {"error": f"{type(exc).__name__}: {exc}"}
    return summary


def _fmt(value: Any, spec: str = ",.1f") -> str:
    return format(value, spec) if isinstance(value, int | float) else "—"


def _num(value: Any) -> str:
    """A rate as people read it: ``1,463``, ``23,900``, ``51.2`` (thousands grouped, at least
    three significant digits, never ``1.46e+03``)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return "—"
    if str(REPO) not in sys.path:  # run as a script: benchmarks/ is on the path, not the repo
        sys.path.insert(0, str(REPO))
    from desktopapp.model.units import format_number

    return format_number(float(value))


def human(summary: dict[str, Any]) -> list[str]:
    """A short summary a person can read at 80 columns."""
    steps = summary["steps"]
    lines = [
        f"GPU check on {summary['device']} ({'quick' if summary['quick'] else 'full'}), "
        f"{summary['seconds']:.0f} s"
    ]
    for name, rec in steps.items():
        if not rec["ok"]:
            lines.append(f"  {name:<12} FAILED: {rec['error'][:60]}")
            continue
        if name == "detect":
            gpus = ", ".join(str(g) for g in rec.get("gpus") or []) or "no GPU"
            text = gpus
        elif name == "matmul":
            text = "; ".join(
                f"{d} {_num(v['tflops'])} median, {_num(v['tflops_best'])} best TFLOP/s"
                for d, v in rec["by_dtype"].items()
            )
        elif name == "bandwidth":
            text = "; ".join(
                f"{k} {_num(v['value'])} {v['metric']}" for k, v in rec["by_kind"].items()
            )
        elif name == "amp":
            parts = []
            for p, v in rec["by_precision"].items():
                s = f" {_fmt(v.get('speedup_vs_fp32'), '.2f')}×" if p != "fp32" else ""
                parts.append(f"{p} {_fmt(v.get('tokens_per_s'), ',.0f')} tok/s{s}")
            first: dict[str, Any] = next(iter(rec["by_precision"].values()), {})
            model = first.get("model")
            text = "; ".join(parts) + (f" [{model}]" if model else "")
        elif name == "memory":
            text = rec.get("skipped") or f"{len(rec.get('results', []))} results"
        elif name == "monitor":
            diag = "; ".join(str(d.get("title")) for d in rec["diagnosis"][:2])
            text = f"{rec['samples']} samples; {diag}"
        elif name == "exporter":
            text = f"{rec['series']} series, {rec['gpu_series']} GPU series"
        else:
            ar = rec["largest_message"].get("all_reduce", {})
            if ar.get("busbw_gbs") is None and ar.get("copy_gbs") is not None:
                rate = (
                    f"{_num(ar.get('copy_gbs'))} GB/s local copy (a timed copy, read + written; "
                    "no bus traffic)"
                )
            else:
                rate = f"{_num(ar.get('busbw_gbs'))} GB/s busbw"
            text = f"{rec['world_size']} rank(s) {rec['backend']}; all_reduce {rate}"
        lines.extend(
            textwrap.wrap(text, 78, initial_indent=f"  {name:<12} ", subsequent_indent=" " * 15)
        )
    stick = summary.get("yardstick") or {}
    for key in ("amp_bf16_vs_fp32", "amp_bf16_vs_tf32"):
        if isinstance(stick.get(key), dict):
            v = stick[key]
            lines.append(
                f"  yardstick    {key}: app {v['app']:.2f}× vs plain PyTorch "
                f"{v['plain_torch']:.2f}× (ratio {v['ratio']:.2f})"
            )
    if summary["failed"]:
        lines.append(f"failed steps: {', '.join(summary['failed'])}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="JSON summary path (default $OUT/gpu_check.json)")
    parser.add_argument("--quick", action="store_true", help="small sizes and budgets")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    parser.add_argument("--steps", default=",".join(STEPS), help="comma-separated subset")
    parser.add_argument("--nproc", type=int, default=0, help="collective ranks (default: GPUs)")
    parser.add_argument("--monitor-s", type=float, default=None, help="monitor seconds (10)")
    args = parser.parse_args(argv)
    steps = tuple(s.strip() for s in args.steps.split(",") if s.strip())
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        parser.error(f"--steps: unknown {', '.join(unknown)}; choose from {', '.join(STEPS)}")
    device = _auto_device() if args.device == "auto" else args.device
    out = Path(args.out) if args.out else Path(os.environ.get("OUT") or ".") / "gpu_check.json"
    monitor_s = args.monitor_s if args.monitor_s is not None else (6.0 if args.quick else 10.0)
    with tempfile.TemporaryDirectory(prefix="gpu_check_home_") as home:
        plan = Plan(device, args.quick, args.nproc, monitor_s, home)
        summary = run(plan, steps)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1, default=str))
    for line in human(summary):
        print(line)
    print(f"summary: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
