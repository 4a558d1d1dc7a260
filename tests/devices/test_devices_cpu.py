"""CPU facts from sample /proc/cpuinfo + /sys trees (x86 and ARM), and the peak estimate."""

from __future__ import annotations

from pathlib import Path

import pytest
from devices_samples import (
    EPYC_7763_VM,
    GRAVITON2,
    GRAVITON3,
    RASPBERRY_PI,
    XEON_GOLD_HT,
    XEON_VM_MASKED,
    cache_files,
    write_tree,
)

from desktopapp.devices.cpu import (
    detect_cpu,
    detect_memory,
    find_known_boost,
    flops_per_cycle,
    parse_cpuinfo,
    read_cpu_info,
)


def test_parse_cpuinfo_blocks_and_odd_lines() -> None:
    blocks = parse_cpuinfo("processor : 0\nflags : a b\nnonsense line\n\nprocessor : 1\n\n\n")
    assert blocks == [{"processor": "0", "flags": "a b"}, {"processor": "1"}]
    assert parse_cpuinfo("") == []


def test_epyc_vm_uses_known_boost_and_counts_vcpus(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {"proc/cpuinfo": EPYC_7763_VM, **cache_files()})
    cpu = read_cpu_info(root)
    assert cpu.model == "AMD EPYC 7763 64-Core Processor"
    assert cpu.vendor == "AMD" and cpu.arch == "x86_64" and cpu.family == 25
    assert (cpu.sockets, cpu.cores, cpu.threads) == (1, 1, 2)
    assert cpu.virtualized
    assert cpu.reported_clock_ghz == pytest.approx(2.445406)
    for feature in ("avx2", "fma", "f16c"):
        assert cpu.has(feature)
    assert not cpu.has("avx512f") and not cpu.native_bf16
    peak = cpu.peak
    assert peak is not None
    # 2 vCPUs × 3.5 GHz (published max boost, not the 2.445 GHz TSC) × 32 (AVX2+FMA).
    assert (peak.units, peak.unit_kind, peak.flops_per_cycle) == (2, "vCPUs", 32)
    assert peak.clock_ghz == pytest.approx(3.5)
    assert peak.gflops == pytest.approx(224.0)
    assert "known boost table" in peak.clock_source and "EPYC 7763" in peak.clock_source
    assert any("hyperthread" in a for a in peak.assumptions)
    assert cpu.max_clock_ghz == pytest.approx(3.5) and cpu.base_clock_ghz == pytest.approx(2.45)
    data = cpu.to_dict()
    assert data["peak_fp32_gflops_estimate"] == pytest.approx(224.0)
    assert data["peak_is_estimate"] is True
    assert "3.50 GHz" in data["clock_assumption"]
    assert [c["label"] for c in data["caches"]] == ["L1d", "L1i", "L2", "L3"]
    l3 = cpu.caches[-1]
    assert l3.size_bytes == 32 * 1024**2 and l3.instances == 1


def test_bare_metal_xeon_uses_cpufreq_max_and_physical_cores(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "proc/cpuinfo": XEON_GOLD_HT,
            "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": "3900000\n",
            "sys/devices/system/cpu/online": "0-3\n",
        },
    )
    cpu = read_cpu_info(root)
    assert (cpu.cores, cpu.threads, cpu.virtualized) == (2, 4, False)
    assert cpu.base_clock_ghz == pytest.approx(2.1)  # from "@ 2.10GHz"
    assert cpu.max_clock_ghz == pytest.approx(3.9)
    assert cpu.has("avx512f") and cpu.has("avx512_vnni") and not cpu.native_bf16
    peak = cpu.peak
    assert peak is not None
    assert (peak.units, peak.unit_kind, peak.flops_per_cycle) == (2, "cores", 64)
    assert peak.gflops == pytest.approx(2 * 3.9 * 64)
    assert "cpufreq" in peak.clock_source
    assert "AVX-512" in peak.formula and "= 499 GFLOP/s" in peak.formula


def test_masked_vm_falls_back_to_tsc_and_says_it_may_understate(tmp_path: Path) -> None:
    cpu = read_cpu_info(write_tree(tmp_path, {"proc/cpuinfo": XEON_VM_MASKED}))
    assert cpu.model == "Intel(R) Xeon(R) Processor"
    assert cpu.native_bf16 and cpu.has("amx_bf16") and cpu.has("avx_vnni")
    peak = cpu.peak
    assert peak is not None
    assert peak.clock_ghz == pytest.approx(2.1)
    assert "TSC" in peak.clock_source
    assert any("understate" in a for a in peak.assumptions)
    assert peak.gflops == pytest.approx(2 * 2.1 * 64)


def test_arm_neoverse_n1_with_cpufreq(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "proc/cpuinfo": GRAVITON2,
            "sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq": "2500000\n",
        },
    )
    cpu = read_cpu_info(root)
    assert cpu.arch == "aarch64" and cpu.vendor == "ARM"
    assert cpu.model.startswith("Neoverse N1")
    assert cpu.features == ("neon", "fp16", "dotprod")
    assert (cpu.cores, cpu.threads) == (4, 4)
    assert cpu.peak is not None and cpu.peak.flops_per_cycle == 16
    assert cpu.peak.gflops == pytest.approx(4 * 2.5 * 16)


def test_arm_sve_bf16_without_clock_reports_why_no_peak(tmp_path: Path) -> None:
    cpu = read_cpu_info(write_tree(tmp_path, {"proc/cpuinfo": GRAVITON3}))
    assert cpu.model.startswith("Neoverse V1")
    assert {"sve", "bf16", "i8mm"} <= set(cpu.features)
    assert cpu.native_bf16
    assert cpu.peak is None and cpu.peak_fp32_gflops_estimate is None
    assert any("no CPU clock" in n for n in cpu.notes)
    assert cpu.to_dict()["peak_fp32_gflops_estimate"] is None


def test_arm_board_name_and_topology_from_sysfs(tmp_path: Path) -> None:
    files = {
        "proc/cpuinfo": RASPBERRY_PI,
        "sys/firmware/devicetree/base/model": "Raspberry Pi 4 Model B Rev 1.1\x00",
    }
    for i in range(4):
        files[f"sys/devices/system/cpu/cpu{i}/topology/core_id"] = f"{i}\n"
        files[f"sys/devices/system/cpu/cpu{i}/topology/physical_package_id"] = "0\n"
    cpu = read_cpu_info(write_tree(tmp_path, files))
    assert "Cortex-A72" in cpu.model and "Raspberry Pi 4" in cpu.model and "BCM2835" in cpu.model
    assert (cpu.sockets, cpu.cores, cpu.threads) == (1, 4, 4)


def test_missing_proc_falls_back_to_platform_and_psutil(tmp_path: Path) -> None:
    cpu = read_cpu_info(tmp_path)  # an empty root: no /proc/cpuinfo
    assert cpu.source == "platform + psutil"
    assert cpu.threads >= 1 and cpu.cores >= 1


def test_flops_per_cycle_table() -> None:
    assert flops_per_cycle("x86_64", "AMD", 25, ("avx2", "fma", "avx512f"))[0] == 32  # Zen 4
    assert flops_per_cycle("x86_64", "AMD", 26, ("avx2", "fma", "avx512f"))[0] == 64  # Zen 5
    assert flops_per_cycle("x86_64", "Intel", 6, ("avx2", "fma", "avx512f"))[0] == 64
    assert flops_per_cycle("x86_64", "Intel", 6, ("avx2", "fma"))[0] == 32
    assert flops_per_cycle("x86_64", "Intel", 6, ("avx",))[0] == 16
    assert flops_per_cycle("aarch64", "Apple", None, ("neon",))[0] == 32


def test_known_boost_prefers_longest_model_number() -> None:
    key, boost = find_known_boost("AMD EPYC 7713P 64-Core Processor") or ("", None)
    assert key == "EPYC 7713P" and boost is not None and boost.boost_ghz == pytest.approx(3.675)
    assert find_known_boost("AMD EPYC 77630 Processor") is None
    assert find_known_boost("Intel(R) Xeon(R) Processor") is None


def test_this_machine_is_sane() -> None:
    cpu = detect_cpu()
    assert cpu.threads >= 1 and cpu.cores >= 1 and cpu.model
    if cpu.peak is not None:
        assert cpu.peak.gflops > 0
    memory = detect_memory()
    assert memory.total_bytes is not None and memory.total_bytes > 0
