"""What the CPU offers this process: usable cores and the int8 instruction sets."""

from __future__ import annotations

import math
import os
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

    @property
    def kind(self) -> str:
        """The int8 instruction tier: ``avx512-vnni``, ``avx512``, ``avx2`` or ``baseline``."""
        if self.avx512 and self.vnni:
            return "avx512-vnni"
        if self.avx512:
            return "avx512"
        return "avx2" if self.avx2 else "baseline"

    def describe(self) -> str:
        """One line for reports: model name, cores and the flags int8 speed hangs on."""

        def yes(flag: bool) -> str:
            return "yes" if flag else "no"

        return (
            f"{self.model_name} ({self.usable_cores} usable cores; AVX2 {yes(self.avx2)}, "
            f"AVX-512 {yes(self.avx512)}, VNNI {yes(self.vnni)})"
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


def cpu_info() -> CpuInfo:
    """Read /proc/cpuinfo once: AVX-512 (foundation) and VNNI flags, and the model name."""
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
    return CpuInfo(
        usable_cores=usable_cores(),
        avx512="avx512f" in flags,
        vnni="avx512_vnni" in flags or "avx_vnni" in flags,
        model_name=name,
        avx2="avx2" in flags,
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
