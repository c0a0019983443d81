#!/usr/bin/env bash
# Run a command of the project's .venv as on an AVX2-only CPU.
#
#   scripts/emulate-avx2.sh moderation eval --data ../shared/data --write
#   scripts/emulate-avx2.sh python -c 'from moderation.cpu import cpu_info; print(cpu_info())'
#
# ONNX Runtime picks its int8 kernels from CPUID, and AVX2's (VPMADDUBSW, which can
# saturate) give other scores than AVX-512 VNNI's: the model card keeps one
# evaluation per CPU kind. Three ways to make this process run ONNX Runtime's AVX2
# kernels, chosen by EMULATE_WITH:
#   cpuid  native speed: Linux's CPUID faulting (/proc/cpuinfo flag cpuid_fault) and a
#          preloaded handler (scripts/cpuid-avx2.c) that answers CPUID without the
#          AVX-512, AVX-VNNI and AMX bits. Needs a C compiler (Debian `gcc`).
#   patch  native speed, CPUID left alone: a copy of the onnxruntime package whose
#          kernel library never takes its AVX-512, AVX-VNNI or AMX kernels
#          (scripts/mlas_avx2.py, kept in the venv), put first on PYTHONPATH, and
#          numpy's AVX-512 dispatch switched off (NPY_DISABLE_CPU_FEATURES). Only for
#          the ONNX Runtime build it knows; the command's child processes inherit both.
#   qemu   qemu's user-mode emulator (Debian `qemu-user`) answers CPUID as the CPU model
#          EMULATE_CPU (default EPYC-Rome: AVX2 and FMA, no AVX-512), some 100x slower.
#          Child processes the command starts run natively.
#   auto   (default) cpuid where the CPU and kernel offer the faulting, else patch on a
#          CPU with AVX-512 or AVX-VNNI where the installed ONNX Runtime can be patched,
#          else qemu.
# All run the same AVX2 kernels and give the same scores, bit for bit
# (tests/model/test_emulated_avx2.py holds them to each other and to eval-avx2.json).
# cpu_info() reports `emulated`, and benchmarks refuse to write figures: under qemu
# timings mean nothing, and under cpuid or patch they are AVX2 kernels on another CPU,
# not an AVX2 machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${VIRTUAL_ENV:-$PWD/.venv}"
if [ $# -lt 1 ]; then
  echo "usage: [EMULATE_WITH=auto|cpuid|patch|qemu] scripts/emulate-avx2.sh (python|moderation|...) [ARGS...]" >&2
  exit 2
fi
name="$1"
shift
cc="$(command -v cc || command -v gcc || true)"
way="${EMULATE_WITH:-auto}"
if [ "$way" = auto ]; then
  if grep -q -m1 -w cpuid_fault /proc/cpuinfo && [ -n "$cc" ]; then
    way=cpuid
  elif grep -q -m1 -w -E 'avx512f|avx_vnni' /proc/cpuinfo; then
    way=patch
  else
    way=qemu
  fi
fi
patched="$venv/.onnxruntime-avx2"
if [ "$way" = patch ]; then
  if ! "$venv/bin/python" scripts/mlas_avx2.py "$patched" >/dev/null; then
    [ "${EMULATE_WITH:-auto}" = auto ] || exit 3
    echo "scripts/emulate-avx2.sh: no patched ONNX Runtime; falling back to qemu" >&2
    way=qemu
  fi
fi
case "$way" in
  cpuid)
    source scripts/preload.sh
    preload_exec scripts/emulate-avx2.sh scripts/cpuid-avx2.c "$name" "$@"
    ;;
  patch)
    program=("$venv/bin/python")
    [ "$name" = python ] || program=("$venv/bin/$name")
    avx512="AVX512F AVX512CD AVX512VL AVX512BW AVX512DQ AVX512_SKX AVX512_CLX AVX512_CNL"
    avx512+=" AVX512_ICL AVX512_SPR X86_V4"
    PYTHONPATH="$patched${PYTHONPATH:+:$PYTHONPATH}" NPY_DISABLE_CPU_FEATURES="$avx512" \
      exec "${program[@]}" "$@"
    ;;
  qemu)
    if ! command -v qemu-x86_64 >/dev/null; then
      echo "scripts/emulate-avx2.sh: qemu-x86_64 missing: apt-get install qemu-user" >&2
      exit 3
    fi
    program=("$venv/bin/python")
    # The venv's console scripts are Python files: the emulated interpreter runs them.
    [ "$name" = python ] || program+=("$venv/bin/$name")
    # qemu warns once per thread about host CPUID bits its emulator lacks; nothing else.
    exec qemu-x86_64 -cpu "${EMULATE_CPU:-EPYC-Rome}" "${program[@]}" "$@" \
      2> >(grep -v '^qemu-x86_64: warning: TCG doesn' >&2)
    ;;
  *)
    echo "scripts/emulate-avx2.sh: EMULATE_WITH=$way: choose auto, cpuid, patch or qemu" >&2
    exit 2
    ;;
esac
