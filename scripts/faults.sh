#!/usr/bin/env bash
# The fault suite at its long scale (several minutes); writes docs/reliability.md.
# The short scale runs with the tests (pytest -m fault).
EXTRAS="bench,embedded,test" source "$(dirname "$0")/venv.sh"
python -m tests.faults.run "$@"
