"""The model's weights on 2 MB pages (``MODERATION_HUGE_PAGES``; off by default).

Each message streams every int8 weight matrix once (about 11 MB per session, more
than any per-core cache holds). On 4 KB pages that is some 2,800 pages per message,
each a TLB miss, and under a hypervisor each miss walks two sets of page tables. Linux
backs anonymous memory with 2 MB pages (transparent huge pages) only where asked when
its mode is ``madvise``, the common default, and ONNX Runtime's allocations are not
asked. Since Linux 6.1, ``madvise(MADV_COLLAPSE)`` moves memory already in use onto
huge pages, synchronously: called once the sessions hold their weights, it puts them
there without a restart or an environment variable (``GLIBC_TUNABLES=
glibc.malloc.hugetlb=1`` at process start does the same for every allocation of glibc's
malloc, where a deployment prefers it).

What is collapsed is every private writable anonymous mapping of the process with at
least one aligned 2 MB range: ONNX Runtime's buffers, and Python's and numpy's larger
ones. Where the kernel refuses (older than 6.1, huge pages disabled), nothing changes
and the reason is reported.

Measured on the AMX Xeon (`moderation bench hugepages`, docs/benchmarks.md): 1.02-1.07x
faster per chat message at p50 and 1.05-1.10x after a 10 ms pause, but chat p99 longer
in two runs of three (3.5-3.7 ms against 2.7-2.8 ms on 4 KB pages), so the worker does
not do it unless asked; the bench says whether another CPU rewards it.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

HUGE_PAGE = 2 << 20
MADV_COLLAPSE = 25  # linux/mman.h, since Linux 6.1
THP_ENABLED = Path("/sys/kernel/mm/transparent_hugepage/enabled")
SMAPS_ROLLUP = Path("/proc/self/smaps_rollup")
MAPS = Path("/proc/self/maps")


@dataclass(frozen=True, slots=True)
class Collapse:
    """What one pass did: aligned ranges asked, ranges the kernel refused (by errno
    name), and the process's anonymous memory on huge pages before and after."""

    mode: str
    ranges: int
    refused: dict[str, int]
    huge_before: int
    huge_after: int

    def describe(self) -> str:
        """One line for the log."""
        refused = ", ".join(f"{n} {name}" for name, n in sorted(self.refused.items()))
        return (
            f"transparent huge pages {self.mode}: {self.ranges} ranges collapsed"
            f"{f' ({refused} refused)' if refused else ''}; anonymous memory on huge pages "
            f"{self.huge_before / 2**20:.0f} -> {self.huge_after / 2**20:.0f} MiB"
        )


def thp_mode(path: Path = THP_ENABLED) -> str:
    """The kernel's transparent huge page mode (``always``, ``madvise``, ``never``), or
    ``unavailable`` where the kernel has none."""
    try:
        text = path.read_text()
    except OSError:
        return "unavailable"
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return "unavailable"


def huge_bytes(path: Path = SMAPS_ROLLUP) -> int:
    """The process's anonymous memory on huge pages (``AnonHugePages``), in bytes."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return 0
    for line in lines:
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1]) * 1024
    return 0


def collapsible_ranges(maps: str, page: int = HUGE_PAGE) -> list[tuple[int, int]]:
    """(start, length) of every whole huge page inside a private writable anonymous
    mapping (no file behind it, or the heap), from the text of ``/proc/<pid>/maps``."""
    out: list[tuple[int, int]] = []
    for line in maps.splitlines():
        parts = line.split()
        if len(parts) < 5:
            continue
        perms = parts[1]
        name = parts[5] if len(parts) > 5 else ""
        if not perms.startswith("rw") or perms[3] != "p" or name not in ("", "[heap]"):
            continue
        low, high = (int(x, 16) for x in parts[0].split("-"))
        start = (low + page - 1) // page * page
        end = high // page * page
        if end - start >= page:
            out.append((start, end - start))
    return out


def collapse() -> Collapse:
    """Ask the kernel to put the process's anonymous memory on huge pages, now."""
    mode = thp_mode()
    before = huge_bytes()
    if mode in ("never", "unavailable"):
        return Collapse(mode, 0, {}, before, before)
    try:
        ranges = collapsible_ranges(MAPS.read_text())
    except OSError:
        ranges = []
    refused: dict[str, int] = {}
    libc = ctypes.CDLL(None, use_errno=True)
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    for start, length in ranges:
        if madvise(start, length, MADV_COLLAPSE) != 0:
            code = ctypes.get_errno()
            name = errno.errorcode.get(code, str(code))
            refused[name] = refused.get(name, 0) + 1
    return Collapse(mode, len(ranges), refused, before, huge_bytes())


def collapse_logged() -> Collapse | None:
    """``collapse``, logged; None off Linux."""
    if not os.path.exists(MAPS):
        return None
    result = collapse()
    log.info("%s", result.describe())
    return result
