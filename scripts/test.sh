#!/usr/bin/env bash
# Install everything the tests need (into .venv), lint, and run the whole suite.
EXTRAS="train,bench,embedded,test" source "$(dirname "$0")/venv.sh"
ruff check .
ruff format --check .
pytest "$@"
