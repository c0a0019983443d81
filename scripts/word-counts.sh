#!/usr/bin/env bash
# Write moderation/words/counts.txt.gz, how often the training text uses each English
# word, each whole word of a shipped vocabulary and each word of abuse the typo reading
# knows (moderation/build/word_counts.py, docs/model.md rule 59). The same data files
# give the same bytes.
#
#   scripts/word-counts.sh [DATA_DIR]     (default ../shared/data; needs the train extra)
set -euo pipefail
cd "$(dirname "$0")/.."
python -m moderation.build.word_counts "${1:-../shared/data}"
