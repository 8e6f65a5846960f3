#!/usr/bin/env bash
# Runs REDbot (PyPI `redbot`) against a running origin's manifest, one list chunk and any further
# paths (e.g. an alias `lists/<id>.json` and the index `lists/`), prints every note with its level,
# and fails if any note is BAD.
#   scripts/redbot-check.sh http://127.0.0.1:8080 [CHUNK-FILE-NAME [PATH...]]
# Exit: 0 no BAD note, 1 a BAD note (or REDbot could not check), 2 usage or missing tool.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
REDBOT="${REDBOT:-$ROOT/.venv/bin/redbot}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
if [[ $# -lt 1 ]]; then
  echo "usage: $0 BASE_URL [CHUNK-FILE-NAME [PATH...]]" >&2
  exit 2
fi
BASE="${1%/}"
for tool in "$REDBOT" "$PYTHON"; do
  if [[ ! -x "$tool" ]]; then
    echo "redbot-check: $tool not found; create the venv and 'pip install redbot' (scripts/setup.sh does)" >&2
    exit 2
  fi
done
CHUNK="${2:-}"
shift $(( $# < 2 ? $# : 2 ))
EXTRA=("$@")
if [[ -z "$CHUNK" ]]; then
  CHUNK="$(curl -fsS --max-time 10 "$BASE/manifest.json" | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["lists"][0]["file"])')"
fi
bad=0
urls=("$BASE/manifest.json" "$BASE/$CHUNK")
for path in "${EXTRA[@]}"; do urls+=("$BASE/${path#/}"); done
for url in "${urls[@]}"; do
  echo "== $url"
  har="$(timeout 120 "$REDBOT" -o har "$url")" || { echo "redbot-check: REDbot failed on $url" >&2; exit 1; }
  report="$(printf '%s' "$har" | "$PYTHON" -c '
import json, sys
entries = json.load(sys.stdin)["log"].get("entries", [])
bad = 0 if entries else 1
for entry in entries:
    print("  status %s" % entry["response"]["status"])
    for note in entry.get("_red_messages", []):
        print("  %-4s %-10s %s" % (note.get("level"), note.get("category"), note.get("summary")))
        bad += note.get("level") == "BAD"
print("BAD=%d" % bad)
')"
  printf '%s\n' "$report" | grep -v '^BAD='
  n="$(printf '%s\n' "$report" | sed -n 's/^BAD=//p')"
  bad=$((bad + n))
done
if [[ $bad -gt 0 ]]; then
  echo "redbot-check: $bad BAD note(s)" >&2
  exit 1
fi
echo "redbot-check: no BAD notes"
