"""A copy of ONNX Runtime's Python package whose MLAS never takes its AVX-512, AVX-VNNI or
AMX kernels.

    python scripts/mlas_avx2.py DEST    # prints DEST; `import onnxruntime` from DEST
    python scripts/mlas_avx2.py --check # exit 0 if the installed library can be cut

MLAS (ONNX Runtime's kernel library) picks its kernels once, when it loads. Having set
up its AVX2 and FMA kernels, it asks CPUID leaf 7, subleaf 1 for AVX-VNNI (256-bit VNNI:
Alder Lake, Sapphire Rapids) and, if there, swaps in AVX-VNNI int8 kernels; then, having
found AVX512F, it reads XCR0 and, when the OS saves the ZMM registers (bits 5-7), sets
up its AVX-512 and VNNI kernels. Apart from those, where CPUID leaf 7 has AMX-TILE and
AMX-INT8 and XCR0 the tile state (bits 17-18), it asks Linux for the tiles and swaps in
its AMX int8 GEMM (Sapphire Rapids and later). In the compiled library each choice is
one conditional jump, after ``cpuid; test al, 0x10``, after ``not rax; test al, 0xe0``
and after ``test reg, 0x60000``, repeated once per place the platform is built. This
copy makes the first jump always skip the AVX-VNNI kernels, replaces the second by a
no-op of the same length and makes the third always skip AMX's, so the process runs
ONNX Runtime's AVX2 int8 kernels natively on an AVX-512 machine, where neither CPUID
faulting nor patience for qemu is at hand (scripts/emulate-avx2.sh,
``EMULATE_WITH=patch``). Every other file of the package is a symbolic link to the
installed one.

The copy is made again when the installed library or this script is newer. If the
installed library does not hold the expected bytes, as many of each (another ONNX
Runtime build), it refuses with exit status 3 rather than guess, and the caller falls
back to qemu.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from moderation.cpu import MLAS_AVX2_MARKER, onnxruntime_dir

# not rax; test al, 0xe0; je rel32  ->  the je (6 bytes) becomes a 6-byte no-op.
_AVX512 = re.compile(rb"\x48\xf7\xd0\xa8\xe0(\x0f\x84....)", re.DOTALL)
_NOP6 = b"\x66\x0f\x1f\x44\x00\x00"
# mov eax, 7; mov ecx, 1; cpuid; test al, 0x10; je rel8  ->  jmp rel8 (over AVX-VNNI's).
_AVX_VNNI = re.compile(
    rb"\xb8\x07\x00\x00\x00\xb9\x01\x00\x00\x00\x0f\xa2\xa8\x10(\x74)", re.DOTALL
)
_JMP8 = b"\xeb"
# test reg32, 0x60000 (XCR0's tile bits, already inverted); jne rel32  ->  nop; jmp rel32
# (over AMX's set-up: the tiles' permission asked of Linux and AMX's int8 GEMM).
_AMX = re.compile(rb"\xf7[\xc0-\xc7]\x00\x00\x06\x00(\x0f\x85)....", re.DOTALL)
_NOP_JMP32 = b"\x90\xe9"
_BINDING = "onnxruntime_pybind11_state"


def patched(blob: bytes) -> tuple[bytes, int]:
    """The library's bytes with MLAS's AVX-512, AVX-VNNI and AMX branches cut, and how
    many platform set-ups were cut: 0 unless each has all three branches, as many of each
    as of the others."""
    out = bytearray(blob)
    wide = [m.start(1) for m in _AVX512.finditer(blob)]
    vnni = [m.start(1) for m in _AVX_VNNI.finditer(blob)]
    amx = [m.start(1) for m in _AMX.finditer(blob)]
    if not wide or not len(wide) == len(vnni) == len(amx):
        return blob, 0
    for at in wide:
        out[at : at + len(_NOP6)] = _NOP6
    for at in vnni:
        out[at : at + len(_JMP8)] = _JMP8
    for at in amx:
        out[at : at + len(_NOP_JMP32)] = _NOP_JMP32
    return bytes(out), len(wide)


def installed() -> tuple[Path, Path]:
    """The installed onnxruntime package and its compiled binding."""
    source = onnxruntime_dir()
    if source is None:
        raise SystemExit("mlas_avx2: onnxruntime is not installed in this interpreter")
    bindings = sorted((source / "capi").glob(f"{_BINDING}*.so"))
    if len(bindings) != 1:
        raise SystemExit(f"mlas_avx2: expected one {_BINDING}*.so in {source / 'capi'}")
    return source, bindings[0]


def build(dest: Path) -> Path:
    source, binding = installed()
    target = dest / "onnxruntime"
    made = target / "capi" / binding.name
    newest = max(binding.stat().st_mtime, Path(__file__).stat().st_mtime)
    if made.is_file() and made.stat().st_mtime >= newest:
        return dest
    blob, hits = patched(binding.read_bytes())
    if not hits:
        print(
            f"mlas_avx2: {binding.name} holds no kernel choice this script knows", file=sys.stderr
        )
        raise SystemExit(3)
    staging = dest / f".onnxruntime.{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    for path in source.rglob("*"):
        rel = path.relative_to(source)
        if "__pycache__" in rel.parts or path.is_dir():
            continue
        out = staging / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        if path == binding:
            out.write_bytes(blob)
            out.chmod(0o755)
        else:
            out.symlink_to(path)
    # moderation.cpu reads it: the process counts as AVX2, emulated.
    (staging / MLAS_AVX2_MARKER).write_text("MLAS's AVX-512 branches cut by scripts/mlas_avx2.py\n")
    shutil.rmtree(target, ignore_errors=True)
    try:
        staging.rename(target)
    except OSError:
        # Another run made it in the meantime: keep theirs, as it is the same bytes.
        shutil.rmtree(staging, ignore_errors=True)
        if not made.is_file():
            raise
    print(f"mlas_avx2: {hits} kernel set-ups cut in {binding.name}", file=sys.stderr)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/mlas_avx2.py DEST|--check")
    if sys.argv[1] == "--check":
        raise SystemExit(0 if patched(installed()[1].read_bytes())[1] else 3)
    print(build(Path(sys.argv[1]).resolve()))
