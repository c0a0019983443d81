"""CPU kind from /proc/cpuinfo's flags, confirmed by what CPUID tells this process."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from moderation.bench.amx import SCRIPT
from moderation.cpu import (
    MLAS_AVX2_MARKER,
    CpuInfo,
    amx_int8,
    cpu_info,
    int8_flags,
    mlas_avx2_only,
)

PATCHER = Path(__file__).resolve().parents[2] / "scripts" / "mlas_avx2.py"

SPR = {"avx2", "avx512f", "avx512_vnni", "avx_vnni"}
EPYC = {"avx2", "fma"}
ALL_YES = {"AVX2": True, "AVX512F": True, "AVX512VNNI": True}
AVX2_ONLY = {"AVX2": True, "AVX512F": False, "AVX512VNNI": False}


def kind(avx2: bool, avx512: bool, vnni: bool, emulated: bool) -> str:
    return CpuInfo(2, avx512, vnni, "x", avx2=avx2, emulated=emulated).kind


def test_flags_agree_on_real_cpus() -> None:
    assert int8_flags(SPR, ALL_YES) == (True, True, True, False)
    assert int8_flags(EPYC, AVX2_ONLY) == (True, False, False, False)
    # AVX-VNNI without AVX-512 (no numpy name to confirm it): taken from /proc/cpuinfo.
    assert int8_flags({"avx2", "avx_vnni"}, AVX2_ONLY) == (True, False, True, False)


def test_an_emulator_that_denies_avx512_makes_an_avx2_machine() -> None:
    # qemu-x86_64 -cpu EPYC-Rome on an AVX-512 VNNI host: the host's /proc/cpuinfo,
    # an AVX2-only CPUID; AVX-VNNI cannot be confirmed and is not trusted either.
    flags = int8_flags(SPR, AVX2_ONLY)
    assert flags == (True, False, False, True)
    assert kind(*flags) == "avx2"


def test_without_cpuid_the_proc_flags_stand() -> None:
    assert int8_flags(SPR, None) == (True, True, True, False)
    assert int8_flags(set(), None) == (False, False, False, False)


def test_describe_says_emulated() -> None:
    info = CpuInfo(2, False, False, "Xeon", avx2=True, emulated=True)
    assert "emulated" in info.describe()
    assert "emulated" not in CpuInfo(2, True, True, "Xeon", avx2=True).describe()


def test_amx_needs_both_tile_flags_and_a_cpuid_that_did_not_lie() -> None:
    spr_amx = SPR | {"amx_tile", "amx_int8", "amx_bf16"}
    assert amx_int8(spr_amx, emulated=False)
    # qemu answering CPUID as EPYC-Rome shows the host's /proc/cpuinfo, AMX included.
    assert not amx_int8(spr_amx, emulated=True)
    assert not amx_int8(SPR, emulated=False)  # Cascade Lake, Zen 4
    assert not amx_int8(SPR | {"amx_bf16", "amx_tile"}, emulated=False)  # no int8 tiles


def test_amx_keeps_the_kind_and_says_so() -> None:
    plain = CpuInfo(2, True, True, "Intel(R) Xeon(R) Processor", avx2=True)
    amx = CpuInfo(2, True, True, "Intel(R) Xeon(R) Processor", avx2=True, amx=True)
    # Exact integer sums on either unit: one evaluation report serves both.
    assert plain.kind == amx.kind == "avx512-vnni"
    assert (plain.section, amx.section) == ("avx512-vnni-intel", "avx512-vnni-amx-intel")
    assert "AMX-int8 yes" in amx.describe() and "AMX" not in plain.describe()


@pytest.mark.skipif(
    not cpu_info().amx or not (shutil.which("cc") or shutil.which("gcc")),
    reason="needs AMX int8 tiles granted to this process and a C compiler",
)
def test_a_process_refused_the_tiles_is_told_apart_from_one_that_has_them() -> None:
    here = cpu_info()
    assert here.amx and not here.amx_refused and here.section.endswith("-amx-intel")
    snippet = (
        "import json; from moderation.cpu import cpu_info; c = cpu_info(); "
        "print(json.dumps([c.amx, c.amx_refused, c.kind, c.section]))"
    )
    out = subprocess.run(
        [str(SCRIPT), "python", "-c", snippet],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    amx, refused, kind, section = json.loads(out.stdout.strip().splitlines()[-1])
    # MLAS is refused the same request, so it runs VNNI kernels: no AMX section, and
    # the same kind (and so the same evaluation report) as with the tiles.
    assert (amx, refused, kind) == (False, True, here.kind)
    assert "amx" not in section


def test_a_copy_of_onnxruntime_with_the_marker_makes_an_avx2_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # scripts/mlas_avx2.py's copy: the kernels it runs are AVX2's whatever CPUID says.
    package = tmp_path / "onnxruntime"
    package.mkdir()
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    assert not mlas_avx2_only()
    host = cpu_info()
    (package / MLAS_AVX2_MARKER).write_text("cut\n")
    assert mlas_avx2_only()
    info = cpu_info()
    if host.avx2 and (host.avx512 or host.vnni):
        assert (info.kind, info.emulated, info.vnni) == ("avx2", True, False)
        assert "ONNX Runtime's kernels" in info.describe()
    else:
        # Nothing to cut on this CPU: the copy runs what the installed library runs.
        assert info == host


def load_patcher() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mlas_avx2", PATCHER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_patcher_cuts_the_three_branches_of_each_setup_and_nothing_else() -> None:
    patched = load_patcher().patched
    wide = bytes.fromhex("48f7d0a8e0") + bytes.fromhex("0f84dbe00000")
    vnni = bytes.fromhex("b807000000 b901000000 0fa2 a810") + bytes.fromhex("7438")
    amx = bytes.fromhex("41f7c200000600") + bytes.fromhex("0f8500fcffff")
    other = bytes.fromhex("48f7d0a8060f84dbe00000")  # the AVX test (0x6): kept
    setup = vnni + b"\x90" * 3 + wide + other + amx
    blob = b"\x90" * 7 + setup + setup + b"\xc3"
    out, hits = patched(blob)
    assert hits == 2
    assert len(out) == len(blob)
    nop = bytes.fromhex("66 0f 1f 44 00 00")
    # AMX's jne becomes a no-op and a jmp to the same place (rel32 from the same end).
    skip_amx = amx[:7] + bytes.fromhex("90e900fcffff")
    cut = vnni[:-2] + bytes.fromhex("eb38") + b"\x90" * 3 + wide[:5] + nop + other + skip_amx
    assert out == b"\x90" * 7 + cut + cut + b"\xc3"
    # A build whose set-ups do not match the three patterns, as many of each: nothing cut.
    assert patched(other) == (other, 0)
    assert patched(wide + wide + vnni + amx) == (wide + wide + vnni + amx, 0)
    assert patched(wide + vnni) == (wide + vnni, 0)
