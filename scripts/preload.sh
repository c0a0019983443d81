# Sourced by emulate-avx2.sh and without-amx.sh: run a command of the project's .venv
# with a small C library of scripts/ preloaded into it (and into its children).
#
#   preload_exec SCRIPT_NAME SOURCE.c (python|moderation|...) [ARGS...]
#
# The library is built with the system's C compiler into the venv the first time, and
# again whenever its source is newer; built beside its final name and renamed, so a
# second run at the same moment never loads half a file.
preload_exec() {
  local who="$1" src="$2" name="$3"
  shift 3
  local venv="${VIRTUAL_ENV:-$PWD/.venv}"
  local cc
  cc="$(command -v cc || command -v gcc || true)"
  if [ -z "$cc" ]; then
    echo "$who: no C compiler: apt-get install gcc" >&2
    exit 3
  fi
  local lib="$venv/.$(basename "$src" .c).so"
  if [ ! -f "$lib" ] || [ "$src" -nt "$lib" ]; then
    "$cc" -O2 -Wall -shared -fPIC -o "$lib.$$" "$src" -ldl
    mv -f "$lib.$$" "$lib"
  fi
  local program=("$venv/bin/python")
  [ "$name" = python ] || program=("$venv/bin/$name")
  LD_PRELOAD="$lib${LD_PRELOAD:+:$LD_PRELOAD}" exec "${program[@]}" "$@"
}
