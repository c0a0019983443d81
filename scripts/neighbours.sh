#!/usr/bin/env bash
# Write moderation/words/neighbours.txt.gz: how often the training text writes each word
# a shared typo of three letters is of ("sht": shit, shot, shut) beside each other word
# (moderation/build/neighbours.py, docs/model.md rule 86). The same data files give the
# same bytes.
#
#   scripts/neighbours.sh [DATA_DIR]     (default ../shared/data; needs the train extra)
set -euo pipefail
cd "$(dirname "$0")/.."
python -m moderation.build.neighbours "${1:-../shared/data}"
