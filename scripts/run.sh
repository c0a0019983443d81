#!/usr/bin/env bash
# The main job: the worker on the embedded broker; sample messages in, verdicts out.
EXTRAS="embedded" source "$(dirname "$0")/venv.sh"
moderation demo "$@"
