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
# Needs a C compiler (Debian `gcc`); child processes inherit the refusal.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${VIRTUAL_ENV:-$PWD/.venv}"
if [ $# -lt 1 ]; then
  echo "usage: scripts/without-amx.sh (python|moderation|...) [ARGS...]" >&2
  exit 2
fi
cc="$(command -v cc || command -v gcc || true)"
if [ -z "$cc" ]; then
  echo "scripts/without-amx.sh: no C compiler: apt-get install gcc" >&2
  exit 3
fi
lib="$venv/.without-amx.so"
if [ ! -f "$lib" ] || [ "$0" -nt "$lib" ]; then
  src="$(mktemp --suffix=.c)"
  trap 'rm -f "$src"' EXIT
  cat >"$src" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#define ARCH_REQ_XCOMP_PERM 0x1023
/* libc's syscall(), refusing only the request for more XSAVE state (AMX tiles). */
long syscall(long number, ...) {
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++) a[i] = va_arg(ap, long);
    va_end(ap);
    if (number == SYS_arch_prctl && a[0] == ARCH_REQ_XCOMP_PERM) {
        errno = EPERM;
        return -1;
    }
    static long (*real)(long, ...);
    if (!real) real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
C
  "$cc" -O2 -shared -fPIC -o "$lib" "$src" -ldl
fi
name="$1"
shift
program=("$venv/bin/python")
[ "$name" = python ] || program=("$venv/bin/$name")
LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" exec "${program[@]}" "$@"
