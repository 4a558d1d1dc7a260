"""``desktopapp catalog accelerators|cloud``: list the bundled catalogs with sources and dates."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from desktopapp.commands.options import add_command, add_json_option, ask_for_subcommand
from desktopapp.commands.output import Column, print_json, print_paragraph, print_table
from desktopapp.model import units
from desktopapp.model.catalog import (
    Accelerator,
    CloudOffer,
    accelerator_catalog,
    cloud_offers,
    get_accelerator,
    vendors,
)

SOURCE_WIDTH = 48
NAME_WIDTH = 34
JSON_LIST_HELP = "print a JSON list instead of a table"


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "catalog",
        "list the accelerator and cloud-price catalogs",
        "List the bundled catalogs. Every row shows its source, confidence and date.",
    )
    lists = parser.add_subparsers(dest="catalog_command", metavar="LIST")
    ask_for_subcommand(
        parser,
        lambda: (
            f"say which list: {', '.join(lists.choices)} (desktopapp catalog --help describes them)"
        ),
    )

    acc = add_command(
        lists,
        "accelerators",
        "accelerators with dense datasheet peaks, memory, power and price",
        "Accelerators with dense (non-sparse) datasheet peaks, memory, bandwidth, TDP and "
        "street price.",
        run_accelerators,
    )
    acc.add_argument("--vendor", metavar="V", help="only this vendor (NVIDIA, AMD, Google, …)")
    add_json_option(acc, JSON_LIST_HELP)

    cloud = add_command(
        lists,
        "cloud",
        "cloud offers with per-GPU-hour prices",
        "Cloud offers with on-demand, 1-/3-year committed and spot prices per GPU-hour (USD).",
        run_cloud,
    )
    cloud.add_argument("--accelerator", metavar="ID", help="only offers for this accelerator")
    add_json_option(cloud, JSON_LIST_HELP)


def _short(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def select_accelerators(vendor: str | None) -> list[Accelerator]:
    rows = list(accelerator_catalog().accelerators)
    if vendor is None:
        return rows
    wanted = vendor.strip().lower()
    chosen = [a for a in rows if a.vendor.lower() == wanted]
    if not chosen:
        raise ValueError(
            f"vendor: no accelerators from {vendor!r} (vendors: {', '.join(vendors())})"
        )
    return chosen


def _peak(acc: Accelerator, *precisions: str) -> str:
    """The first of ``precisions`` the accelerator supports, formatted with its unit."""
    precision = next((p for p in precisions if p in acc.peak_tflops), None)
    if precision is None:
        return units.DASH
    unit = "OP/s" if precision.startswith("int") else "FLOP/s"
    return units.format_si(acc.peak_flops(precision), unit)


def accelerator_row(acc: Accelerator) -> list[str]:
    bandwidth = acc.memory_bandwidth_gbs
    return [
        acc.id,
        _short(acc.name, NAME_WIDTH),
        f"{acc.memory_gb:g} GB",
        units.format_si(None if bandwidth is None else bandwidth * 1e9, "B/s"),
        _peak(acc, "bf16", "fp16"),
        _peak(acc, "fp8"),
        units.format_si(acc.tdp_w, "W"),
        units.format_money(acc.street_price_usd),
        units.format_percent(acc.typical_utilization, 0),
        acc.confidence,
        acc.source_date,
        _short(acc.source, SOURCE_WIDTH),
    ]


ACCELERATOR_HEADERS = (
    Column("ID", whole=True),
    Column("NAME", drop=1, head=True),
    Column("MEMORY", label="memory"),
    Column("BANDWIDTH", label="bandwidth"),
    Column("BF16/FP16", label="bf16/fp16"),
    Column("FP8 DENSE", label="fp8"),
    Column("TDP", label="TDP"),
    Column("PRICE", label="price"),
    Column("MFU", label="MFU"),
    Column("CONF.", label="confidence"),
    Column("DATE", label="date"),
    Column("SOURCE", label="source"),
)


def run_accelerators(args: argparse.Namespace) -> int:
    rows = select_accelerators(args.vendor)
    return _list(
        args,
        rows,
        accelerator_row,
        ACCELERATOR_HEADERS,
        f"{len(rows)} accelerators. Peaks are dense datasheet figures; MFU is the typical "
        "utilization from published training runs (— where none); BF16/FP16 shows bf16, or "
        "fp16 where there is no bf16; `--json` shows every field, sources and notes.",
    )


def _list(
    args: argparse.Namespace,
    rows: Sequence[Any],
    to_row: Callable[[Any], list[str]],
    headers: Sequence[str | Column],
    footer: str,
) -> int:
    """A catalog listing: every field as JSON with --json, else a table and a footer."""
    if args.json:
        print_json([r.to_dict() for r in rows])
        return 0
    print_table([to_row(r) for r in rows], headers)
    print()
    print_paragraph(footer)
    return 0


def select_offers(accelerator: str | None) -> list[CloudOffer]:
    offers = list(cloud_offers())
    if accelerator is None:
        return offers
    acc = get_accelerator(accelerator)
    return [o for o in offers if o.accelerator_id == acc.id]


def _price(value: float | None) -> str:
    return units.format_money(value) if value is not None else units.DASH


def offer_row(offer: CloudOffer) -> list[str]:
    return [
        offer.id + ("" if offer.rentable else " *"),
        offer.provider,
        offer.accelerator_id,
        str(offer.gpus),
        _price(offer.on_demand),
        _price(offer.committed_1yr),
        _price(offer.committed_3yr),
        _price(offer.spot),
        offer.kind,
        offer.confidence,
        offer.price_date,
        _short(offer.source, SOURCE_WIDTH),
    ]


OFFER_HEADERS = (
    Column("ID", whole=True),
    Column("PROVIDER", head=True),
    Column("ACCELERATOR", label="accelerator"),
    Column("GPUS", label="GPUs"),
    Column("ON-DEMAND", label="on-demand"),
    Column("1-YR", label="1-yr"),
    Column("3-YR", label="3-yr"),
    Column("SPOT", label="spot"),
    Column("KIND", label="kind"),
    Column("CONF.", label="confidence"),
    Column("DATE", label="date"),
    Column("SOURCE", label="source"),
)


def run_cloud(args: argparse.Namespace) -> int:
    offers = select_offers(args.accelerator)
    return _list(
        args,
        offers,
        offer_row,
        OFFER_HEADERS,
        f"{len(offers)} offers. Prices in USD per GPU-hour; * = not rentable as listed "
        "(market index, assumed rate or expired block price). `--json` shows notes with "
        "historical prices.",
    )
