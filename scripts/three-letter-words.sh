#!/usr/bin/env bash
# Write moderation/words/three.txt, the three-letter words a cut of words run together
# may give (moderation/normalize.py, docs/model.md rule 82): every word of three ascii
# letters in wordfreq 3.1.1's English list of 30,000 at a Zipf frequency of 4.5 or more
# (about once in 30,000 words of text) that is an English word (english.txt.gz, rule
# 58's list). One word a line, sorted. The normalizer leaves out its words of abuse.
#
#   scripts/three-letter-words.sh   (installs wordfreq into a throwaway venv; needs PyPI)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q wordfreq==3.1.1
"$venv/bin/python" - <<'PY'
import gzip
from pathlib import Path

from wordfreq import top_n_list, zipf_frequency

english = set(gzip.decompress(Path("moderation/words/english.txt.gz").read_bytes()).decode().split())
words = sorted(
    w
    for w in top_n_list("en", 30000)
    if len(w) == 3 and w.isascii() and w.isalpha() and zipf_frequency(w, "en") >= 4.5
    and w in english
)
Path("moderation/words/three.txt").write_text("\n".join(words) + "\n")
print(len(words), "words")
PY
