#!/usr/bin/env bash
# Install everything the tests need (into .venv, and Prometheus from Debian when we
# may), lint, type-check, and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="train,bench,replay,spark,embedded,test" source scripts/venv.sh
# From Debian, when we may: Prometheus (the observability tests run a real one),
# stunnel4 and a redis-server built with TLS (the security tests put TLS in front of
# the broker and run Redis with tls-port and ACL users). Without them those tests
# are skipped, loudly. And a headless Java runtime for the Spark replay tests, and
# qemu's user-mode emulator and a C compiler (the AVX2 report is checked on any CPU,
# emulated two ways).
missing=()
command -v java >/dev/null || missing+=(default-jre-headless)
command -v prometheus >/dev/null || missing+=(prometheus)
command -v stunnel4 >/dev/null || missing+=(stunnel4)
[ -x /usr/bin/redis-server ] || missing+=(redis-server)
command -v qemu-x86_64 >/dev/null || missing+=(qemu-user)
# A C compiler builds the preloaded CPUID handler (scripts/cpuid-avx2.c) and the AMX refusal.
command -v cc >/dev/null || missing+=(gcc)
if [ ${#missing[@]} -gt 0 ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "scripts/test.sh: installing ${missing[*]} from Debian" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}"; } >/dev/null 2>&1 \
    || echo "scripts/test.sh: could not install ${missing[*]}; their tests will be skipped" >&2
fi
ruff check .
ruff format --check .
# Strict typing over the package ([tool.mypy] in pyproject.toml).
mypy
# Two processes, each given whole files (so a module's broker and model load once):
# most integration tests wait on a broker or a child process, so on 2 cores the suite
# took 8.2 minutes this way against 14.0 in one process (AMX Xeon, 2026-11-27).
# The fault scenarios then run alone: each compares phases of one run (a part down
# against the healthy path), which a neighbouring test process skews. Give "-n 0" to
# run the first part in one process too. Exit code 5 is "nothing selected" (a path or
# -k given that holds no test of that part), not a failure.
part() {
  local rc=0
  pytest "$@" || rc=$?
  if [ "$rc" = 5 ]; then rc=0; fi
  return "$rc"
}
status=0
part -n 2 --dist loadfile --fault-tests=without "$@" || status=$?
part -n 0 --fault-tests=only "$@" || status=$?
exit "$status"
