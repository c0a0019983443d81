"""Huge pages for the weights: which mappings are asked, what the kernel reports, and a
real collapse of a buffer of this process where the kernel can do it."""

import contextlib
import ctypes
import mmap
import os
import re
from pathlib import Path

import pytest

from moderation import hugepages
from moderation.hugepages import HUGE_PAGE, collapsible_ranges, huge_bytes, thp_mode

MAPS = """\
55d0c0000000-55d0c0021000 r--p 00000000 fd:00 1234   /usr/bin/python3.11
55d0c2000000-55d0c2a00000 rw-p 00000000 00:00 0      [heap]
7f0000000000-7f0000600000 rw-p 00000000 00:00 0
7f0000700000-7f0000a00000 rw-p 00000000 00:00 0
7f0000a00000-7f0000c00000 rw-s 00000000 00:01 77     /dev/shm/x
7f0001000000-7f0001400000 rw-p 00000000 fd:00 99     /usr/lib/libonnxruntime.so
7f0002000000-7f0002400000 r--p 00000000 00:00 0
7f0003100000-7f0003300000 rw-p 00000000 00:00 0
7ffd00000000-7ffd00400000 rw-p 00000000 00:00 0      [stack]
"""


def test_only_private_writable_anonymous_memory_is_asked_in_whole_huge_pages() -> None:
    ranges = collapsible_ranges(MAPS)
    assert ranges == [
        (0x55D0C2000000, 0xA00000),  # the heap: 10 MiB, aligned
        (0x7F0000000000, 0x600000),  # 6 MiB anonymous
        (0x7F0000800000, HUGE_PAGE),  # 2 MiB, of which one aligned 2 MiB page fits
    ]
    # Not asked: file mappings, shared memory, read-only memory, the stack, and a
    # 2 MiB mapping that straddles two huge pages (7f0003100000-7f0003300000).


def test_mode_is_the_bracketed_word(tmp_path: Path) -> None:
    enabled = tmp_path / "enabled"
    enabled.write_text("always [madvise] never\n")
    assert thp_mode(enabled) == "madvise"
    enabled.write_text("[always] madvise never\n")
    assert thp_mode(enabled) == "always"
    assert thp_mode(tmp_path / "missing") == "unavailable"


def test_huge_bytes_reads_smaps_rollup(tmp_path: Path) -> None:
    rollup = tmp_path / "smaps_rollup"
    rollup.write_text("Rss:  1000 kB\nAnonHugePages:    4096 kB\nSwap: 0 kB\n")
    assert huge_bytes(rollup) == 4096 * 1024
    assert huge_bytes(tmp_path / "missing") == 0


def test_nothing_is_asked_when_the_kernel_has_huge_pages_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hugepages, "thp_mode", lambda: "never")
    result = hugepages.collapse()
    assert result.ranges == 0 and result.huge_after == result.huge_before


def _huge_kib_of_mapping(address: int) -> int:
    """AnonHugePages of the mapping holding ``address`` (from /proc/self/smaps)."""
    inside = False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()[0]
        if "-" in head and ":" not in head:
            low, high = (int(x, 16) for x in head.split("-"))
            inside = low <= address < high
        elif inside and line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    raise AssertionError(f"no mapping holds {address:#x}")


def test_a_buffer_of_this_process_moves_onto_huge_pages() -> None:
    if thp_mode() in ("never", "unavailable"):
        pytest.skip(f"transparent huge pages {thp_mode()} on this kernel")
    release = tuple(int(x) for x in re.findall(r"\d+", os.uname().release)[:2])
    if release < (6, 1):
        pytest.skip(f"MADV_COLLAPSE needs Linux 6.1; this is {os.uname().release}")
    # A fresh private anonymous mapping, as a large malloc gets (a process that has run
    # torch or numpy may hand out memory already on huge pages). Every page written.
    size = 17 * HUGE_PAGE  # holds at least 16 aligned huge pages
    buffer = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    buffer.write(b"\x01" * size)
    address = ctypes.addressof(ctypes.c_char.from_buffer(buffer))
    before = _huge_kib_of_mapping(address)
    if thp_mode() == "madvise":
        assert before == 0  # nothing asked for it yet
    whole = 16 * HUGE_PAGE // 1024
    result = hugepages.collapse()
    after = _huge_kib_of_mapping(address)
    if after < whole and "ENOMEM" in result.refused:
        # The kernel had no free huge page left for some ranges: on a machine whose
        # memory is fragmented by other work (a clean-clone CI run once got 15 of 16,
        # another none). Compact memory where this process may, then ask once more.
        _compact_memory()
        result = hugepages.collapse()
        after = _huge_kib_of_mapping(address)
    assert buffer[:] == b"\x01" * size  # the data is unchanged, moved or not
    if "ENOMEM" in result.refused:
        if after == 0:
            # Nothing of the buffer moved and the kernel said why: it has no free huge
            # page. The mechanism cannot be shown on this machine now; say so.
            pytest.skip(f"the kernel has no free huge page: {result.describe()}")
        # Short of memory: the buffer's pages that moved prove the mechanism.
        assert after >= HUGE_PAGE // 1024, result.describe()
    else:
        assert after >= whole, result.describe()


def _compact_memory() -> None:
    """Ask the kernel to compact free memory into huge pages (root only; else nothing)."""
    with contextlib.suppress(OSError):
        Path("/proc/sys/vm/compact_memory").write_text("1\n")
