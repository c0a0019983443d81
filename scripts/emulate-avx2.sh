#!/usr/bin/env bash
# Run a command of the project's .venv as on an AVX2-only CPU.
#
#   scripts/emulate-avx2.sh moderation eval --data ../shared/data --write
#   scripts/emulate-avx2.sh python -c 'from moderation.cpu import cpu_info; print(cpu_info())'
#
# ONNX Runtime picks its int8 kernels from CPUID, and AVX2's (VPMADDUBSW, which can
# saturate) give other scores than AVX-512 VNNI's: the model card keeps one
# evaluation per CPU kind. Two ways to show this process an AVX2-only CPU, chosen by
# EMULATE_WITH:
#   cpuid  native speed: Linux's CPUID faulting (/proc/cpuinfo flag cpuid_fault) and a
#          preloaded handler (scripts/cpuid-avx2.c) that answers CPUID without the
#          AVX-512, AVX-VNNI and AMX bits. Needs a C compiler (Debian `gcc`).
#   qemu   qemu's user-mode emulator (Debian `qemu-user`) answers CPUID as the CPU model
#          EMULATE_CPU (default EPYC-Rome: AVX2 and FMA, no AVX-512), some 100x slower.
#          Child processes the command starts run natively.
#   auto   (default) cpuid where the CPU and kernel offer the faulting, else qemu.
# Both run the same AVX2 kernels and give the same scores, bit for bit
# (tests/model/test_emulated_avx2.py holds them to each other and to eval-avx2.json).
# Timings mean nothing under either: cpu_info() reports `emulated`, and benchmarks
# refuse to write figures.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${VIRTUAL_ENV:-$PWD/.venv}"
if [ $# -lt 1 ]; then
  echo "usage: [EMULATE_WITH=auto|cpuid|qemu] scripts/emulate-avx2.sh (python|moderation|...) [ARGS...]" >&2
  exit 2
fi
name="$1"
shift
cc="$(command -v cc || command -v gcc || true)"
way="${EMULATE_WITH:-auto}"
if [ "$way" = auto ]; then
  if grep -q -m1 -w cpuid_fault /proc/cpuinfo && [ -n "$cc" ]; then way=cpuid; else way=qemu; fi
fi
case "$way" in
  cpuid)
    source scripts/preload.sh
    preload_exec scripts/emulate-avx2.sh scripts/cpuid-avx2.c "$name" "$@"
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
    echo "scripts/emulate-avx2.sh: EMULATE_WITH=$way: choose auto, cpuid or qemu" >&2
    exit 2
    ;;
esac
