"""Sample ``/proc/cpuinfo`` texts (x86 and ARM) and a helper to lay out a fake ``/``."""

from __future__ import annotations

from pathlib import Path

_X86_COMMON = (
    "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr "
    "sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl "
    "pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand "
    "lahf_lm abm bmi1 avx2 bmi2 adx"
)
EPYC_FLAGS = _X86_COMMON + " hypervisor sha_ni clzero xsaveopt vaes vpclmulqdq rdpid fsrm"
XEON_FLAGS = _X86_COMMON + " avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni"
SPR_VM_FLAGS = XEON_FLAGS + " hypervisor avx512_bf16 avx_vnni amx_bf16 amx_tile amx_int8"


def x86_block(
    index: int,
    *,
    vendor: str,
    family: int,
    model: str,
    mhz: str,
    flags: str,
    physical: int = 0,
    core: int = 0,
    siblings: int = 2,
    cores: int = 1,
) -> str:
    return (
        f"processor\t: {index}\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: 1\n"
        f"model name\t: {model}\nstepping\t: 1\ncpu MHz\t\t: {mhz}\ncache size\t: 512 KB\n"
        f"physical id\t: {physical}\nsiblings\t: {siblings}\ncore id\t\t: {core}\n"
        f"cpu cores\t: {cores}\nfpu\t\t: yes\nflags\t\t: {flags}\nbogomips\t: 4890.81\n\n"
    )


# GitHub-hosted-runner-like VM: 2 vCPUs shown as one core with two threads, TSC 2.445 GHz.
EPYC_7763_VM = "".join(
    x86_block(
        i,
        vendor="AuthenticAMD",
        family=25,
        model="AMD EPYC 7763 64-Core Processor",
        mhz="2445.406",
        flags=EPYC_FLAGS,
        core=0,
        siblings=2,
        cores=1,
    )
    for i in range(2)
)

# Bare metal, 2 cores × 2 hyperthreads, nominal clock in the name.
XEON_GOLD_HT = "".join(
    x86_block(
        i,
        vendor="GenuineIntel",
        family=6,
        model="Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
        mhz="1000.000",
        flags=XEON_FLAGS,
        core=i % 2,
        siblings=4,
        cores=2,
    )
    for i in range(4)
)

# A masked model name in a VM: only the TSC clock is visible.
XEON_VM_MASKED = "".join(
    x86_block(
        i,
        vendor="GenuineIntel",
        family=6,
        model="Intel(R) Xeon(R) Processor",
        mhz="2100.000",
        flags=SPR_VM_FLAGS,
        core=i,
        siblings=2,
        cores=2,
    )
    for i in range(2)
)


def arm_block(index: int, *, features: str, part: str, implementer: str = "0x41") -> str:
    return (
        f"processor\t: {index}\nBogoMIPS\t: 243.75\nFeatures\t: {features}\n"
        f"CPU implementer\t: {implementer}\nCPU architecture: 8\nCPU variant\t: 0x3\n"
        f"CPU part\t: {part}\nCPU revision\t: 1\n\n"
    )


GRAVITON2 = "".join(
    arm_block(
        i,
        features="fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
        "asimdrdm lrcpc dcpop asimddp ssbs",
        part="0xd0c",
    )
    for i in range(4)
)

GRAVITON3 = "".join(
    arm_block(
        i,
        features="fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
        "asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat "
        "ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 dgh rng",
        part="0xd40",
    )
    for i in range(2)
)

RASPBERRY_PI = (
    "".join(arm_block(i, features="fp asimd evtstrm crc32 cpuid", part="0xd08") for i in range(4))
    + "Hardware\t: BCM2835\nRevision\t: c03111\nModel\t\t: Raspberry Pi 4 Model B Rev 1.1\n"
)


def cache_files(cpu: int = 0, l3_shared: str = "0-1") -> dict[str, str]:
    base = f"sys/devices/system/cpu/cpu{cpu}/cache"
    files: dict[str, str] = {}
    for index, (level, kind, size, shared) in enumerate(
        [
            (1, "Data", "32K", str(cpu)),
            (1, "Instruction", "32K", str(cpu)),
            (2, "Unified", "512K", str(cpu)),
            (3, "Unified", "32768K", l3_shared),
        ]
    ):
        files[f"{base}/index{index}/level"] = f"{level}\n"
        files[f"{base}/index{index}/type"] = f"{kind}\n"
        files[f"{base}/index{index}/size"] = f"{size}\n"
        files[f"{base}/index{index}/shared_cpu_list"] = f"{shared}\n"
    return files


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Create ``files`` (relative path → text) under ``root``, a fake ``/``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
