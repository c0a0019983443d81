#!/usr/bin/env bash
# Re-pin deploy/constraints.txt: resolve the project with every extra in a scratch venv
# and freeze it. CI, scripts/venv.sh and the Dockerfile install with `-c` this file,
# so two builds a month apart get the same versions. Run after changing dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
python3 -m venv "$scratch/venv"
"$scratch/venv/bin/pip" install -q --upgrade pip
"$scratch/venv/bin/pip" install -q ".[train,bench,replay,spark,embedded,test]" aiohttp
{
  echo "# Pinned versions for CI, scripts/venv.sh and deploy/Dockerfile (pip install -c)."
  echo "# Made by scripts/lock.sh on $(date -u +%Y-%m-%d) with $("$scratch/venv/bin/python" --version)."
  "$scratch/venv/bin/pip" freeze --exclude moderation | LC_ALL=C sort -f
} > deploy/constraints.txt
echo "wrote deploy/constraints.txt ($(grep -vc '^#' deploy/constraints.txt) pins)"
