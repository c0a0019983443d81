#!/usr/bin/env bash
# The fault suite at its long scale (several minutes); writes docs/reliability.md.
# The short scale runs with the tests (pytest -m fault).
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="bench,embedded,test" source scripts/venv.sh
python -m tests.faults.run "$@"
