"""A copy of ONNX Runtime's Python package whose MLAS never takes its AVX-512 kernels.

    python scripts/mlas_avx2.py DEST    # prints DEST; `import onnxruntime` from DEST
    python scripts/mlas_avx2.py --check # exit 0 if the installed library can be cut

MLAS (ONNX Runtime's kernel library) picks its kernels once, when it loads: after it
has found AVX512F in CPUID it reads XCR0 and, when the OS saves the ZMM registers
(bits 5-7), sets up its AVX-512 and VNNI kernels; otherwise it keeps the AVX2 and FMA
ones it set up just before. In the compiled library that choice is one conditional
jump after ``not rax; test al, 0xe0`` (one copy per place the platform is built). This
copy has each such jump replaced by a no-op of the same length, so the process runs
ONNX Runtime's AVX2 int8 kernels natively on an AVX-512 machine, where neither CPUID
faulting nor patience for qemu is at hand (scripts/emulate-avx2.sh, ``EMULATE_WITH=
patch``). Every other file of the package is a symbolic link to the installed one.

The copy is made again when the installed library is newer. If the installed library
does not hold the expected bytes (another ONNX Runtime build), it refuses with exit
status 3 rather than guess, and the caller falls back to qemu.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

from moderation.cpu import MLAS_AVX2_MARKER

# not rax; test al, 0xe0; je rel32  ->  the je (6 bytes) becomes a 6-byte no-op.
_CHECK = re.compile(rb"\x48\xf7\xd0\xa8\xe0(\x0f\x84....)", re.DOTALL)
_NOP6 = b"\x66\x0f\x1f\x44\x00\x00"
_BINDING = "onnxruntime_pybind11_state"


def patched(blob: bytes) -> tuple[bytes, int]:
    """The library's bytes with every AVX-512 branch of MLAS's set-up cut, and how many."""
    out = bytearray(blob)
    hits = [m.start(1) for m in _CHECK.finditer(blob)]
    for at in hits:
        out[at : at + len(_NOP6)] = _NOP6
    return bytes(out), len(hits)


def installed() -> tuple[Path, Path]:
    """The installed onnxruntime package and its compiled binding."""
    spec = importlib.util.find_spec("onnxruntime")
    if spec is None or spec.origin is None:
        raise SystemExit("mlas_avx2: onnxruntime is not installed in this interpreter")
    source = Path(spec.origin).parent
    bindings = sorted((source / "capi").glob(f"{_BINDING}*.so"))
    if len(bindings) != 1:
        raise SystemExit(f"mlas_avx2: expected one {_BINDING}*.so in {source / 'capi'}")
    return source, bindings[0]


def build(dest: Path) -> Path:
    source, binding = installed()
    target = dest / "onnxruntime"
    made = target / "capi" / binding.name
    if made.is_file() and made.stat().st_mtime >= binding.stat().st_mtime:
        return dest
    blob, hits = patched(binding.read_bytes())
    if not hits:
        print(
            f"mlas_avx2: {binding.name} holds no AVX-512 branch this script knows", file=sys.stderr
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
    print(f"mlas_avx2: {hits} AVX-512 branches cut in {binding.name}", file=sys.stderr)
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/mlas_avx2.py DEST|--check")
    if sys.argv[1] == "--check":
        raise SystemExit(0 if patched(installed()[1].read_bytes())[1] else 3)
    print(build(Path(sys.argv[1]).resolve()))
