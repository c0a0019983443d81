#!/usr/bin/env bash
# Write moderation/words/english.txt.gz, the English words the typo reading leaves as
# written (moderation/normalize.py, docs/model.md rule 58): SCOWL's American and British
# "large" lists as Debian ships them, words of three ascii letters or more, lowercased,
# sorted, gzip without a timestamp (the same lists give the same bytes).
#
#   scripts/english-words.sh      (installs wamerican-large and wbritish-large if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
lists=(/usr/share/dict/american-english-large /usr/share/dict/british-english-large)
if ! [ -f "${lists[0]}" ] || ! [ -f "${lists[1]}" ]; then
  apt-get install -y -q wamerican-large wbritish-large >/dev/null
fi
python3 - "${lists[@]}" <<'PY'
import gzip, sys
words = {w.lower() for path in sys.argv[1:] for w in open(path, encoding="utf-8").read().split()
         if w.isascii() and w.isalpha() and len(w) >= 3}
with gzip.GzipFile("moderation/words/english.txt.gz", "wb", mtime=0) as out:
    out.write(("\n".join(sorted(words)) + "\n").encode("ascii"))
print(len(words), "words")
PY
cp /usr/share/doc/wamerican-large/copyright moderation/words/COPYING-SCOWL
