#!/usr/bin/env bash
# Run a command of the project's .venv on an emulated AVX2-only CPU.
#
#   scripts/emulate-avx2.sh moderation eval --data ../shared/data --write
#   scripts/emulate-avx2.sh python -c 'from moderation.cpu import cpu_info; print(cpu_info())'
#
# ONNX Runtime picks its int8 kernels from CPUID, and AVX2's (VPMADDUBSW, which can
# saturate) give other scores than AVX-512 VNNI's: the model card keeps one
# evaluation per CPU kind. qemu's user-mode emulator (Debian `qemu-user`) answers
# CPUID as the CPU model named here (default EPYC-Rome: AVX2 and FMA, no AVX-512), so
# a VNNI machine can measure what an AVX2 one scores, example for example
# (tests/model/test_emulated_avx2.py holds it to eval-avx2.json). It is some 100x
# slower than the machine and its timings mean nothing: benchmarks refuse to write
# under it. Child processes the command starts run natively.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${VIRTUAL_ENV:-$PWD/.venv}"
if [ $# -lt 1 ]; then
  echo "usage: scripts/emulate-avx2.sh (python|moderation|...) [ARGS...]" >&2
  exit 2
fi
if ! command -v qemu-x86_64 >/dev/null; then
  echo "scripts/emulate-avx2.sh: qemu-x86_64 missing: apt-get install qemu-user" >&2
  exit 3
fi
name="$1"
shift
program=("$venv/bin/python")
# The venv's console scripts are Python files: the emulated interpreter runs them.
[ "$name" = python ] || program+=("$venv/bin/$name")
# qemu warns once per thread about host CPUID bits its emulator lacks; nothing else.
exec qemu-x86_64 -cpu "${EMULATE_CPU:-EPYC-Rome}" "${program[@]}" "$@" \
  2> >(grep -v '^qemu-x86_64: warning: TCG doesn' >&2)
