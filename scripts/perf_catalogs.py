"""Curation for the performance-model resources, used by ``scripts/build_catalogs.py``.

- ``resources/interconnect.json``: scale-up / scale-out links per accelerator (own research,
  each row with its source and date; advertised figures are bidirectional, stored one way).
- ``resources/published_throughput.json``: the rows of ``published_throughput.csv`` mapped to
  catalog accelerators and plans, published GPU-hours of large runs (own research, sourced),
  and the model's calibration (fitted here, with its leave-one-out error).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

GB = 1e9
DATE = "2026-05"  # when these figures were collected for the catalog

_NV_HGX = "NVIDIA HGX/DGX 8-GPU baseboard with NVSwitch (NVLink domain of 8)"
_SRC_DGXH100 = "NVIDIA DGX H100 datasheet (8× ConnectX-7 400 Gb/s, NVLink4 900 GB/s per GPU)"
_SRC_DGXA100 = "NVIDIA DGX A100 datasheet (8× ConnectX-6 200 Gb/s HDR, NVLink3 600 GB/s per GPU)"
_SRC_BUSBW = (
    "achieved share: stas00/ml-engineering network benchmarks via published_throughput.csv "
    "(A100 NVLink 78%, H200 82%, B200 over EFA 73% per NIC)"
)
_PCIE_NOTE = "no NVLink: peers talk over PCIe; scale-out assumes one 400 Gb/s NIC per 8 GPUs"

# accelerator id -> (scale-up GB/s one way, domain, scale-out GB/s per GPU, achieved, scale-out
# achieved, latency us, scale-up name, scale-out name, source, confidence)
INTERCONNECT: Mapping[str, tuple[Any, ...]] = {
    "v100-sxm2": (
        150,
        8,
        6.25,
        0.78,
        0.73,
        5,
        "NVLink2 300 GB/s bidirectional",
        "DGX-1: 4× 100 Gb/s EDR per 8 GPUs",
        "NVIDIA DGX-1 (V100) datasheet; " + _SRC_BUSBW,
        "medium",
    ),
    "a100-sxm-40gb": (
        300,
        8,
        25,
        0.78,
        0.73,
        5,
        "NVLink3 600 GB/s bidirectional",
        "HDR 200 Gb/s per GPU",
        _SRC_DGXA100 + "; " + _SRC_BUSBW,
        "high",
    ),
    "a100-sxm-80gb": (
        300,
        8,
        25,
        0.78,
        0.73,
        5,
        "NVLink3 600 GB/s bidirectional",
        "HDR 200 Gb/s per GPU",
        _SRC_DGXA100 + "; " + _SRC_BUSBW,
        "high",
    ),
    "a100-pcie-80gb": (
        300,
        2,
        6.25,
        0.78,
        0.73,
        5,
        "NVLink bridge 600 GB/s (pairs)",
        "one 400 Gb/s NIC per 8 GPUs (assumption)",
        "NVIDIA A100 datasheet (NVLink bridge for 2 GPUs); " + _PCIE_NOTE,
        "low",
    ),
    "h100-sxm": (
        450,
        8,
        50,
        0.82,
        0.73,
        5,
        "NVLink4 900 GB/s bidirectional",
        "NDR 400 Gb/s per GPU",
        _SRC_DGXH100 + "; " + _SRC_BUSBW,
        "high",
    ),
    "h100-pcie": (
        300,
        2,
        6.25,
        0.78,
        0.73,
        5,
        "NVLink bridge 600 GB/s (pairs)",
        "one 400 Gb/s NIC per 8 GPUs (assumption)",
        "NVIDIA H100 PCIe datasheet (NVLink bridge); " + _PCIE_NOTE,
        "low",
    ),
    "h800-sxm": (
        200,
        8,
        50,
        0.82,
        0.73,
        5,
        "NVLink 400 GB/s bidirectional (export variant)",
        "8× 400 Gb/s IB per node",
        "DeepSeek-V3 technical report (arXiv 2412.19437, §3.1: NVLink 160 GB/s "
        "achieved, IB 50 GB/s per GPU); " + _SRC_BUSBW,
        "medium",
    ),
    "h200-sxm": (
        450,
        8,
        50,
        0.82,
        0.73,
        5,
        "NVLink4 900 GB/s bidirectional",
        "NDR 400 Gb/s per GPU",
        "NVIDIA DGX H200 datasheet (8× ConnectX-7 400 Gb/s); " + _SRC_BUSBW,
        "high",
    ),
    "gh200": (
        450,
        1,
        50,
        0.82,
        0.73,
        5,
        "NVLink-C2C to Grace; one GPU per node as rented",
        "400 Gb/s per superchip",
        "NVIDIA GH200 datasheet; cloud GH200 nodes hold one superchip (Lambda)",
        "low",
    ),
    "b200": (
        900,
        8,
        50,
        0.82,
        0.73,
        5,
        "NVLink5 1,800 GB/s bidirectional",
        "8× 400 Gb/s ConnectX-7 per node",
        "NVIDIA DGX B200 datasheet; achieved 740-846 of 900 GB/s busbw (stas00/ml-engineering)",
        "high",
    ),
    "gb200": (
        900,
        72,
        50,
        0.82,
        0.73,
        5,
        "NVLink5 1,800 GB/s, 72-GPU NVL72 domain",
        "400 Gb/s ConnectX-7 per GPU",
        "NVIDIA GB200 NVL72 / DGX GB200 datasheet (72-GPU NVLink domain, 400 Gb/s per "
        "GPU); " + _SRC_BUSBW,
        "medium",
    ),
    "mi250x": (
        200,
        4,
        25,
        0.70,
        0.73,
        8,
        "Infinity Fabric 800 GB/s aggregate",
        "Slingshot 200 Gb/s per MI250X",
        "AMD MI250X datasheet; HPE Cray EX (Frontier/LUMI) node: 4 MI250X, 4× 200 Gb/s",
        "medium",
    ),
    "mi300x": (
        448,
        8,
        50,
        0.70,
        0.73,
        8,
        "Infinity Fabric 7× 128 GB/s = 896 GB/s",
        "400 Gb/s per GPU",
        "AMD MI300X datasheet; Azure ND MI300X v5 (8× 400 Gb/s IB); achieved 313 GB/s "
        "busbw of 448 (stas00/ml-engineering)",
        "medium",
    ),
    "mi325x": (
        448,
        8,
        50,
        0.70,
        0.73,
        8,
        "Infinity Fabric 896 GB/s",
        "400 Gb/s per GPU",
        "AMD MI325X datasheet; achieved share as MI300X",
        "medium",
    ),
    "tpu-v4": (
        150,
        4096,
        12.5,
        0.78,
        0.73,
        5,
        "ICI 3D torus, 4096-chip pod",
        "data-centre network between pods (assumption)",
        "Google Cloud TPU v4 docs; Jouppi et al. ISCA 2023",
        "low",
    ),
    "tpu-v5e": (
        200,
        256,
        12.5,
        0.78,
        0.73,
        5,
        "ICI 400 GB/s bidirectional, 256-chip slice",
        "data-centre network between slices (assumption)",
        "Google Cloud TPU v5e docs",
        "low",
    ),
    "tpu-v5p": (
        600,
        8960,
        12.5,
        0.78,
        0.73,
        5,
        "ICI 1,200 GB/s bidirectional, 8960-chip pod",
        "data-centre network between pods (assumption)",
        "Google Cloud TPU v5p docs",
        "low",
    ),
    "tpu-v6e": (
        400,
        256,
        12.5,
        0.78,
        0.73,
        5,
        "ICI 800 GB/s bidirectional, 256-chip slice",
        "data-centre network between slices (assumption)",
        "Google Cloud TPU v6e docs",
        "low",
    ),
    "trainium1": (
        96,
        16,
        3.125,
        0.75,
        0.73,
        8,
        "NeuronLink-v2 within trn1.32xlarge (16 chips)",
        "EFA 800 Gb/s per 16 chips",
        "AWS EC2 Trn1 product page",
        "low",
    ),
    "trainium2": (
        640,
        16,
        25,
        0.75,
        0.73,
        8,
        "NeuronLink-v3 ~1.28 TB/s per chip",
        "EFA 3.2 Tb/s per 16 chips",
        "AWS EC2 Trn2 product page; Neuron docs",
        "low",
    ),
    "gaudi2": (
        131,
        8,
        37.5,
        0.75,
        0.73,
        8,
        "21 of 24× 100 GbE RoCE all-to-all in the node",
        "3× 100 GbE per chip",
        "Intel Gaudi 2 whitepaper (21 scale-up, 3 scale-out ports)",
        "medium",
    ),
    "gaudi3": (
        262,
        8,
        75,
        0.75,
        0.73,
        8,
        "21 of 24× 200 GbE RoCE all-to-all in the node",
        "3× 200 GbE per chip",
        "Intel Gaudi 3 whitepaper (21 scale-up, 3 scale-out ports)",
        "medium",
    ),
}
_PCIE_ONLY = {
    "t4": 16,
    "a10g": 32,
    "a10": 32,
    "l4": 32,
    "l40s": 32,
    "rtx-3090": 32,
    "rtx-4090": 32,
    "rtx-5090": 64,
    "rtx-6000-ada": 32,
    "trainium3": 64,
    "inferentia2": 32,
    "apple-m2-ultra": 1.25,
    "apple-m3-max": 1.25,
    "apple-m4-max": 1.25,
}


def build_interconnects(accelerator_ids: Sequence[str]) -> list[dict[str, Any]]:
    rows = []
    for acc_id in accelerator_ids:
        if acc_id in INTERCONNECT:
            su, dom, so, ach, so_ach, lat, su_name, so_name, src, conf = INTERCONNECT[acc_id]
            notes = "advertised bidirectional figures halved to one direction"
        elif acc_id in _PCIE_ONLY:
            pcie = _PCIE_ONLY[acc_id]
            apple = acc_id.startswith("apple")
            su, dom, so, ach, so_ach, lat = (
                pcie,
                1,
                min(pcie, 1.25 if apple else 6.25),
                0.8,
                0.73,
                10,
            )
            su_name = "unified memory, no peer link" if apple else "PCIe, no NVLink"
            so_name = "10 GbE (assumption)" if apple else "one 400 Gb/s NIC per 8 GPUs (assumption)"
            src = "accelerators.csv interconnect column (PCIe generation); " + (
                "Mac Studio 10 Gb Ethernet" if apple else _PCIE_NOTE
            )
            conf = "low"
            notes = "scale-up domain 1: tensor parallel is not offered"
        else:
            continue
        rows.append(
            {
                "accelerator_id": acc_id,
                "scale_up_bandwidth": float(su) * GB,
                "scale_up_domain": int(dom),
                "scale_out_bandwidth": float(so) * GB,
                "achieved_fraction": float(ach),
                "latency_seconds": float(lat) * 1e-6,
                "source": src,
                "date": DATE,
                "scale_out_achieved_fraction": float(so_ach),
                "scale_out_latency_seconds": 10e-6,
                "scale_up_name": su_name,
                "scale_out_name": so_name,
                "confidence": conf,
                "notes": notes + "; latency per ring step: order of nccl-tests small-message "
                "all-reduce times (assumption)",
            }
        )
    return rows


# --- published throughput --------------------------------------------------------------------

ACC_NAMES: Mapping[str, str] = {
    "H100 SXM": "h100-sxm",
    "H100 SXM (500 W cap)": "h100-sxm",
    "A100 SXM 40GB": "a100-sxm-40gb",
    "A100 SXM 80GB": "a100-sxm-80gb",
    "A100-class": "a100-sxm-80gb",
    "H200": "h200-sxm",
    "GB200": "gb200",
}
# matmul rows: reference name -> catalog ids sharing that silicon
MATMUL_IDS: Mapping[str, tuple[str, ...]] = {
    "A100 SXM": ("a100-sxm-40gb", "a100-sxm-80gb", "a100-pcie-80gb"),
    "H100 SXM": ("h100-sxm", "h800-sxm", "h200-sxm", "h100-pcie"),
    "GH200": ("gh200",),
    "B200": ("b200",),
    "GB200": ("gb200",),
    "MI300X": ("mi300x",),
    "MI325X": ("mi325x",),
    "Gaudi 2": ("gaudi2",),
    "H200": ("h200-sxm",),
}
# known shapes (layers, hidden, heads, kv_heads) of calibration models, with source
SHAPES: Mapping[str, tuple[int, int, int, int, str]] = {
    "Llama3 8B": (32, 4096, 32, 8, "Llama 3 model card"),
    "Llama3.1 8B": (32, 4096, 32, 8, "Llama 3.1 model card"),
    "Llama3 70B": (80, 8192, 64, 8, "Llama 3 model card"),
    "MPT-70B": (80, 8192, 64, 64, "llm-foundry mpt-70b yaml"),
    "MPT-13B": (40, 5120, 40, 40, "llm-foundry mpt-13b yaml"),
    "MPT-7B": (32, 4096, 32, 32, "MosaicML MPT-7B model card"),
    "MPT-3B": (32, 2560, 20, 20, "llm-foundry mpt-3b yaml"),
    "GPT 175B": (96, 12288, 96, 96, "Brown et al. 2020 Table 2.1"),
    "GPT 530B": (105, 20480, 128, 128, "Narayanan et al. 2021 Table 1"),
    "DeepSeek-V3 (MoE 671B/37B active)": (61, 7168, 128, 128, "DeepSeek-V3 report §4.2"),
    "GPT-OSS-120B (MoE 117B/5.1B active)": (36, 2880, 64, 8, "gpt-oss model card"),
}
TOTAL_PARAMS: Mapping[str, float] = {
    "DeepSeek-V3 (MoE 671B/37B active)": 671e9,
    "GPT-OSS-120B (MoE 117B/5.1B active)": 117e9,
}
# routed experts per token of the MoE calibration models, with source
TOP_K: Mapping[str, tuple[int, str]] = {
    "DeepSeek-V3 (MoE 671B/37B active)": (8, "DeepSeek-V3 report §2.1.2: 256 routed, top-8"),
    "GPT-OSS-120B (MoE 117B/5.1B active)": (4, "gpt-oss model card: 128 experts, top-4"),
}
DOMAIN_OVERRIDE: Mapping[str, int] = {"KempnerForge benchmarks": 4}
# software stack each source ran (its own name for it): Megatron-LM/NeMo or PyTorch FSDP
STACK_BY_SOURCE: Sequence[tuple[str, str]] = (
    ("NVIDIA/Megatron-LM", "megatron"),
    ("Narayanan et al. 2021", "megatron"),
    ("Jiang et al. 2024 MegaScale", "megatron"),  # a Megatron-LM derivative (§3)
    ("NVIDIA NeMo Megatron-Bridge", "megatron"),
    ("pytorch/torchtitan", "fsdp"),
    ("mosaicml/llm-foundry", "fsdp"),
    ("KempnerForge", "fsdp"),  # FSDP2 + TP in PyTorch, as the rows' plans say
)
# power caps the rows state in the accelerator name, W
POWER_CAP: Mapping[str, float] = {"H100 SXM (500 W cap)": 500.0}


def stack_of(source: str) -> str:
    for prefix, stack in STACK_BY_SOURCE:
        if source.startswith(prefix):
            return stack
    return "typical"


def parse_plan(text: str, gpus: int) -> dict[str, int] | None:
    """TP/PP/DP/VP/EP from the reference's parallelism text; None when not a plan."""
    t = text.upper()
    found = {k: int(v) for k, v in re.findall(r"\b(TP|PP|DP|VP|EP|FSDP)(\d+)", t)}
    if t.strip() == "FSDP" or found:
        tp, pp = found.get("TP", 1), found.get("PP", 1)
        plan = {"tp": tp, "pp": pp, "dp": gpus // (tp * pp)}
        if "VP" in found:
            plan["virtual_stages"] = found["VP"]
        plan["zero_stage"] = 3 if "FSDP" in t else 1
        if plan["dp"] * tp * pp != gpus:
            return None
        return plan
    return None


def build_throughput_rows(rows: Sequence[Mapping[str, str]]) -> dict[str, list[dict[str, Any]]]:
    training: list[dict[str, Any]] = []
    matmul: list[dict[str, Any]] = []
    busbw: list[dict[str, Any]] = []
    for row in rows:
        kind = row["kind"]
        src = f"{row['source']} (published_throughput.csv, confidence {row['confidence']})"
        if kind == "matmul_efficiency":
            matmul.append(
                {
                    "name": row["accelerator"],
                    "accelerator_ids": list(MATMUL_IDS[row["accelerator"]]),
                    "precision": row["precision"],
                    "value": float(row["value"]),
                    "source": src,
                    "notes": row["notes"],
                    "date": DATE,
                }
            )
        elif kind == "collective_busbw":
            busbw.append(
                {
                    "name": row["model"],
                    "accelerator": row["accelerator"],
                    "gpus": int(row["gpus"]),
                    "value_gbs": row["value"],
                    "setup": row["parallelism"],
                    "source": src,
                    "notes": row["notes"],
                }
            )
        elif kind.startswith("training_"):
            gpus = int(row["gpus"])
            acc = ACC_NAMES[row["accelerator"]]
            model = row["model"]
            shape = SHAPES.get(model)
            value = float(row["value"])
            metric = "hfu" if kind == "training_hfu" else "mfu"
            peak_note = "fp8 peak" if row["precision"] == "fp8" else "bf16/fp16 peak"
            entry: dict[str, Any] = {
                "model": model,
                "kind": kind,
                "metric": metric,
                "params": TOTAL_PARAMS.get(model, float(row["params"])),
                "active_params": float(row["params"]) if model in TOTAL_PARAMS else None,
                "accelerator_id": acc,
                "gpus": gpus,
                "seq_len": int(row["seq_len"]),
                "precision": row["precision"],
                "published": value,
                "published_unit": row["unit"],
                "divided_by": peak_note,
                "plan": parse_plan(row["parallelism"], gpus),
                "parallelism": row["parallelism"],
                "shape": None
                if shape is None
                else {
                    "layers": shape[0],
                    "hidden": shape[1],
                    "heads": shape[2],
                    "kv_heads": shape[3],
                    "source": shape[4],
                },
                "scale_up_domain": DOMAIN_OVERRIDE.get(row["source"]),
                "software_stack": stack_of(row["source"]),
                "power_cap_w": POWER_CAP.get(row["accelerator"]),
                "moe_top_k": TOP_K[model][0] if model in TOP_K else None,
                "moe_top_k_source": TOP_K[model][1] if model in TOP_K else None,
                "source": src,
                "notes": row["notes"],
            }
            training.append(entry)
    return {"training": training, "matmul_efficiency": matmul, "collective_busbw": busbw}


# Published GPU-hours of training runs (own research): scripts/data/published_runs.csv, one row
# per run with its source. ``use``: "fit" rows set the production allowance (and are judged
# out of sample by the time and organisation splits); "check" rows are only compared (figures
# that include work the model does not describe, or rounded durations).
RUNS_CSV = Path(__file__).resolve().parent / "data" / "published_runs.csv"
RUN_INTS = ("gpus", "seq_len", "layers", "hidden", "heads", "kv_heads", "vocab", "moe_top_k")
RUN_FLOATS = ("params", "active_params", "tokens", "global_batch_tokens", "power_cap_w")


def load_runs(path: Path = RUNS_CSV) -> list[dict[str, Any]]:
    """The runs table as dicts: numbers parsed, GPU-hours from GPUs × days × 24 where only the
    duration is published (``gpu_hours_basis`` says which)."""
    out: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            run: dict[str, Any] = {"model": row["model"], "organisation": row["organisation"]}
            run["date"] = row["date"]
            if row["use"] not in ("fit", "check"):
                raise ValueError(f"{row['model']}: use must be fit or check, got {row['use']!r}")
            run["use"] = row["use"]
            for name in RUN_FLOATS:
                run[name] = float(row[name]) if row[name] else None
            for name in RUN_INTS:
                run[name] = int(row[name]) if row[name] else None
            run["accelerator_id"] = row["accelerator_id"]
            run["precision"] = row["precision"] or "bf16"
            run["tied_embeddings"] = row["tied_embeddings"] == "yes"
            if row["gpu_hours"]:
                run["gpu_hours"] = float(row["gpu_hours"])
                run["gpu_hours_basis"] = "published GPU-hours"
            else:
                days = float(row["days"])
                run["gpu_hours"] = float(int(row["gpus"]) * days * 24)
                run["gpu_hours_basis"] = f"{int(row['gpus']):,} GPUs × {days:g} days × 24 h"
            run["source"] = row["source"]
            run["notes"] = row["notes"]
            out.append(run)
    return out


RUNS: Sequence[dict[str, Any]] = load_runs()


def build_perf_documents(
    reference_rows: Sequence[Mapping[str, str]],
    accelerator_ids: Sequence[str],
    common: Mapping[str, Any],
) -> dict[str, dict[str, Any]]:
    """``interconnect.json`` and ``published_throughput.json`` (with the calibration fit)."""
    from desktopapp.model.interconnect import Interconnect
    from desktopapp.model.perf_calibration import cal_rows, calibrate, fit_production
    from desktopapp.model.perf_training import efficiency_table_from_rows

    links = build_interconnects(accelerator_ids)
    tables = build_throughput_rows(reference_rows)
    ics = {row["accelerator_id"]: Interconnect(**row) for row in links}
    table = efficiency_table_from_rows(tables["matmul_efficiency"])
    fitted = calibrate(cal_rows(tables["training"]), ics, table)
    production = fit_production(
        RUNS, fitted["kernel_overhead"], fitted["attention_efficiency"], ics, table
    )
    note = (
        "generated by scripts/build_catalogs.py (curation in scripts/perf_catalogs.py) from "
        "published_throughput.csv and own sourced research; edit those, not this file"
    )
    return {
        "interconnect.json": {
            "format": "desktopapp-interconnect",
            **common,
            "reference": note,
            "bandwidth_rule": "bytes/s per GPU, one direction (advertised bidirectional / 2)",
            "interconnects": links,
        },
        "published_throughput.json": {
            "format": "desktopapp-published-throughput",
            **common,
            "reference": note,
            **tables,
            "runs": [dict(run) for run in RUNS],
            "calibration": fitted,
            "production": production,
        },
    }
