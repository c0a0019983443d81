"""What the CPU offers this process: usable cores and the int8 instruction sets.

The flags come from two places that usually agree: /proc/cpuinfo (what the kernel
saw) and the CPUID instruction as this process executes it (what ONNX Runtime's
kernels dispatch on), read through numpy's runtime detection. They disagree under an
emulator: `qemu-x86_64 -cpu EPYC-Rome` on an AVX-512 VNNI host shows the host's
/proc/cpuinfo but answers CPUID as an AVX2-only CPU, and ONNX Runtime then runs its
AVX2 int8 kernels (scripts/emulate-avx2.sh). A flag counts only if both show it.
A third way to that end leaves CPUID alone: a copy of ONNX Runtime whose kernel
library never takes its AVX-512 branch (scripts/mlas_avx2.py) carries a marker file,
and a process importing that copy counts as AVX2, emulated.
"""

from __future__ import annotations

import ctypes
import importlib.util
import math
import os
import platform
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from moderation.errors import ModerationError


@dataclass(frozen=True, slots=True)
class CpuInfo:
    """Cores this process may run on and the flags that matter for int8 inference."""

    usable_cores: int
    avx512: bool
    vnni: bool
    model_name: str
    avx2: bool = False
    # CPUID shows fewer of these flags than /proc/cpuinfo (an emulator, or a
    # hypervisor's mask), or ONNX Runtime is a copy that ignores them
    # (scripts/mlas_avx2.py). int8 arithmetic follows; speed is not the kind's.
    emulated: bool = False
    # AMX int8 tiles (Sapphire Rapids and later): ONNX Runtime's MLAS runs its u8s8
    # GEMMs on them when the kernel grants the tile state. The sums are exact as with
    # VNNI, so the scores are VNNI's and the kind stays; the speed is another class.
    amx: bool = False
    # The CPU has them but the kernel refused this process the tile state (a seccomp
    # profile, an old kernel, scripts/without-amx.sh): MLAS keeps its VNNI kernels.
    amx_refused: bool = False

    @property
    def kind(self) -> str:
        """The int8 instruction tier: ``avx512-vnni``, ``avx512``, ``avx2`` or ``baseline``."""
        if self.avx512 and self.vnni:
            return "avx512-vnni"
        if self.avx512:
            return "avx512"
        return "avx2" if self.avx2 else "baseline"

    @property
    def vendor(self) -> str:
        """``intel``, ``amd`` or ``other``, from the model name."""
        name = self.model_name.lower()
        return "intel" if "intel" in name else "amd" if "amd" in name else "other"

    @property
    def section(self) -> str:
        """Where a benchmark's figures go: the int8 tier and the vendor. One kind's
        machines differ between vendors (an AMD Zen 4 has AVX-512 VNNI as a Cascade Lake
        does, at another clock and cache), so each keeps its own figures; so does a CPU with
        AMX int8 tiles, whose int8 GEMMs run on other units than its kind's."""
        return f"{self.kind}-amx-{self.vendor}" if self.amx else f"{self.kind}-{self.vendor}"

    def describe(self) -> str:
        """One line for reports: model name, cores and the flags int8 speed hangs on."""

        def yes(flag: bool) -> str:
            return "yes" if flag else "no"

        emulated = (
            "; emulated: CPUID or ONNX Runtime's kernels show fewer flags than /proc/cpuinfo"
            if self.emulated
            else ""
        )
        amx = ", AMX-int8 yes" if self.amx else ""
        amx += ", AMX-int8 refused to this process" if self.amx_refused else ""
        return (
            f"{self.model_name} ({self.usable_cores} usable cores; AVX2 {yes(self.avx2)}, "
            f"AVX-512 {yes(self.avx512)}, VNNI {yes(self.vnni)}{amx}{emulated})"
        )


def _cgroup_quota_cores() -> int | None:
    """Whole cores allowed by a cgroup v2 CPU quota, if one is set."""
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    return max(1, math.floor(int(quota) / int(period)))


def usable_cores() -> int:
    """Cores the scheduler lets this process use (affinity mask and cgroup quota)."""
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        n = os.cpu_count() or 1
    quota = _cgroup_quota_cores()
    return min(n, quota) if quota else n


def cpuid_features() -> Mapping[str, bool] | None:
    """The x86 features CPUID reports to this process (numpy's runtime dispatch
    table), or None when numpy does not expose it."""
    from importlib import import_module

    for name in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            features = getattr(import_module(name), "__cpu_features__", None)
        except ImportError:
            continue
        if isinstance(features, dict):
            return {str(k): bool(v) for k, v in features.items()}
    return None


def int8_flags(
    proc_flags: set[str], cpuid: Mapping[str, bool] | None
) -> tuple[bool, bool, bool, bool]:
    """(avx2, avx512, vnni, emulated) from /proc/cpuinfo's flags and CPUID's answer.

    A flag counts when /proc/cpuinfo lists it and CPUID (when known) confirms it;
    ``emulated`` when CPUID denies one that /proc/cpuinfo lists.
    """
    known = cpuid or {}

    def both(proc: str, feature: str) -> bool:
        return proc in proc_flags and known.get(feature, True)

    avx2 = both("avx2", "AVX2")
    avx512 = both("avx512f", "AVX512F")
    vnni512 = both("avx512_vnni", "AVX512VNNI")
    denied = (avx2, avx512, vnni512) != (
        "avx2" in proc_flags,
        "avx512f" in proc_flags,
        "avx512_vnni" in proc_flags,
    )
    # AVX-VNNI (256-bit) has no name in numpy's table: trusted from /proc/cpuinfo
    # unless CPUID has already denied a flag there (an emulator shows none of them).
    vnni = vnni512 or ("avx_vnni" in proc_flags and not denied)
    return avx2, avx512, vnni, denied


# Beside onnxruntime/__init__.py in a copy made by scripts/mlas_avx2.py.
MLAS_AVX2_MARKER = "MLAS_AVX2_ONLY"


def onnxruntime_dir() -> Path | None:
    """The folder of the onnxruntime package this process would import (found without
    importing it), or None if there is none."""
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def mlas_avx2_only() -> bool:
    """Whether the onnxruntime this process imports is a copy whose kernel library
    runs AVX2 kernels whatever CPUID says."""
    package = onnxruntime_dir()
    return package is not None and (package / MLAS_AVX2_MARKER).is_file()


def amx_int8(proc_flags: set[str], emulated: bool) -> bool:
    """AMX int8 tiles, from /proc/cpuinfo (the kernel lists them only when it can give
    a process the tile state). numpy's table has no name for them, so, as with
    AVX-VNNI, they are not trusted where CPUID has already denied a flag."""
    return {"amx_tile", "amx_int8"} <= proc_flags and not emulated


# x86-64 Linux: arch_prctl's number, and its request for a permission of XSAVE state.
_SYS_ARCH_PRCTL = 158
_ARCH_REQ_XCOMP_PERM = 0x1023
_XFEATURE_XTILEDATA = 18


def amx_granted() -> bool:
    """Ask the kernel for the AMX tile state, as ONNX Runtime's MLAS does when it loads
    (it keeps its VNNI kernels when refused); granting it twice is harmless."""
    if not sys.platform.startswith("linux") or platform.machine() != "x86_64":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.syscall(_SYS_ARCH_PRCTL, _ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA)) == 0
    except (OSError, AttributeError):
        return False


def cpu_info() -> CpuInfo:
    """Read /proc/cpuinfo once (flags, model name) and confirm the flags with CPUID."""
    flags: set[str] = set()
    name = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "flags" and not flags:
                flags = set(value.split())
            elif key == "model name" and name == "unknown":
                name = value.strip()
    except OSError:
        pass
    avx2, avx512, vnni, emulated = int8_flags(flags, cpuid_features())
    if avx2 and (avx512 or vnni) and mlas_avx2_only():
        avx512, vnni, emulated = False, False, True
    tiles = amx_int8(flags, emulated)
    granted = tiles and amx_granted()
    return CpuInfo(
        usable_cores=usable_cores(),
        avx512=avx512,
        vnni=vnni,
        model_name=name,
        avx2=avx2,
        emulated=emulated,
        amx=granted,
        amx_refused=tiles and not granted,
    )


class UnsupportedCpuError(ModerationError):
    """The CPU lacks what the operator required (MODERATION_REQUIRE_VNNI)."""


def check_cpu(info: CpuInfo, require_vnni: bool) -> None:
    """Raise UnsupportedCpuError when VNNI is required and missing."""
    if require_vnni and not info.vnni:
        raise UnsupportedCpuError(
            f"MODERATION_REQUIRE_VNNI is set but this CPU ({info.model_name}) has no "
            "AVX-512 VNNI (nor AVX-VNNI): refusing to serve int8 on a slow and less "
            "trusted path; schedule this worker on VNNI nodes or unset the variable"
        )
