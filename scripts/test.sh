#!/usr/bin/env bash
# Install everything the tests need (into .venv, and Prometheus from Debian when we
# may), lint, and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="train,bench,replay,embedded,test" source scripts/venv.sh
if ! command -v prometheus >/dev/null && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  # The observability tests run a real Prometheus; without it they are skipped, loudly.
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends prometheus; } >/dev/null 2>&1 \
    || echo "scripts/test.sh: could not install prometheus; its tests will be skipped" >&2
fi
ruff check .
ruff format --check .
pytest "$@"
