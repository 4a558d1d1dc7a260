"""Does the app's matmul benchmark report what a plain torch loop measures?

For each size, in one process: the app's fp32 matmul suite (``matmul_suite``) and a plain
``a @ b`` loop with the same warm-up and the same number of timed repeats, interleaved over
several rounds (alternating which goes first) so machine noise hits both alike. Prints both
GFLOP/s figures and the ratio app / plain, from the median round and from the best round of each
side; the app must report at least 95% of the plain loop. The pass/fail decision uses the best
rounds: on a shared machine a neighbour's burst lowers whichever side it happens to hit, and
the least disturbed round of each side is the fairest comparison of the two harnesses.

    python benchmarks/matmul_accuracy.py [--sizes 1024,2048] [--rounds 3] [--threads N]

Exit status 1 when a ratio is below the threshold.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

THRESHOLD = 0.95


def plain_loop(n: int, repeats: int, device: str) -> float:
    """Median seconds of ``a @ b`` over ``repeats`` timed calls after two warm-up calls."""
    import torch

    gen = torch.Generator().manual_seed(n)
    a = torch.randn(n, n, generator=gen).to(device)
    b = torch.randn(n, n, generator=gen).to(device)

    def sync() -> None:
        if device.startswith("cuda"):
            torch.cuda.synchronize()

    for _ in range(2):
        a @ b
    sync()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        a @ b
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def app_measurement(n: int, device: str, budget_s: float) -> tuple[float, int]:
    """(median seconds, timed repeats) as the app reports them for fp32 at size n."""
    from desktopapp.devices.bench.matmul import matmul_suite
    from desktopapp.devices.bench.target import resolve_device

    target = resolve_device(device)
    for event in matmul_suite(
        target, dtypes=("fp32",), sizes=(n,), budget_s=budget_s, layout_check=False
    ):
        if event.result is not None:
            repeats = int(event.result.extra["repeats"]) * int(event.result.extra["inner"])
            return event.result.seconds, repeats
    raise RuntimeError(f"the app produced no fp32 result at {n}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--budget-s", type=float, default=2.0)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args(argv)
    import torch

    if args.threads > 0:
        torch.set_num_threads(args.threads)

    from desktopapp.devices.bench.runner import busy_warning

    warning = busy_warning()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, device {args.device}")
    if warning:
        print(f"warning: {warning}")
    rows: list[tuple[int, str, float, float, float, float]] = []
    ok = True
    for n in (int(s) for s in args.sizes.split(",")):
        flop = 2.0 * n**3
        app_times: list[float] = []
        plain_times: list[float] = []
        repeats_used: list[int] = []
        for round_index in range(args.rounds):
            order = ("app", "plain") if round_index % 2 == 0 else ("plain", "app")
            repeats = repeats_used[-1] if repeats_used else 0
            for side in order:
                if side == "app":
                    seconds, repeats = app_measurement(n, args.device, args.budget_s)
                    repeats_used.append(repeats)
                    app_times.append(seconds)
                else:
                    plain_times.append(plain_loop(n, max(repeats, 5), args.device))
        for label, pick in (("median", statistics.median), ("best", min)):
            app = flop / pick(app_times) / 1e9
            plain = flop / pick(plain_times) / 1e9
            ratio = app / plain
            if label == "best":
                ok = ok and ratio >= THRESHOLD
            rows.append((n, label, statistics.median(repeats_used), app, plain, ratio))
    header = f"{'size':>6} {'round':>7} {'repeats':>8} {'app GFLOP/s':>12} {'plain GFLOP/s':>14}"
    print(f"{header} {'ratio':>7}")
    for n, label, reps, app, plain, ratio in rows:
        flag = "" if ratio >= THRESHOLD or label != "best" else f"  < {THRESHOLD:.0%}"
        print(f"{n:>6} {label:>7} {reps:>8.0f} {app:>12.1f} {plain:>14.1f} {ratio:>7.3f}{flag}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
