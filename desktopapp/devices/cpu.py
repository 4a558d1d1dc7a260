"""CPU and RAM facts read straight from ``/proc`` and ``/sys`` (Linux), else platform + psutil.

Reading ``/proc/cpuinfo`` takes well under a millisecond, so detection is fast enough for the
GUI to show CPU facts immediately (py-cpuinfo is not used: it is slow and misreports under some
hypervisors).

The peak FP32 rate is an *estimate*: compute units × clock × FP32 FLOPs per cycle per core, with
every factor and where it came from recorded in :class:`PeakEstimate`. Under a hypervisor
``/proc/cpuinfo`` often shows only the TSC frequency (the nominal clock) while the cores run at
their turbo clock, so the estimate can understate; a small table of published boost clocks for
common cloud server CPUs fills the gap where the model name identifies the part.
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

# ISA features that matter for ML, in display order: (canonical name, /proc/cpuinfo flag names).
_X86_FEATURES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sse4_2", ("sse4_2",)),
    ("avx", ("avx",)),
    ("avx2", ("avx2",)),
    ("fma", ("fma",)),
    ("f16c", ("f16c",)),
    ("avx512f", ("avx512f",)),
    ("avx512bw", ("avx512bw",)),
    ("avx512vl", ("avx512vl",)),
    ("avx512_vnni", ("avx512_vnni", "avx512vnni")),
    ("avx512_bf16", ("avx512_bf16",)),
    ("avx512_fp16", ("avx512_fp16",)),
    ("avx_vnni", ("avx_vnni",)),
    ("amx_tile", ("amx_tile",)),
    ("amx_bf16", ("amx_bf16",)),
    ("amx_int8", ("amx_int8",)),
    ("amx_fp16", ("amx_fp16",)),
)
_ARM_FEATURES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("neon", ("asimd", "neon")),
    ("fp16", ("asimdhp", "fphp")),
    ("dotprod", ("asimddp",)),
    ("i8mm", ("i8mm",)),
    ("bf16", ("bf16",)),
    ("sve", ("sve",)),
    ("sve2", ("sve2",)),
    ("sme", ("sme",)),
)
# numpy's runtime CPU dispatch names → our canonical names (non-Linux fallback).
_NUMPY_FEATURES: Mapping[str, str] = {
    "SSE42": "sse4_2",
    "AVX": "avx",
    "AVX2": "avx2",
    "FMA3": "fma",
    "F16C": "f16c",
    "AVX512F": "avx512f",
    "AVX512BW": "avx512bw",
    "AVX512VL": "avx512vl",
    "AVX512VNNI": "avx512_vnni",
    "AVX512BF16": "avx512_bf16",
    "AVX512FP16": "avx512_fp16",
    "AVXVNNI": "avx_vnni",
    "ASIMD": "neon",
    "ASIMDHP": "fp16",
    "ASIMDDP": "dotprod",
    "SVE": "sve",
}

# ARM "CPU implementer"/"CPU part" codes → names (the kernel gives no model name on ARM).
_ARM_IMPLEMENTERS: Mapping[str, str] = {
    "0x41": "ARM",
    "0x42": "Broadcom",
    "0x43": "Cavium",
    "0x46": "Fujitsu",
    "0x48": "HiSilicon",
    "0x4e": "NVIDIA",
    "0x51": "Qualcomm",
    "0x61": "Apple",
    "0xc0": "Ampere",
}
_ARM_PARTS: Mapping[tuple[str, str], str] = {
    ("0x41", "0xd03"): "Cortex-A53",
    ("0x41", "0xd05"): "Cortex-A55",
    ("0x41", "0xd07"): "Cortex-A57",
    ("0x41", "0xd08"): "Cortex-A72",
    ("0x41", "0xd0b"): "Cortex-A76",
    ("0x41", "0xd0c"): "Neoverse N1",
    ("0x41", "0xd0d"): "Cortex-A77",
    ("0x41", "0xd40"): "Neoverse V1",
    ("0x41", "0xd41"): "Cortex-A78",
    ("0x41", "0xd44"): "Cortex-X1",
    ("0x41", "0xd49"): "Neoverse N2",
    ("0x41", "0xd4f"): "Neoverse V2",
    ("0x41", "0xd84"): "Neoverse V3",
    ("0xc0", "0xac3"): "Ampere-1",
    ("0x48", "0xd01"): "TaiShan v110",
}


@dataclass(frozen=True)
class BoostClock:
    """Published base and maximum boost clock of one CPU model (GHz)."""

    base_ghz: float
    boost_ghz: float
    source: str


_EPYC_7003_SOURCE = (
    "AMD EPYC 7003 (Milan) launch line-up, March 2021 "
    "(https://techgage.com/article/amd-epyc-milan-launch-performance/)"
)
# Keys are normalised model numbers found in the "model name" string.
KNOWN_BOOST_CLOCKS: Mapping[str, BoostClock] = {
    "EPYC 7763": BoostClock(2.45, 3.5, _EPYC_7003_SOURCE),
    "EPYC 7713": BoostClock(2.0, 3.675, _EPYC_7003_SOURCE),
    "EPYC 7713P": BoostClock(2.0, 3.675, _EPYC_7003_SOURCE),
    "EPYC 7663": BoostClock(2.0, 3.5, _EPYC_7003_SOURCE),
    "EPYC 7643": BoostClock(2.3, 3.6, _EPYC_7003_SOURCE),
    "EPYC 75F3": BoostClock(2.95, 4.0, _EPYC_7003_SOURCE),
    "EPYC 7543": BoostClock(2.8, 3.7, _EPYC_7003_SOURCE),
    "EPYC 7543P": BoostClock(2.8, 3.7, _EPYC_7003_SOURCE),
    "EPYC 7513": BoostClock(2.6, 3.65, _EPYC_7003_SOURCE),
    "EPYC 74F3": BoostClock(3.2, 4.0, _EPYC_7003_SOURCE),
    "EPYC 7453": BoostClock(2.75, 3.45, _EPYC_7003_SOURCE),
    "EPYC 7443": BoostClock(2.85, 4.0, _EPYC_7003_SOURCE),
    "EPYC 7443P": BoostClock(2.85, 4.0, _EPYC_7003_SOURCE),
    "EPYC 7413": BoostClock(2.65, 3.6, _EPYC_7003_SOURCE),
    "EPYC 73F3": BoostClock(3.5, 4.0, _EPYC_7003_SOURCE),
    "EPYC 7343": BoostClock(3.2, 3.9, _EPYC_7003_SOURCE),
    "EPYC 7313": BoostClock(3.0, 3.7, _EPYC_7003_SOURCE),
    "EPYC 7313P": BoostClock(3.0, 3.7, _EPYC_7003_SOURCE),
    "EPYC 72F3": BoostClock(3.7, 4.1, _EPYC_7003_SOURCE),
}


@dataclass(frozen=True)
class CacheLevel:
    level: int
    kind: str  # "Data", "Instruction", "Unified"
    size_bytes: int  # one instance
    instances: int  # how many of them in the machine (estimated from sharing)

    @property
    def label(self) -> str:
        suffix = {"Data": "d", "Instruction": "i"}.get(self.kind, "")
        return f"L{self.level}{suffix}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "kind": self.kind,
            "label": self.label,
            "size_bytes": self.size_bytes,
            "instances": self.instances,
        }


@dataclass(frozen=True)
class PeakEstimate:
    """Peak FP32 rate from units × clock × FLOPs/cycle; an estimate, never a measurement."""

    gflops: float
    units: int
    unit_kind: str  # "cores" or "vCPUs"
    clock_ghz: float
    clock_source: str
    flops_per_cycle: int
    isa: str  # "AVX-512 (2 FMA units × 16 fp32 lanes × 2)"
    assumptions: tuple[str, ...]

    @property
    def formula(self) -> str:
        return (
            f"{self.units} {self.unit_kind} × {self.clock_ghz:.2f} GHz × "
            f"{self.flops_per_cycle} FLOP/cycle ({self.isa}) = {self.gflops:.0f} GFLOP/s"
        )

    @property
    def tflops(self) -> float:
        return self.gflops / 1000.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "gflops": self.gflops,
            "units": self.units,
            "unit_kind": self.unit_kind,
            "clock_ghz": self.clock_ghz,
            "clock_source": self.clock_source,
            "flops_per_cycle": self.flops_per_cycle,
            "isa": self.isa,
            "formula": self.formula,
            "assumptions": list(self.assumptions),
        }


@dataclass(frozen=True)
class CpuInfo:
    model: str
    vendor: str
    arch: str  # "x86_64", "aarch64", …
    sockets: int
    cores: int  # physical cores (as the OS reports them)
    threads: int  # logical CPUs online
    usable_threads: int  # logical CPUs this process may run on (affinity / cpuset)
    base_clock_ghz: float | None
    max_clock_ghz: float | None
    reported_clock_ghz: float | None  # "cpu MHz" (current or, in a VM, often the TSC)
    clock_source: str  # where the clock used for the peak came from
    features: tuple[str, ...]  # ML-relevant ISA features, canonical names
    caches: tuple[CacheLevel, ...]
    virtualized: bool
    peak: PeakEstimate | None
    source: str  # "/proc/cpuinfo + /sys" or "platform + psutil"
    notes: tuple[str, ...] = ()
    raw_flag_count: int = 0
    family: int | None = None  # x86 "cpu family"

    def has(self, feature: str) -> bool:
        return feature in self.features

    @property
    def native_bf16(self) -> bool:
        """Hardware bf16 dot products (AVX512-BF16, AMX-BF16 or ARM BF16)."""
        return any(f in self.features for f in ("avx512_bf16", "amx_bf16", "bf16"))

    @property
    def peak_fp32_gflops_estimate(self) -> float | None:
        return self.peak.gflops if self.peak else None

    @property
    def clock_assumption(self) -> str:
        if self.peak is None:
            return "unknown: no clock could be read"
        return f"{self.peak.clock_ghz:.2f} GHz from {self.peak.clock_source}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "vendor": self.vendor,
            "arch": self.arch,
            "family": self.family,
            "sockets": self.sockets,
            "cores": self.cores,
            "threads": self.threads,
            "usable_threads": self.usable_threads,
            "base_clock_ghz": self.base_clock_ghz,
            "max_clock_ghz": self.max_clock_ghz,
            "reported_clock_ghz": self.reported_clock_ghz,
            "clock_source": self.clock_source,
            "clock_assumption": self.clock_assumption,
            "flags": list(self.features),
            "native_bf16": self.native_bf16,
            "raw_flag_count": self.raw_flag_count,
            "caches": [c.to_dict() for c in self.caches],
            "virtualized": self.virtualized,
            "peak_fp32_gflops_estimate": self.peak_fp32_gflops_estimate,
            "peak_is_estimate": True,
            "peak_formula": self.peak.formula if self.peak else None,
            "peak": self.peak.to_dict() if self.peak else None,
            "source": self.source,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class MemoryInfo:
    total_bytes: float | None
    available_bytes: float | None
    swap_total_bytes: float | None
    source: str
    reason: str = ""  # "" when read; else "unavailable because …"

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_bytes": self.total_bytes,
            "available_bytes": self.available_bytes,
            "swap_total_bytes": self.swap_total_bytes,
            "source": self.source,
            "reason": self.reason,
        }


# --- parsing -------------------------------------------------------------------------------


def parse_cpuinfo(text: str) -> list[dict[str, str]]:
    """``/proc/cpuinfo`` → one dict per block (processor), keys as written by the kernel.

    Lines before the first ``processor`` line and trailing blocks without one (ARM puts
    ``Hardware``/``Revision`` at the end) are returned as their own blocks.
    """
    blocks: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if current:
                blocks.append(current)
                current = {}
            continue
        key, sep, value = line.partition(":")
        if not sep:
            continue
        current[key.strip()] = value.strip()
    if current:
        blocks.append(current)
    return blocks


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _read_int(path: Path) -> int | None:
    text = _read(path)
    if text is None:
        return None
    try:
        return int(text.strip())
    except ValueError:
        return None


def _parse_cpu_list(text: str) -> list[int]:
    """``"0-3,8,10-11"`` → ``[0, 1, 2, 3, 8, 10, 11]``."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        low, sep, high = part.partition("-")
        try:
            if sep:
                cpus.extend(range(int(low), int(high) + 1))
            else:
                cpus.append(int(low))
        except ValueError:
            continue
    return cpus


def _parse_size(text: str) -> int | None:
    """Cache sizes as the kernel writes them: ``"48K"``, ``"2048K"``, ``"32M"``, ``"307200 KB"``."""
    match = re.match(r"^\s*(\d+)\s*([KMG]?)B?\s*$", text.strip(), re.IGNORECASE)
    if not match:
        return None
    factor = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}[match.group(2).upper()]
    return int(match.group(1)) * factor


def _canonical_features(
    raw: set[str], table: tuple[tuple[str, tuple[str, ...]], ...]
) -> tuple[str, ...]:
    return tuple(name for name, aliases in table if any(a in raw for a in aliases))


def _model_from_arm(block: Mapping[str, str], root: Path) -> tuple[str, str]:
    implementer = block.get("CPU implementer", "").lower()
    part = block.get("CPU part", "").lower()
    fallback = f"ARM implementer {implementer}" if implementer else ""
    vendor = _ARM_IMPLEMENTERS.get(implementer, fallback)
    name = _ARM_PARTS.get((implementer, part))
    if not name:
        name = f"{vendor} part {part}".strip() if part else ""
    board = _read(root / "sys/firmware/devicetree/base/model")
    if board:
        board = board.strip("\x00\n ")
        name = f"{name} ({board})" if name else board
    return name or "ARM CPU", vendor or "ARM"


def _model_clock_ghz(model: str) -> float | None:
    """Intel model names end with the nominal clock: ``"… CPU @ 2.10GHz"``."""
    match = re.search(r"@\s*([\d.]+)\s*GHz", model, re.IGNORECASE)
    return float(match.group(1)) if match else None


def find_known_boost(model: str) -> tuple[str, BoostClock] | None:
    """The published boost clock for a CPU named in ``model``, or None."""
    upper = model.upper()
    # Longest key first so "EPYC 7713P" wins over "EPYC 7713".
    for key in sorted(KNOWN_BOOST_CLOCKS, key=len, reverse=True):
        if re.search(rf"\b{re.escape(key)}\b", upper):
            return key, KNOWN_BOOST_CLOCKS[key]
    return None


def flops_per_cycle(
    arch: str, vendor: str, family: int | None, features: tuple[str, ...]
) -> tuple[int, str, str]:
    """FP32 FLOPs per cycle per core for the widest vector FMA, with the ISA and its assumption."""
    feats = set(features)
    if arch in ("x86_64", "amd64", "i686", "x86"):
        if "avx512f" in feats:
            if "AMD" in vendor.upper() and (family or 0) <= 25:
                return (
                    32,
                    "AVX-512 on Zen 4 (2 × 256-bit FMA datapaths × 8 fp32 lanes × 2)",
                    "Zen 4 executes 512-bit FMAs on 256-bit datapaths, so AVX-512 has the same "
                    "peak as AVX2 there",
                )
            return (
                64,
                "AVX-512 (2 FMA units × 16 fp32 lanes × 2)",
                "2 AVX-512 FMA units per core (Xeon Gold/Platinum, Zen 5); parts with one unit "
                "(some Xeon Silver/Bronze and client CPUs) reach half",
            )
        if "avx2" in feats and "fma" in feats:
            return (
                32,
                "AVX2+FMA (2 FMA units × 8 fp32 lanes × 2)",
                "2 FMA units per core (Haswell and later, Zen 2 and later)",
            )
        if "avx" in feats:
            return 16, "AVX (1 add + 1 multiply unit × 8 fp32 lanes)", "no FMA: separate add/mul"
        return 8, "SSE (1 add + 1 multiply unit × 4 fp32 lanes)", "no AVX"
    if arch in ("aarch64", "arm64", "armv8l", "armv7l"):
        if "sve" in feats:
            return (
                32,
                "SVE/NEON (4 × 128-bit FMA pipes × 4 fp32 lanes × 2)",
                "4 × 128-bit (or 2 × 256-bit) FMA pipes as in Neoverse V1/V2; "
                "2-pipe cores (Neoverse N2) reach half",
            )
        if "neon" in feats and "Apple" in vendor:
            return 32, "NEON (4 × 128-bit FMA pipes × 4 fp32 lanes × 2)", "Apple M-series P-cores"
        if "neon" in feats:
            return (
                16,
                "NEON (2 × 128-bit FMA pipes × 4 fp32 lanes × 2)",
                "2 × 128-bit FMA pipes as in Neoverse N1 / Cortex-A76",
            )
        return 8, "NEON assumed (1 × 128-bit FMA pipe × 4 fp32 lanes × 2)", "ISA features unknown"
    return 8, "unknown ISA (assumed 8 FLOP/cycle)", "CPU architecture not recognised"


def estimate_peak(
    *,
    arch: str,
    vendor: str,
    family: int | None,
    features: tuple[str, ...],
    cores: int,
    threads: int,
    virtualized: bool,
    clock_ghz: float | None,
    clock_source: str,
    clock_note: str = "",
) -> PeakEstimate | None:
    """units × clock × FLOPs/cycle; None when no clock is known."""
    if clock_ghz is None or not math.isfinite(clock_ghz) or clock_ghz <= 0:
        return None
    fpc, isa, isa_note = flops_per_cycle(arch, vendor, family, features)
    assumptions = [isa_note]
    if virtualized and threads > cores:
        units, unit_kind = threads, "vCPUs"
        assumptions.append(
            "virtual machine: every vCPU counted as a core (the guest cannot see whether two "
            "vCPUs share one physical core; if they are hyperthread siblings the peak is half)"
        )
    elif virtualized:
        units, unit_kind = cores, "vCPUs"
        assumptions.append("virtual machine: vCPUs counted as cores")
    else:
        units, unit_kind = cores, "cores"
        if threads > cores:
            assumptions.append("hyperthreads add no FMA units: physical cores counted")
    assumptions.append(f"clock {clock_ghz:.2f} GHz from {clock_source}")
    if clock_note:
        assumptions.append(clock_note)
    assumptions.append("fp32 only; bf16/int8 units (AMX, VNNI) not included")
    gflops = units * clock_ghz * fpc
    return PeakEstimate(
        gflops=gflops,
        units=units,
        unit_kind=unit_kind,
        clock_ghz=clock_ghz,
        clock_source=clock_source,
        flops_per_cycle=fpc,
        isa=isa,
        assumptions=tuple(assumptions),
    )


def _caches(root: Path, threads: int) -> tuple[CacheLevel, ...]:
    base = root / "sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(p for p in base.iterdir() if p.name.startswith("index"))
    except OSError:
        return ()
    levels: list[CacheLevel] = []
    for entry in entries:
        level = _read_int(entry / "level")
        kind = (_read(entry / "type") or "").strip()
        size = _parse_size(_read(entry / "size") or "")
        shared = _parse_cpu_list(_read(entry / "shared_cpu_list") or "")
        if level is None or size is None:
            continue
        sharing = max(1, len(shared))
        instances = max(1, math.ceil(max(threads, 1) / sharing))
        levels.append(CacheLevel(level, kind or "Unified", size, instances))
    return tuple(levels)


def _affinity_count(default: int) -> int:
    getter = getattr(os, "sched_getaffinity", None)
    if getter is None:
        return default
    try:
        return len(getter(0))
    except OSError:
        return default


def read_cpu_info(root: Path | str = "/") -> CpuInfo:
    """Linux detection from ``<root>/proc/cpuinfo`` and ``<root>/sys`` (tests pass a fake root).

    Falls back to :func:`fallback_cpu_info` when ``/proc/cpuinfo`` cannot be read.
    """
    root = Path(root)
    text = _read(root / "proc/cpuinfo")
    if not text:
        return fallback_cpu_info()
    blocks = parse_cpuinfo(text)
    processors = [b for b in blocks if "processor" in b and b["processor"].isdigit()]
    first = processors[0] if processors else (blocks[0] if blocks else {})
    extra = {k: v for b in blocks if "processor" not in b for k, v in b.items()}

    raw_x86 = set(first.get("flags", "").split())
    raw_arm = set(first.get("Features", "").split())
    notes: list[str] = []
    family: int | None = None
    if raw_x86 or "vendor_id" in first:
        arch = "x86_64" if "lm" in raw_x86 or not raw_x86 else "i686"
        features = _canonical_features(raw_x86, _X86_FEATURES)
        model = first.get("model name", "").strip() or "x86 CPU"
        vendor_id = first.get("vendor_id", "")
        vendor = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD", "HygonGenuine": "Hygon"}.get(
            vendor_id, vendor_id or "unknown"
        )
        try:
            family = int(first.get("cpu family", ""))
        except ValueError:
            family = None
        virtualized = "hypervisor" in raw_x86
        raw_count = len(raw_x86)
    elif raw_arm or "CPU implementer" in first:
        arch = "aarch64" if "asimd" in raw_arm or "CPU architecture" in first else "arm"
        features = _canonical_features(raw_arm, _ARM_FEATURES)
        model, vendor = _model_from_arm(first, root)
        if extra.get("Hardware"):
            model = f"{model} [{extra['Hardware']}]"
        virtualized = bool(_read(root / "sys/hypervisor/type"))
        raw_count = len(raw_arm)
    else:
        return fallback_cpu_info()

    threads = len(processors) or 1
    online = _read(root / "sys/devices/system/cpu/online")
    if online:
        online_cpus = _parse_cpu_list(online)
        if online_cpus:
            threads = len(online_cpus)

    # Sockets and cores: /proc/cpuinfo on x86 ("physical id", "core id"), else sysfs topology.
    pairs = {(b.get("physical id", "0"), b["core id"]) for b in processors if "core id" in b}
    sockets_seen = {b["physical id"] for b in processors if "physical id" in b}
    if not pairs:
        for index in range(threads):
            topo = root / f"sys/devices/system/cpu/cpu{index}/topology"
            core = _read(topo / "core_id")
            package = _read(topo / "physical_package_id")
            if core is None:
                continue
            pairs.add(((package or "0").strip(), core.strip()))
            sockets_seen.add((package or "0").strip())
    sockets = max(1, len(sockets_seen))
    cores = len(pairs) if pairs else threads
    if "cpu cores" in first and not pairs:
        with contextlib.suppress(ValueError):
            cores = int(first["cpu cores"]) * sockets
    cores = max(1, min(cores, threads))

    # Clocks.
    reported: float | None = None
    try:
        reported = float(first.get("cpu MHz", "")) / 1000.0
    except ValueError:
        reported = None
    cpufreq = root / "sys/devices/system/cpu/cpu0/cpufreq"
    max_khz = _read_int(cpufreq / "cpuinfo_max_freq")
    base_khz = _read_int(cpufreq / "base_frequency")
    max_clock = max_khz / 1e6 if max_khz else None
    base_clock = base_khz / 1e6 if base_khz else _model_clock_ghz(model)
    clock_note = ""
    known = find_known_boost(model)
    if max_clock:
        clock, clock_source = max_clock, "cpufreq cpuinfo_max_freq (/sys), the maximum boost"
        clock_note = "maximum boost clock: all cores together usually sustain a little less"
    elif known is not None:
        key, boost = known
        max_clock = boost.boost_ghz
        base_clock = base_clock or boost.base_ghz
        clock, clock_source = boost.boost_ghz, f"known boost table ({key}: {boost.source})"
        clock_note = (
            "published single-core maximum boost: all cores together usually sustain a little "
            "less; the OS here does not expose the clock (no cpufreq)"
        )
    elif base_clock:
        clock, clock_source = base_clock, "nominal clock in the model name"
        clock_note = "nominal (base) clock: turbo is not visible here, so the peak may understate"
    elif reported:
        clock = reported
        if virtualized:
            clock_source = "/proc/cpuinfo cpu MHz (the TSC in a virtual machine)"
            clock_note = (
                "the TSC frequency shown in a virtual machine is the nominal clock; the cores "
                "usually run faster (turbo), so the peak may understate"
            )
        else:
            clock_source = "/proc/cpuinfo cpu MHz (current clock)"
            clock_note = "current clock at the moment of reading; may understate the maximum"
    else:
        clock, clock_source = None, "no clock found"
    if clock is None:
        notes.append(
            "peak estimate unavailable because no CPU clock could be read (no cpufreq, no "
            "'cpu MHz', no clock in the model name)"
        )

    peak = estimate_peak(
        arch=arch,
        vendor=vendor,
        family=family,
        features=features,
        cores=cores,
        threads=threads,
        virtualized=virtualized,
        clock_ghz=clock,
        clock_source=clock_source,
        clock_note=clock_note,
    )
    usable = min(_affinity_count(threads), threads) if root == Path("/") else threads
    if usable < threads:
        notes.append(f"this process may run on {usable} of the {threads} logical CPUs")
    return CpuInfo(
        model=model,
        vendor=vendor,
        arch=arch,
        sockets=sockets,
        cores=cores,
        threads=threads,
        usable_threads=usable,
        base_clock_ghz=base_clock,
        max_clock_ghz=max_clock,
        reported_clock_ghz=reported,
        clock_source=clock_source,
        features=features,
        caches=_caches(root, threads),
        virtualized=virtualized,
        peak=peak,
        source="/proc/cpuinfo + /sys",
        notes=tuple(notes),
        raw_flag_count=raw_count,
        family=family,
    )


def _numpy_features() -> tuple[set[str], str]:
    """CPU features from numpy's runtime dispatch table (works on every OS)."""
    import importlib

    table: Mapping[str, bool] = {}
    try:
        for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
            with contextlib.suppress(ImportError):
                table = importlib.import_module(name).__cpu_features__
                break
    except Exception as exc:
        return set(), f"ISA features unknown because numpy's CPU table could not be read ({exc})"
    if not table:
        return set(), "ISA features unknown because numpy's CPU feature table is not available"
    found = {ours for theirs, ours in _NUMPY_FEATURES.items() if table.get(theirs)}
    return found, ""


def _windows_cpu_name() -> str:
    try:
        import winreg  # type: ignore[import-not-found,unused-ignore]

        key = winreg.OpenKey(  # type: ignore[attr-defined,unused-ignore]
            winreg.HKEY_LOCAL_MACHINE,  # type: ignore[attr-defined,unused-ignore]
            r"HARDWARE\DESCRIPTION\System\CentralProcessor\0",
        )
        value, _ = winreg.QueryValueEx(key, "ProcessorNameString")  # type: ignore[attr-defined,unused-ignore]
        return str(value).strip()
    except Exception:
        return ""


def _macos_cpu_name() -> str:
    import subprocess

    try:
        out = subprocess.run(
            ["sysctl", "-n", "machdep.cpu.brand_string"],
            capture_output=True,
            text=True,
            timeout=2,
            check=False,
        )
        return out.stdout.strip()
    except Exception:
        return ""


def fallback_cpu_info() -> CpuInfo:
    """macOS, Windows or an unreadable /proc: platform + psutil + numpy's feature table."""
    system = platform.system()
    machine = platform.machine().lower() or "unknown"
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    name = ""
    if system == "Windows":
        name = _windows_cpu_name()
    elif system == "Darwin":
        name = _macos_cpu_name()
    name = name or platform.processor() or f"{arch} CPU"
    vendor = "unknown"
    for key, label in (("intel", "Intel"), ("amd", "AMD"), ("apple", "Apple"), ("arm", "ARM")):
        if key in name.lower():
            vendor = label
            break
    notes: list[str] = [f"read through platform + psutil on {system or 'this OS'}"]
    raw, why = _numpy_features()
    if why:
        notes.append(why)
    table = _X86_FEATURES if arch == "x86_64" else _ARM_FEATURES
    features = tuple(n for n, _ in table if n in raw)
    threads = os.cpu_count() or 1
    cores = threads
    clock: float | None = None
    max_clock: float | None = None
    try:
        import psutil

        cores = psutil.cpu_count(logical=False) or threads
        freq = psutil.cpu_freq()
        if freq is not None:
            max_clock = freq.max / 1000.0 if freq.max else None
            clock = max_clock or (freq.current / 1000.0 if freq.current else None)
    except Exception as exc:
        notes.append(f"psutil unavailable ({exc}): physical core count and clock unknown")
    base = _model_clock_ghz(name)
    source = "psutil.cpu_freq()" if clock else "no clock found"
    if clock is None and base:
        clock, source = base, "nominal clock in the model name"
    peak = estimate_peak(
        arch=arch,
        vendor=vendor,
        family=None,
        features=features,
        cores=cores,
        threads=threads,
        virtualized=False,
        clock_ghz=clock,
        clock_source=source,
    )
    if peak is None:
        notes.append("peak estimate unavailable because no CPU clock could be read")
    return CpuInfo(
        model=name,
        vendor=vendor,
        arch=arch,
        sockets=1,
        cores=cores,
        threads=threads,
        usable_threads=_affinity_count(threads),
        base_clock_ghz=base,
        max_clock_ghz=max_clock,
        reported_clock_ghz=clock,
        clock_source=source,
        features=features,
        caches=(),
        virtualized=False,
        peak=peak,
        source="platform + psutil",
        notes=tuple(notes),
        raw_flag_count=len(raw),
    )


def detect_cpu() -> CpuInfo:
    """CPU facts for this machine; never raises."""
    try:
        if platform.system() == "Linux":
            return read_cpu_info("/")
        return fallback_cpu_info()
    except Exception as exc:  # a malformed /proc must not stop detection
        info = fallback_cpu_info()
        return _with_note(info, f"/proc/cpuinfo could not be parsed ({exc}); used fallback")


def _with_note(info: CpuInfo, note: str) -> CpuInfo:
    return replace(info, notes=(*info.notes, note))


def _meminfo(root: Path) -> dict[str, float]:
    text = _read(root / "proc/meminfo") or ""
    values: dict[str, float] = {}
    for line in text.splitlines():
        key, _, rest = line.partition(":")
        parts = rest.split()
        if parts and parts[0].isdigit():
            factor = 1024.0 if len(parts) > 1 and parts[1].lower() == "kb" else 1.0
            values[key.strip()] = float(parts[0]) * factor
    return values


def detect_memory(root: Path | str = "/") -> MemoryInfo:
    """RAM totals from psutil, else ``/proc/meminfo``; never raises."""
    try:
        import psutil

        vm = psutil.virtual_memory()
        swap = psutil.swap_memory()
        return MemoryInfo(float(vm.total), float(vm.available), float(swap.total), "psutil")
    except Exception as exc:
        values = _meminfo(Path(root))
        if "MemTotal" in values:
            return MemoryInfo(
                values["MemTotal"],
                values.get("MemAvailable"),
                values.get("SwapTotal"),
                "/proc/meminfo",
            )
        return MemoryInfo(
            None,
            None,
            None,
            "none",
            f"unavailable because psutil failed ({exc}) and /proc/meminfo could not be read",
        )


__all__ = [
    "KNOWN_BOOST_CLOCKS",
    "BoostClock",
    "CacheLevel",
    "CpuInfo",
    "MemoryInfo",
    "PeakEstimate",
    "detect_cpu",
    "detect_memory",
    "estimate_peak",
    "fallback_cpu_info",
    "find_known_boost",
    "flops_per_cycle",
    "parse_cpuinfo",
    "read_cpu_info",
]
