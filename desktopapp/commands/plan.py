"""``desktopapp plan train|serve``: what to run on (issue 24).

Ranks every catalog accelerator, fleet size and pricing kind (rented or owned) for a training
run, or sizes a serving fleet for a load, with the model the Workload tab and ``desktopapp
estimate`` use; prints a ranked table that fits the terminal, what was left out and why, and
one recommendation. ``--json`` prints ``options``, ``excluded`` and ``recommendation``.
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from typing import Any

from desktopapp.application import advisor as app
from desktopapp.commands.calibrate import add_past_runs_option, apply_past_runs
from desktopapp.commands.options import (
    add_command,
    add_json_option,
    add_run_terms,
    ask_for_subcommand,
    option_count,
    option_fraction,
    option_money,
    option_number,
    option_size,
)
from desktopapp.commands.output import (
    output_width,
    print_json,
    print_paragraph,
    warn_implausible,
)
from desktopapp.commands.serving import add_routing_options
from desktopapp.model import advisor as adv
from desktopapp.model import units
from desktopapp.model.validation import InputError

EXIT_OK = 0
EXIT_USAGE = 2
DEFAULT_ROWS = 15
PRICING_SHORT = {
    "on_demand": "on-demand",
    "committed_1yr": "commit-1y",
    "committed_3yr": "commit-3y",
    "spot": "spot",
    adv.OWNED: "owned",
}


_quantity = option_number
_count = option_count


def register(subparsers: Any) -> None:
    plan = add_command(
        subparsers,
        "plan",
        "what to run on: ranked accelerators, fleets and pricing for training or serving",
        "Rank every catalog accelerator, fleet size and pricing (on-demand, committed, spot, "
        "owned) for a training run (plan train) or size a serving fleet for a load (plan "
        "serve), with the same model as `desktopapp estimate`.",
    )

    ask_for_subcommand(plan, lambda: "say what to plan: train or serve")
    sub = plan.add_subparsers(dest="plan_command", metavar="WHAT")
    _register_train(sub)
    _register_serve(sub)


def _common(p: argparse.ArgumentParser, budget_help: str) -> None:
    p.add_argument("--preset", help="start from a workload preset (options given override it)")
    p.add_argument("--params", type=option_size, help="parameters N (e.g. 7B)")
    p.add_argument(
        "--active-params", type=option_size, help="active parameters (mixture of experts)"
    )
    p.add_argument("--layers", type=_count, help="transformer layers (with --hidden --heads)")
    p.add_argument("--hidden", type=_count, help="hidden size")
    p.add_argument("--heads", type=_count, help="attention heads")
    p.add_argument("--kv-heads", type=_count, help="key/value heads (GQA)")
    p.add_argument("--budget", type=option_money, help=budget_help)
    p.add_argument(
        "--max-gpus",
        type=_count,
        help=f"largest fleet to consider (default {app.DEFAULT_MAX_GPUS:,})",
    )
    p.add_argument(
        "--include",
        action="append",
        default=[],
        help="only these accelerators (catalog ids) or clouds (providers); repeat or "
        "comma-separate",
    )
    p.add_argument(
        "--exclude",
        action="append",
        default=[],
        help="leave out these accelerators or clouds; repeat or comma-separate",
    )
    p.add_argument(
        "--pricing",
        action="append",
        default=[],
        help="pricing kinds to consider: on-demand, committed-1yr, committed-3yr, spot, owned "
        "(default all); repeat or comma-separate",
    )
    p.add_argument("--life-years", type=_quantity, help="owned servers' life, years (Cost tab)")
    p.add_argument("--pue", type=_quantity, help="owned data centre PUE (Cost tab)")
    p.add_argument("--kwh-price", type=option_money, help="owned electricity, USD per kWh")
    p.add_argument(
        "--ops-fraction", type=option_fraction, help="owned operations per year, fraction of capex"
    )
    p.add_argument(
        "--owned-utilization",
        type=option_fraction,
        help="share of an owned fleet's life it does useful work (default: the Cost tab's)",
    )
    p.add_argument(
        "--rows", type=_count, default=DEFAULT_ROWS, help=f"table rows (default {DEFAULT_ROWS})"
    )
    add_json_option(p)


def _register_train(sub: Any) -> None:
    p = add_command(
        sub,
        "train",
        "rank accelerators × fleet sizes × pricing for a training run",
        "Every catalog accelerator at fleet sizes of powers of two and whole scale-up domains, "
        "each modelled as `desktopapp estimate train` does, priced under every pricing kind "
        "with an offer (and owning). Ranked by cost among the options that meet the deadline "
        "and budget (by time under a budget alone); the Pareto front of time against cost is "
        "marked P.",
        _handler(run_train),
    )
    p.add_argument("--tokens", type=option_size, help="training tokens D (e.g. 2T)")
    p.add_argument("--epochs", type=_quantity, help="passes over the data (default 1)")
    p.add_argument("--precision", help="compute precision (default: bf16 where published)")
    p.add_argument("--seq-len", type=_count, help="sequence length")
    p.add_argument("--ffn-hidden", type=_count, help="MLP width (default from --mlp)")
    p.add_argument("--vocab", type=_count, help="vocabulary size (default 32000)")
    p.add_argument("--mlp", choices=("swiglu", "gelu"), help="MLP kind (default swiglu)")
    p.add_argument("--global-batch-tokens", type=option_size, help="tokens per optimizer step")
    p.add_argument("--production-factor", type=_quantity, help="1-3 (default: fitted)")
    add_past_runs_option(p)
    add_run_terms(p)
    p.add_argument("--deadline-days", type=_quantity, help="the run must finish within, days")
    _common(p, "most the whole run may cost, USD")


def _register_serve(sub: Any) -> None:
    p = add_command(
        sub,
        "serve",
        "size a serving fleet for a load on every accelerator and pricing",
        "For every accelerator, weight precision and GPUs per replica: the highest concurrency "
        "that meets the latency targets (as `desktopapp estimate inference`), the replicas the "
        "load needs with headroom, cost per month and per million output tokens. Ranked by cost "
        "per month; the Pareto front of cost against time per output token is marked P.",
        _handler(run_serve),
    )
    p.add_argument("--requests-per-s", type=_quantity, help="mean requests per second (required)")
    p.add_argument("--prompt-tokens", type=_count, help="prompt length (default 512)")
    p.add_argument("--output-tokens", type=_count, help="generated tokens (default 256)")
    p.add_argument("--ttft-slo-ms", type=_quantity, help="target time to first token, ms")
    p.add_argument("--tpot-slo-ms", type=_quantity, help="target time per output token, ms")
    p.add_argument(
        "--precision",
        action="append",
        default=[],
        help="weight precisions to try, e.g. bf16,fp8 (default bf16)",
    )
    add_routing_options(p, _count)
    p.add_argument(
        "--peak-to-mean",
        type=_quantity,
        help=f"peak over mean request rate (default {app.DEFAULT_PEAK_TO_MEAN:g})",
    )
    p.add_argument(
        "--headroom",
        type=option_fraction,
        help=f"spare throughput kept, fraction (default {app.DEFAULT_HEADROOM:g})",
    )
    _common(p, "most the fleet may cost per month, USD")


def _handler(fn: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from desktopapp.commands.estimate import guarded_run

        return guarded_run(fn, args, strict_json=True)

    return run


# --- inputs -------------------------------------------------------------------------------------


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(v.strip() for raw in values for v in str(raw).split(",") if v.strip())


def constraints_from_args(args: argparse.Namespace) -> adv.Constraints:
    deadline = getattr(args, "deadline_days", None)
    if deadline is not None and not deadline > 0:
        raise InputError("deadline_days", f"must be a number of days above 0, got {deadline:g}")
    app.budget_usd(args.budget)
    if args.max_gpus is not None and (not isinstance(args.max_gpus, int) or args.max_gpus < 1):
        raise InputError(
            "max_gpus", f"must be a whole number of GPUs, at least 1, got {args.max_gpus}"
        )
    include = app.resolve_names(_split(args.include), "include")
    exclude = app.resolve_names(_split(args.exclude), "exclude")
    pricing = tuple(adv.pricing_kind(p) for p in _split(args.pricing)) or adv.PRICING_KINDS
    return adv.Constraints(
        deadline_days=deadline,
        budget_usd=args.budget,
        max_gpus=args.max_gpus,
        include=include,
        exclude=exclude,
        pricing=pricing,
    )


def owning_from_args(args: argparse.Namespace) -> app.OwningOverrides | None:
    from desktopapp.model.validation import require_fraction, require_range

    values = {
        "life_years": args.life_years,
        "pue": args.pue,
        "kwh_price": args.kwh_price,
        "ops_fraction": args.ops_fraction,
        "utilization": args.owned_utilization,
    }
    if all(v is None for v in values.values()):
        return None
    if args.life_years is not None:
        require_range("life_years", args.life_years, 1.0, 10.0)
    if args.pue is not None:
        require_range("pue", args.pue, 1.0, 3.0)
    if args.kwh_price is not None:
        require_range("kwh_price", args.kwh_price, 0.0, 10.0)
    if args.ops_fraction is not None:
        require_range("ops_fraction", args.ops_fraction, 0.0, 1.0)
    if args.owned_utilization is not None:
        require_fraction("owned_utilization", args.owned_utilization)
    return app.OwningOverrides(**values)


def _preset(args: argparse.Namespace) -> Any:
    if args.preset is None:
        return None
    from desktopapp.model.presets import get_preset

    return get_preset(args.preset)


def _shape(args: argparse.Namespace, preset: Any, names: tuple[str, ...]) -> dict[str, Any]:
    given = {n: getattr(args, n, None) for n in names}
    if preset is not None and all(given.get(n) is None for n in ("layers", "hidden", "heads")):
        for n in names:
            if given[n] is None:
                given[n] = getattr(preset, n, None)
    return {k: v for k, v in given.items() if v is not None}


def train_workload_from_args(args: argparse.Namespace) -> app.TrainWorkload:
    apply_past_runs(args)
    preset = _preset(args)
    params = args.params if args.params is not None else getattr(preset, "params", None)
    tokens = args.tokens if args.tokens is not None else getattr(preset, "tokens", None)
    if params is None:
        raise InputError("params", "required (e.g. --params 7B), or a --preset with one")
    if tokens is None:
        raise InputError("tokens", "required (e.g. --tokens 2T), or a --preset with them")
    shape = _shape(args, preset, app.SHAPE_NAMES)
    return app.TrainWorkload(
        params=params,
        tokens=tokens,
        active_params=args.active_params,
        precision=args.precision,
        epochs=args.epochs if args.epochs is not None else 1.0,
        global_batch_tokens=args.global_batch_tokens,
        production_factor=args.production_factor,
        production_factor_source=getattr(args, "production_factor_source", ""),
        software_stack=args.software_stack,
        power_cap_w=args.power_cap_w,
        moe_top_k=args.moe_top_k,
        goodput_overhead=args.goodput_overhead,
        **shape,
    )


def _ms(name: str, value: float | None) -> float | None:
    if value is None:
        return None
    if not (math.isfinite(value) and value > 0):
        raise InputError(name, f"must be a number of milliseconds above 0, got {value:g}")
    return value / 1000.0


def serve_workload_from_args(args: argparse.Namespace) -> app.ServeWorkload:
    preset = _preset(args)
    params = args.params if args.params is not None else getattr(preset, "params", None)
    if params is None:
        raise InputError("params", "required (e.g. --params 70B), or a --preset with one")
    if args.requests_per_s is None:
        raise InputError("requests_per_s", "required: the mean requests per second to serve")
    shape = _shape(args, preset, ("layers", "hidden", "heads", "kv_heads"))
    extra: dict[str, Any] = {}
    for name in (
        "prompt_tokens",
        "output_tokens",
        "peak_to_mean",
        "headroom",
        "experts",
        "moe_top_k",
        "kv_precision",
    ):
        if getattr(args, name) is not None:
            extra[name] = getattr(args, name)
    precisions = _split(args.precision)
    if precisions:
        extra["precisions"] = precisions
    return app.ServeWorkload(
        params=params,
        requests_per_s=args.requests_per_s,
        active_params=args.active_params,
        ttft_slo_s=_ms("ttft_slo_ms", args.ttft_slo_ms),
        tpot_slo_s=_ms("tpot_slo_ms", args.tpot_slo_ms),
        **shape,
        **extra,
    )


def _rows(args: argparse.Namespace) -> int:
    rows = args.rows
    if not isinstance(rows, int) or rows < 0:
        raise InputError("rows", f"must be a whole number of rows, 0 or more, got {rows}")
    return rows


# --- handlers -----------------------------------------------------------------------------------


def _run(args: argparse.Namespace, workload_from_args: Any, search: Any, table: Any) -> int:
    """Search for the workload the options describe; print the ranking as JSON or text."""
    constraints = constraints_from_args(args)
    workload = workload_from_args(args)
    warn_implausible(workload, quiet=args.json)
    rows = _rows(args)
    ranking = search(workload, constraints, owning=owning_from_args(args))
    if args.json:
        print_json({**ranking.to_dict(), "workload": workload.to_dict()})
        return EXIT_OK
    _print_ranking(ranking, rows, table)
    return EXIT_OK


def run_train(args: argparse.Namespace) -> int:
    return _run(args, train_workload_from_args, app.search_training, _train_table)


def run_serve(args: argparse.Namespace) -> int:
    return _run(args, serve_workload_from_args, app.search_serving, _serve_table)


# --- text output --------------------------------------------------------------------------------


def _money(usd: float) -> str:
    return units.format_money(usd, 3)


def _table(headers: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = []
    for row in [headers, *rows]:
        cells = [
            row[i].rjust(widths[i]) if i in right else row[i].ljust(widths[i])
            for i in range(len(headers))
        ]
        lines.append(" ".join(cells).rstrip())
    return lines


def _flags(o: Any) -> str:
    return ("✓" if o.meets_constraints else "✗") + ("P" if o.pareto else "")


def _train_table(options: tuple[adv.TrainOption, ...]) -> list[str]:
    headers = ["#", "accelerator", "GPUs", "pricing", "$/GPU-h", "days", "cost", "likely", "ok"]
    rows = []
    for i, o in enumerate(options, 1):
        stale = "*" if o.offer.stale else ""
        rows.append(
            [
                str(i),
                o.accelerator,
                f"{o.gpus:,}",
                PRICING_SHORT[o.pricing],
                f"{o.price_usd_per_gpu_hour:.3g}{stale}",
                f"{o.wall_days:.3g}",
                _money(o.cost_usd),
                f"{_money(o.cost_low_usd)}-{_money(o.cost_high_usd).removeprefix('$')}",
                _flags(o),
            ]
        )
    return _table(headers, rows, {0, 2, 4, 5, 6})


def _serve_table(options: tuple[adv.ServeOption, ...]) -> list[str]:
    headers = [
        "#",
        "accelerator",
        "prec",
        "GPUs",
        "conc",
        "reps",
        "pricing",
        "$/month",
        "TPOT",
        "ok",
    ]
    rows = []
    for i, o in enumerate(options, 1):
        stale = "*" if o.offer.stale else ""
        rows.append(
            [
                str(i),
                o.accelerator,
                o.precision,
                f"{o.gpus_per_replica}",
                f"{o.concurrency}",
                f"{o.replicas:,}",
                PRICING_SHORT[o.pricing] + stale,
                _money(o.cost_per_month_usd),
                f"{o.tpot_seconds * 1000:.3g} ms",
                _flags(o),
            ]
        )
    return _table(headers, rows, {0, 3, 4, 5, 7, 8})


def _print_ranking(ranking: adv.Ranking, rows: int, table: Any) -> None:
    print_paragraph(ranking.recommendation)
    shown = ranking.options[:rows]
    if shown:
        print()
        for line in table(shown):
            print(line)
        more = len(ranking.options) - len(shown)
        legend = (
            "ok: ✓ meets the constraints, ✗ misses them; P: on the Pareto front; "
            "* price over a year old."
        )
        if ranking.kind == "train":
            legend += " likely: the model's range of the cost."
        else:
            legend += (
                " GPUs: per replica; conc: sequences per replica; reps: replicas; TPOT: time "
                "per output token."
            )
        if more > 0:
            legend += f" {more:,} more options (--rows, --json)."
        print()
        print_paragraph(legend)
    if ranking.excluded:
        counts = Counter(e.kind for e in ranking.excluded)
        listed = ", ".join(f"{n} for {kind}" for kind, n in counts.most_common())
        print_paragraph(f"Left out: {listed} (--json lists each with its reason).")
    for line in app.note_lines(ranking):
        print_paragraph(line)
    width = output_width()
    if width is not None and width < 60:
        print_paragraph("(a wider terminal shows the table unwrapped)")
