#!/usr/bin/env bash
# Run a command of the project's .venv with the CPU's AMX tiles refused to it.
#
#   scripts/without-amx.sh python -c 'from moderation.cpu import cpu_info; print(cpu_info())'
#   scripts/without-amx.sh moderation bench model --docs ''
#
# On a CPU with AMX int8 (Sapphire Rapids and later), ONNX Runtime's MLAS asks the
# kernel for the tile state when it loads (arch_prctl ARCH_REQ_XCOMP_PERM) and runs
# its u8s8 GEMMs on the tiles; when refused, it keeps its AVX-512 VNNI kernels. ONNX
# Runtime has no option for it, so this preloads a small library that refuses that
# one request: the same machine then measures both paths, for an A/B in one run.
# Scores are the same (exact integer sums on either unit). Measurement only: the
# benchmarks' docs writers refuse to file figures from a process refused its tiles.
# Needs a C compiler (Debian `gcc`; scripts/without-amx.c); child processes inherit
# the refusal.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: scripts/without-amx.sh (python|moderation|...) [ARGS...]" >&2
  exit 2
fi
source scripts/preload.sh
preload_exec scripts/without-amx.sh scripts/without-amx.c "$@"
