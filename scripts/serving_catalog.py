"""Build ``resources/serving_calibration.json``: published serving measurements, each with its
source, and the fit of the serving model's five free numbers to them (with leave-one-out).

    python scripts/serving_catalog.py          # rebuild
    python scripts/serving_catalog.py --check  # exit 1 if the file differs from a rebuild

The free numbers: the achieved share of datasheet memory bandwidth, the achieved share of
datasheet compute, a fixed overhead per engine step, the latency of one small all-reduce over
two devices and the GEMM row count at which a matmul reaches half the compute share (as a
multiple of the rows at which its FLOP time equals its weight-read time). They are found by a
grid search minimising the mean squared log error over all rows; the leave-one-out figures
refit with each row left out and predict that row.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from desktopapp.model import serving  # noqa: E402
from desktopapp.model.serving import ServingInputs  # noqa: E402

OUT = ROOT / "resources" / "serving_calibration.json"
SOFTWARE = (
    "2023-2025 engines: TensorRT-LLM 0.5-1.0 and PyTorch gpt-fast (CUDA graphs, fused "
    "attention, paged KV cache); published figures for one setting move about ±30% across "
    "engine versions"
)

TRT_06 = (
    "NVIDIA TensorRT-LLM docs/source/performance.md (v0.6.1 peak-throughput tables, "
    "gptSessionBenchmark, static batch; commit 138f96d)"
)
TRT_05_TTFT = (
    "NVIDIA TensorRT-LLM docs/source/performance.md (v0.5 low-latency tables: first-token "
    "latency at batch 1; commit 138f96d)"
)
TRT_10 = (
    "NVIDIA TensorRT-LLM docs/source/performance/perf-overview.md (v1.0, trtllm-bench "
    "throughput, in-flight batching, max load; commit 00f3768)"
)
GPT_FAST = (
    "pytorch-labs/gpt-fast README (8×A100-80GB power-limited to 330 W, batch 1, 5-token "
    "prompt, torch.compile; commit 0f925b5)"
)

LLAMA7 = {"params": 6.74e9, "layers": 32, "hidden": 4096, "heads": 32}
LLAMA70 = {"params": 69.0e9, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8}
LLAMA31_8 = {"params": 8.03e9, "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8}
LLAMA33_70 = {"params": 70.6e9, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8}
LLAMA31_405 = {"params": 405.9e9, "layers": 126, "hidden": 16384, "heads": 128, "kv_heads": 8}
QWEN3_235 = {
    "params": 235e9,
    "active_params": 22e9,
    "experts": 128,
    "moe_top_k": 8,
    "layers": 94,
    "hidden": 4096,
    "heads": 64,
    "kv_heads": 4,
    "head_dim": 128,
}
# TensorRT-LLM 1.0 runs MoE models with --ep and enable_attention_dp (perf-overview.md,
# "For MoE models"); the table gives TP8, the expert-parallel degree is taken as 8 too.
QWEN3_235_EP = {**QWEN3_235, "ep": 8}
FP8 = {"precision": "fp8", "kv_precision": "fp8"}


# Engine (software generation) and publication date of each source; dates are the month the
# table appeared (gpt-fast: git history of its README; TensorRT-LLM: the release month).
ENGINE_DATE = {
    GPT_FAST: ("gpt-fast (PyTorch 2.2 nightly, torch.compile, custom TP collectives)", "2023-12"),
    TRT_06: ("TensorRT-LLM 0.6.1", "2023-12"),
    TRT_05_TTFT: ("TensorRT-LLM 0.5.0 (table kept in the 0.6.1 docs)", "2023-12"),
    TRT_10: ("TensorRT-LLM 1.0 (PyTorch backend, trtllm-bench)", "2025-09"),
}


def _row(name: str, kind: str, value: float, source: str, **inputs: Any) -> dict[str, Any]:
    engine, date = ENGINE_DATE[source]
    return {
        "name": name,
        "kind": kind,
        "value": value,
        "source": source,
        "engine": engine,
        "date": date,
        "inputs": inputs,
    }


def rows() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    # gpt-fast: batch-1 decode tokens/s (one user), A100 80 GB, 200 generated tokens.
    a100 = {
        "accelerator": "a100-sxm-80gb",
        "prompt_tokens": 5,
        "output_tokens": 200,
        "quant_kernels": "gpt-fast",
    }
    for label, extra, value in (
        ("Llama-2-7B bf16 TP1", {**LLAMA7}, 104.9),
        ("Llama-2-7B int8 TP1", {**LLAMA7, "precision": "int8"}, 155.58),
        ("Llama-2-7B int4 TP1", {**LLAMA7, "precision": "int4"}, 196.80),
        ("Llama-2-70B int8 TP1", {**LLAMA70, "precision": "int8"}, 19.13),
        ("Llama-2-70B int4 TP1", {**LLAMA70, "precision": "int4"}, 25.25),
        ("Llama-2-7B bf16 TP2", {**LLAMA7, "gpus": 2}, 168.84),
        ("Llama-2-7B bf16 TP4", {**LLAMA7, "gpus": 4}, 254.02),
        ("Llama-2-7B bf16 TP8", {**LLAMA7, "gpus": 8}, 328.43),
        ("Llama-2-70B bf16 TP2", {**LLAMA70, "gpus": 2}, 21.32),
        ("Llama-2-70B bf16 TP4", {**LLAMA70, "gpus": 4}, 38.01),
        ("Llama-2-70B bf16 TP8", {**LLAMA70, "gpus": 8}, 62.50),
        ("Llama-2-70B int8 TP8", {**LLAMA70, "gpus": 8, "precision": "int8"}, 80.44),
        ("Llama-2-70B int4 TP8", {**LLAMA70, "gpus": 8, "precision": "int4"}, 90.77),
    ):
        out.append(
            _row(f"gpt-fast {label}, batch 1", "decode_rate", value, GPT_FAST, **a100, **extra)
        )
    # TensorRT-LLM v0.6.1 static batches, H100 FP8 (per-GPU figures × TP = deployment).
    h100 = {"accelerator": "h100-sxm", **FP8, "batching": "static"}
    for label, shape, tp, batch, isl, osl, per_gpu in (
        ("LLaMA 7B", LLAMA7, 1, 768, 128, 128, 19_694),
        ("LLaMA 7B", LLAMA7, 1, 112, 128, 2048, 6_818),
        ("LLaMA 7B", LLAMA7, 1, 80, 2048, 128, 2_244),
        ("LLaMA 7B", LLAMA7, 1, 48, 2048, 2048, 2_740),
        ("LLaMA 70B", LLAMA70, 2, 1024, 128, 128, 2_657),
        ("LLaMA 70B", LLAMA70, 2, 64, 2048, 2048, 547),
    ):
        out.append(
            _row(
                f"TRT-LLM 0.6 {label} H100 FP8 TP{tp} static batch {batch}, {isl}/{osl}",
                "throughput",
                per_gpu * tp,
                TRT_06,
                **h100,
                **shape,
                gpus=tp,
                batch_size=batch,
                prompt_tokens=isl,
                output_tokens=osl,
            )
        )
    a100s = {"accelerator": "a100-sxm-80gb", "precision": "fp16", "batching": "static"}
    for batch, isl, osl, value in (
        (384, 128, 128, 5_586),
        (60, 128, 2048, 1_928),
        (52, 2048, 128, 591),
    ):
        out.append(
            _row(
                f"TRT-LLM 0.6 LLaMA 7B A100 FP16 TP1 static batch {batch}, {isl}/{osl}",
                "throughput",
                value,
                TRT_06,
                **a100s,
                **LLAMA7,
                batch_size=batch,
                prompt_tokens=isl,
                output_tokens=osl,
            )
        )
    # TensorRT-LLM v0.5 first-token latency at batch 1, 2048-token prompts.
    for label, acc, prec, shape, tp, ms in (
        ("LLaMA 7B H100 FP8 TP1", "h100-sxm", "fp8", LLAMA7, 1, 36),
        ("LLaMA 70B H100 FP8 TP4", "h100-sxm", "fp8", LLAMA70, 4, 109),
        ("LLaMA 7B A100 FP16 TP1", "a100-sxm-80gb", "fp16", LLAMA7, 1, 133),
        ("LLaMA 70B A100 FP16 TP4", "a100-sxm-80gb", "fp16", LLAMA70, 4, 377),
    ):
        out.append(
            _row(
                f"TRT-LLM 0.5 {label} first token, 2048-token prompt",
                "ttft",
                ms / 1000.0,
                TRT_05_TTFT,
                accelerator=acc,
                precision=prec,
                **shape,
                gpus=tp,
                prompt_tokens=2048,
                output_tokens=1,
            )
        )
    # TensorRT-LLM v1.0, in-flight batching at maximum load (total output tokens/s).
    cont = {"batching": "continuous", **FP8, "max_running": 2048}
    for label, acc, shape, tp, isl, osl, value in (
        ("Llama 3.1 8B H100 TP1", "h100-sxm", LLAMA31_8, 1, 128, 2048, 22_714),
        ("Llama 3.1 8B H100 TP1", "h100-sxm", LLAMA31_8, 1, 2048, 2048, 9_305),
        ("Llama 3.1 8B H100 TP1", "h100-sxm", LLAMA31_8, 1, 1000, 1000, 15_220),
        ("Llama 3.3 70B H100 TP2", "h100-sxm", LLAMA33_70, 2, 128, 2048, 6_651),
        ("Llama 3.3 70B H100 TP2", "h100-sxm", LLAMA33_70, 2, 2048, 2048, 3_082),
        ("Llama 3.3 70B H200 TP1", "h200-sxm", LLAMA33_70, 1, 2048, 2048, 2_003),
        ("Llama 3.1 405B H100 TP8", "h100-sxm", LLAMA31_405, 8, 128, 2048, 4_340),
        ("Llama 3.1 405B H100 TP8", "h100-sxm", LLAMA31_405, 8, 2048, 2048, 2_296),
        ("Qwen3-235B-A22B (MoE) H100 TP8", "h100-sxm", QWEN3_235_EP, 8, 128, 2048, 19_658),
        ("Qwen3-235B-A22B (MoE) H100 TP8", "h100-sxm", QWEN3_235_EP, 8, 2048, 2048, 9_924),
        ("Qwen3-235B-A22B (MoE) H100 TP8", "h100-sxm", QWEN3_235_EP, 8, 1000, 1000, 14_898),
        ("Qwen3-235B-A22B (MoE) H100 TP8", "h100-sxm", QWEN3_235_EP, 8, 500, 2000, 18_351),
        ("Qwen3-235B-A22B (MoE) H200 TP8", "h200-sxm", QWEN3_235_EP, 8, 128, 2048, 42_821),
        ("Qwen3-235B-A22B (MoE) H200 TP8", "h200-sxm", QWEN3_235_EP, 8, 2048, 2048, 16_672),
        ("Qwen3-235B-A22B (MoE) H200 TP8", "h200-sxm", QWEN3_235_EP, 8, 1000, 1000, 23_789),
        ("Llama 3.1 8B H200 TP1", "h200-sxm", LLAMA31_8, 1, 128, 2048, 26_221),
        ("Llama 3.1 8B H200 TP1", "h200-sxm", LLAMA31_8, 1, 2048, 2048, 12_194),
        ("Llama 3.1 405B H200 TP8", "h200-sxm", LLAMA31_405, 8, 128, 2048, 5_348),
        ("Llama 3.1 405B H200 TP8", "h200-sxm", LLAMA31_405, 8, 2048, 2048, 2_948),
        ("Llama 3.3 70B H100 TP2", "h100-sxm", LLAMA33_70, 2, 1000, 1000, 4_205),
        ("Llama 3.3 70B H200 TP1", "h200-sxm", LLAMA33_70, 1, 128, 2048, 4_336),
    ):
        out.append(
            _row(
                f"TRT-LLM 1.0 {label} in-flight batching, {isl}/{osl}",
                "throughput",
                value,
                TRT_10,
                accelerator=acc,
                **cont,
                **shape,
                gpus=tp,
                prompt_tokens=isl,
                output_tokens=osl,
            )
        )
    return out


# --- measurements NOT used for calibration (issue 22): other GPUs, engines and publishers ------
MLC_4090 = (
    "mlc-ai/llm-perf-bench pull request #1 (README table, RTX 4090, CUDA 11.8, 4-bit weights, "
    "batch 1 decode; numbers posted 2023-08-05), github.com/mlc-ai/llm-perf-bench/pull/1"
)
HOLOHUB_ADA = (
    "nvidia-holoscan/holohub issue #170 (NVIDIA engineer's table: RTX 6000 Ada, 4-bit weights, "
    "batch 1, prompt 'Once upon a time'; 2024-01-23), github.com/nvidia-holoscan/holohub/issues/170"
)
OCI_MI300X = (
    "Oracle Cloud Infrastructure blog 'Serving Llama 3.1 405B model with AMD Instinct MI300X "
    "Accelerators' (2024-10-10): vLLM benchmark_latency.py, 8× MI300X, FP8, input 128 / "
    "output 128, static batch"
)
INTEL_GAUDI2 = (
    "Intel 'Model Performance Data for Intel Gaudi 2 AI Accelerators' (inference, LLM for "
    "throughput; SynapseAI 1.18.0, PyTorch 2.4.0, optimum-habana, fp8, static batch), "
    "intel.com/content/www/us/en/developer/platform/gaudi/model-performance-gaudi2-inference.html"
)
TRT_09 = (
    "NVIDIA TensorRT-LLM docs/source/performance.md at v0.9.0 (peak-throughput tables, static "
    "batch, per-GPU figures x TP; first-token tables at batch 1): same publisher as the "
    "calibration but a later release, L40S (a GPU the fit never saw) and Mixtral 8x7B MoE "
    "static batches on H100/H200, github.com/NVIDIA/TensorRT-LLM/blob/v0.9.0/docs/source/"
    "performance.md"
)
NIM_H100 = (
    "NVIDIA NIM LLM benchmarking guide 1.0.0, Performance page: Llama-3.3-70B-Instruct NIM "
    "1.8.0 on 2x H100 80GB, fp8, TP2, 5000 input / 500 output tokens, AIPerf concurrency "
    "sweep, output tokens/s, docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance"
)
HOLDOUT_ENGINE_DATE = {
    TRT_09: ("TensorRT-LLM 0.9.0", "2024-04"),
    NIM_H100: ("NVIDIA NIM 1.8.0 for Llama 3.3 70B (month approximate)", "2025-05"),
    INTEL_GAUDI2: ("optimum-habana on SynapseAI 1.18.0", "2024-10"),
    MLC_4090: ("MLC LLM / ExLlama (2023-08 commits)", "2023-08"),
    HOLOHUB_ADA: ("llama.cpp / TensorRT-LLM (2024-01)", "2024-01"),
    OCI_MI300X: ("vLLM on ROCm (2024)", "2024-10"),
}
LLAMA13 = {"params": 13.0e9, "layers": 40, "hidden": 5120, "heads": 40}
MISTRAL7 = {"params": 7.24e9, "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8}
MIXTRAL = {
    "params": 46.7e9,
    "active_params": 12.9e9,
    "experts": 8,
    "moe_top_k": 2,
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
}


def _holdout(name: str, kind: str, value: float, source: str, **inputs: Any) -> dict[str, Any]:
    engine, date = HOLDOUT_ENGINE_DATE[source]
    return {
        "name": name,
        "kind": kind,
        "value": value,
        "source": source,
        "engine": engine,
        "date": date,
        "inputs": inputs,
    }


def holdout_rows() -> list[dict[str, Any]]:
    """Published measurements kept out of the fit: GPUs and engines the calibration has not
    seen. Batch-1 rows without a stated prompt length use a short prompt (32 tokens) and 256
    generated tokens: a batch-1 decode rate hardly depends on either."""
    out: list[dict[str, Any]] = []
    short = {"prompt_tokens": 32, "output_tokens": 256}
    for engine, shape, label, value in (
        ("MLC LLM", LLAMA7, "Llama-2-7B", 191.0),
        ("MLC LLM", LLAMA13, "Llama-2-13B", 108.8),
        ("ExLlama", LLAMA7, "Llama-2-7B", 152.56),
        ("ExLlama", LLAMA13, "Llama-2-13B", 93.88),
    ):
        out.append(
            _holdout(
                f"{engine} {label} int4 RTX 4090, batch 1",
                "decode_rate",
                value,
                MLC_4090,
                accelerator="rtx-4090",
                precision="int4",
                **shape,
                **short,
            )
        )
    llama70_mha = {**LLAMA70}
    for engine, shape, label, value in (
        ("llama.cpp", LLAMA7, "Llama-2-7B", 114.1),
        ("llama.cpp", LLAMA13, "Llama-2-13B", 66.3),
        ("llama.cpp", llama70_mha, "Llama-2-70B", 16.73),
        ("TensorRT-LLM", LLAMA7, "Llama-2-7B", 186.583),
        ("TensorRT-LLM", LLAMA13, "Llama-2-13B", 105.275),
    ):
        out.append(
            _holdout(
                f"{engine} {label} int4 RTX 6000 Ada, batch 1",
                "decode_rate",
                value,
                HOLOHUB_ADA,
                accelerator="rtx-6000-ada",
                precision="int4",
                **shape,
                **short,
            )
        )
    for batch, value in ((1, 36), (8, 258), (64, 1184), (256, 1846)):
        out.append(
            _holdout(
                f"vLLM Llama 3.1 405B FP8 8× MI300X static batch {batch}, 128/128",
                "throughput",
                float(value),
                OCI_MI300X,
                accelerator="mi300x",
                **FP8,
                **LLAMA31_405,
                gpus=8,
                batching="static",
                batch_size=batch,
                prompt_tokens=128,
                output_tokens=128,
            )
        )
    # added after the GPU/engine split was settled: a blind check of it (``blind``)
    llama2_70 = {**LLAMA70}
    for label, shape, hpu, isl, osl, batch, value in (
        ("LLaMA 2 7B", LLAMA7, 1, 128, 128, 1230, 13_137),
        ("LLaMA 2 7B", LLAMA7, 1, 128, 2048, 163, 4_791),
        ("LLaMA 2 7B", LLAMA7, 1, 2048, 128, 94, 1_449),
        ("LLaMA 2 7B", LLAMA7, 1, 2048, 2048, 81, 1_953),
        ("LLaMA 2 70B", llama2_70, 2, 128, 128, 1750, 2_844),
        ("LLaMA 2 70B", llama2_70, 4, 128, 2048, 327, 3_211),
        ("LLaMA 2 70B", llama2_70, 2, 2048, 128, 95, 310),
        ("LLaMA 2 70B", llama2_70, 2, 2048, 2048, 78, 1_438),
        ("LLaMA 3.1 8B", LLAMA31_8, 1, 128, 128, 2429, 18_201),
        ("LLaMA 3.1 8B", LLAMA31_8, 1, 128, 2048, 289, 11_138),
        ("LLaMA 3.1 8B", LLAMA31_8, 1, 2048, 128, 179, 2_028),
        ("LLaMA 3.1 8B", LLAMA31_8, 1, 2048, 2048, 155, 5_511),
    ):
        row = _holdout(
            f"optimum-habana {label} FP8 {hpu}× Gaudi 2 static batch {batch}, {isl}/{osl}",
            "throughput",
            float(value),
            INTEL_GAUDI2,
            accelerator="gaudi2",
            **FP8,
            **shape,
            gpus=hpu,
            batching="static",
            batch_size=batch,
            prompt_tokens=isl,
            output_tokens=osl,
        )
        row["blind"] = True
        out.append(row)
    out.extend(_holdout_issue22_round2())
    return out


def _holdout_issue22_round2() -> list[dict[str, Any]]:
    """Second round of issue 22: L40S and Mixtral from TensorRT-LLM 0.9.0, NIM on H100 at given
    concurrencies. Checked, never fitted; not marked ``blind``: their errors were looked at once
    before the PCIe-peer and MoE-matmul terms were added (they showed L40S tensor parallel going
    over the network and Mixtral's compute-bound steps too fast). The flat MoE-matmul share was
    later replaced by the GEMM row-count efficiency (serving.gemm_efficiency), which leaves
    TensorRT-LLM 0.9's large-batch Mixtral rows too fast: their experts see hundreds to
    thousands of rows each, where small-GEMM physics costs nothing."""
    out: list[dict[str, Any]] = []
    static = {**FP8, "batching": "static"}
    for acc, label, shape, batch, tp, isl, osl, per_gpu in (
        ("l40s", "LLaMA 7B", LLAMA7, 256, 1, 128, 128, 5_885),
        ("l40s", "LLaMA 7B", LLAMA7, 64, 1, 128, 2048, 1_654),
        ("l40s", "LLaMA 7B", LLAMA7, 32, 1, 2048, 128, 574),
        ("l40s", "LLaMA 7B", LLAMA7, 16, 1, 2048, 2048, 537),
        ("l40s", "Mistral 7B", MISTRAL7, 896, 1, 128, 128, 9_562),
        ("l40s", "Mistral 7B", MISTRAL7, 120, 1, 128, 2048, 4_387),
        ("l40s", "Mistral 7B", MISTRAL7, 84, 1, 2048, 128, 971),
        ("l40s", "Mistral 7B", MISTRAL7, 56, 1, 2048, 2048, 1_721),
        ("l40s", "LLaMA 70B", LLAMA70, 256, 2, 128, 128, 562),
        ("l40s", "LLaMA 70B", LLAMA70, 256, 4, 128, 2048, 478),
        ("l40s", "LLaMA 70B", LLAMA70, 16, 2, 2048, 128, 49),
        ("l40s", "LLaMA 70B", LLAMA70, 64, 4, 2048, 2048, 185),
        ("l40s", "Mixtral 8x7B (MoE)", MIXTRAL, 256, 4, 128, 128, 1_266),
        ("l40s", "Mixtral 8x7B (MoE)", MIXTRAL, 256, 4, 128, 2048, 1_490),
        ("l40s", "Mixtral 8x7B (MoE)", MIXTRAL, 64, 4, 2048, 128, 155),
        ("l40s", "Mixtral 8x7B (MoE)", MIXTRAL, 32, 4, 2048, 2048, 412),
        ("h100-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 512, 2, 128, 128, 5_255),
        ("h100-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 128, 2, 128, 2048, 3_408),
        ("h100-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 64, 2, 2048, 128, 588),
        ("h100-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 32, 2, 2048, 2048, 1_317),
        ("h200-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 1024, 2, 128, 128, 5_444),
        ("h200-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 256, 2, 128, 2048, 4_973),
        ("h200-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 64, 2, 2048, 128, 605),
        ("h200-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 64, 2, 2048, 2048, 1_821),
    ):
        out.append(
            _holdout(
                f"TRT-LLM 0.9 {label} FP8 {tp}x {acc} static batch {batch}, {isl}/{osl}",
                "throughput",
                float(per_gpu * tp),
                TRT_09,
                accelerator=acc,
                **static,
                **shape,
                gpus=tp,
                batch_size=batch,
                prompt_tokens=isl,
                output_tokens=osl,
            )
        )
    for acc, label, shape, tp, isl, ms in (
        ("l40s", "LLaMA 7B", LLAMA7, 1, 128, 14.1),
        ("l40s", "LLaMA 7B", LLAMA7, 1, 2048, 80.1),
        ("l40s", "Mistral 7B", MISTRAL7, 1, 128, 15.4),
        ("l40s", "Mistral 7B", MISTRAL7, 1, 2048, 87.3),
        ("l40s", "Mixtral 8x7B (MoE)", MIXTRAL, 4, 128, 19.5),
        ("l40s", "Mixtral 8x7B (MoE)", MIXTRAL, 4, 2048, 165.6),
        ("l40s", "LLaMA 70B", LLAMA70, 8, 128, 70.4),
        ("l40s", "LLaMA 70B", LLAMA70, 4, 2048, 673.3),
        ("h100-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 2, 128, 13.4),
        ("h100-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 2, 2048, 89.5),
        ("h200-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 2, 128, 12.1),
        ("h200-sxm", "Mixtral 8x7B (MoE)", MIXTRAL, 2, 2048, 87.7),
    ):
        out.append(
            _holdout(
                f"TRT-LLM 0.9 {label} FP8 {tp}x {acc} first token, {isl}-token prompt",
                "ttft",
                ms / 1000.0,
                TRT_09,
                accelerator=acc,
                **FP8,
                **shape,
                gpus=tp,
                prompt_tokens=isl,
                output_tokens=1,
            )
        )
    for conc, value in ((1, 51.67), (5, 218.48), (25, 623.4), (50, 814.37), (100, 917.26)):
        out.append(
            _holdout(
                f"NIM 1.8 Llama 3.3 70B FP8 2x H100 TP2 concurrency {conc}, 5000/500",
                "throughput",
                value,
                NIM_H100,
                accelerator="h100-sxm",
                **FP8,
                **LLAMA33_70,
                gpus=2,
                concurrency=conc,
                prompt_tokens=5000,
                output_tokens=500,
            )
        )
    return out


def holdout_summary(table: list[dict[str, Any]], fitted: dict[str, Any]) -> dict[str, Any]:
    """Error of the fitted defaults on rows the fit never saw, overall and per source."""
    shares = serving.make_shares(
        *(np.asarray([fitted[k]], dtype=float) for k in GRID)  # the fitted numbers
    )
    errors = []
    by_source: dict[str, list[float]] = {}
    for row in table:
        pred = float(np.asarray(predict(row, shares), dtype=float).reshape(-1)[0])
        ratio = pred / row["value"]
        err = max(ratio, 1.0 / ratio)
        row["predicted"] = round(pred, 4)
        errors.append(err)
        by_source.setdefault(row["source"], []).append(err)
    arr = np.asarray(errors)

    def stats(values: list[float] | Any) -> dict[str, float]:
        a = np.asarray(values)
        return {
            "rows": int(a.size),
            "within_1_5": float(np.mean(a <= 1.5)),
            "median_error": float(np.median(a)),
        }

    ratios = np.asarray([r["predicted"] / r["value"] for r in table])
    blind = np.asarray([e for e, r in zip(errors, table, strict=True) if r.get("blind")])
    seen_gpus = set(serving.CALIBRATION_GPUS)
    off = [r["inputs"].get("accelerator") not in seen_gpus for r in table]
    off_ratios = ratios[np.asarray(off, dtype=bool)]
    unseen = None
    if off_ratios.size:
        unseen = {
            **stats([max(x, 1.0 / x) for x in off_ratios]),
            "ratio_low": float(off_ratios.min()),
            "ratio_high": float(off_ratios.max()),
            "gpus": sorted(
                {str(r["inputs"].get("accelerator")) for r, o in zip(table, off, strict=True) if o}
            ),
            "meaning": "rows on GPUs the fit has no rows for: the widest predicted/measured",
        }
    return {
        **stats(arr),
        "blind": stats(blind) if blind.size else None,
        "unseen_gpus": unseen,
        "ratio_quantiles": [0.1, 0.9],
        "ratio_low": float(np.quantile(ratios, 0.1)),
        "ratio_high": float(np.quantile(ratios, 0.9)),
        "ratio_min": float(ratios.min()),
        "ratio_max": float(ratios.max()),
        "by_source": {source: stats(v) for source, v in by_source.items()},
        "method": "fitted defaults (no refit); error = max(pred/meas, meas/pred)",
    }


def predict(row: dict[str, Any], shares: Any = None) -> Any:
    inp = ServingInputs(**row["inputs"])
    if row["kind"] == "decode_rate":
        return serving.predict_decode_rate(inp, shares)
    if row["kind"] == "ttft":
        return serving.predict_ttft(inp, shares)
    return serving.predict_rate(inp, shares)


GRID = {
    "bandwidth_share": np.round(np.arange(0.40, 0.951, 0.05), 2),
    "compute_share": np.round(np.arange(0.30, 0.901, 0.05), 2),
    "step_overhead_s": np.array([0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]) * 1e-3,
    "allreduce_latency_s": np.array([4.0, 8.0, 12.0, 16.0, 20.0, 25.0, 30.0]) * 1e-6,
    # rows at which a GEMM reaches half the compute share, as a multiple of the rows at which
    # its FLOP time equals its weight-read time (serving.gemm_efficiency, serving.ridge_rows);
    # dense matmuls see the step's tokens, routed experts their k/E share of them
    "gemm_half_ridge": np.array([0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0]),
}


def _grid_shares() -> tuple[Any, list[tuple[float, ...]]]:
    combos = list(itertools.product(*GRID.values()))
    arr = np.asarray(combos, dtype=float)
    return serving.make_shares(*(arr[:, i] for i in range(arr.shape[1]))), combos


def fit(table: list[dict[str, Any]]) -> dict[str, Any]:
    shares, combos = _grid_shares()
    log_err = np.vstack(
        [np.log(np.asarray(predict(r, shares), dtype=float) / r["value"]) for r in table]
    )
    sq = log_err**2
    total = sq.sum(axis=0)
    best = int(np.argmin(total))
    in_sample = np.exp(np.abs(log_err[:, best]))
    loo = []
    for i in range(len(table)):
        j = int(np.argmin(total - sq[i]))
        loo.append(float(np.exp(abs(log_err[i, j]))))
    loo_arr = np.asarray(loo)
    keys = list(GRID)
    return {
        **{k: float(combos[best][n]) for n, k in enumerate(keys)},
        "rows": len(table),
        "in_sample_within_1_5": float(np.mean(in_sample <= 1.5)),
        "in_sample_median_error": float(np.median(in_sample)),
        "loo_within_1_5": float(np.mean(loo_arr <= 1.5)),
        "loo_median_error": float(np.median(loo_arr)),
        "loo_errors": [round(x, 4) for x in loo],
        "method": "grid search, mean squared log error; error = max(pred/meas, meas/pred)",
    }


def validate(table: list[dict[str, Any]]) -> None:
    """Every row names its source, engine and month, and has a positive measured value."""
    for row in table:
        for key in ("name", "source", "engine", "date"):
            if not str(row.get(key, "")).strip():
                raise ValueError(f"row {row.get('name', '?')!r} has no {key}")
        year, _, month = str(row["date"]).partition("-")
        if not (year.isdigit() and month.isdigit() and 1 <= int(month) <= 12):
            raise ValueError(f"row {row['name']!r}: date {row['date']!r} is not YYYY-MM")
        if not float(row["value"]) > 0:
            raise ValueError(f"row {row['name']!r}: measured value must be positive")


def build() -> dict[str, Any]:
    table = rows()
    validate(table)
    holdout = holdout_rows()
    validate(holdout)
    fitted = fit(table)
    summary = holdout_summary(holdout, fitted)
    return {
        "format": "desktopapp-serving-calibration/1",
        "software": SOFTWARE,
        "date": "2026-11",
        "fit": fitted,
        "grid": {k: [float(x) for x in v] for k, v in GRID.items()},
        "rows": table,
        "holdout": holdout,
        "holdout_summary": summary,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = json.dumps(build(), indent=1, sort_keys=False) + "\n"
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        if current != text:
            print(f"{OUT.name} is out of date: run python scripts/serving_catalog.py")
            return 1
        print(f"{OUT.name} is up to date")
        return 0
    OUT.write_text(text, encoding="utf-8")
    fit_ = json.loads(text)["fit"]
    print(
        f"wrote {OUT.relative_to(ROOT)}: {fit_['rows']} rows; bandwidth "
        f"{fit_['bandwidth_share']:.2f}, compute {fit_['compute_share']:.2f}, overhead "
        f"{fit_['step_overhead_s'] * 1e3:.2f} ms, all-reduce "
        f"{fit_['allreduce_latency_s'] * 1e6:.0f} µs, GEMM M½ "
        f"{fit_['gemm_half_ridge']:.2f} × ridge rows; leave-one-out within 1.5×: "
        f"{fit_['loo_within_1_5']:.0%}, median "
        f"×{fit_['loo_median_error']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
