#!/usr/bin/env bash
# Time from starting `listserver serve` to the first 200 for /manifest.json, with no network:
#   cold: empty state and public dirs (converts the bundled snapshot, WebKit gate per config)
#   warm: the state and public dirs the cold run left (serves the published set from disk)
# Usage: scripts/bench/serve-startup.sh [BINARY] [verifyWithWebKit: auto|on|off] [runs]
set -euo pipefail
cd "$(dirname "$0")/../.."
BINARY=${1:-.build/release/listserver}
VERIFY=${2:-auto}
RUNS=${3:-3}
WORK=$(mktemp -d /tmp/serve-startup.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cat > "$WORK/config.json" <<JSON
{"publicDir": "public", "stateDir": "state",
 "upstreams": [{"id": "easylist", "url": "http://127.0.0.1:9/easylist.txt", "snapshot": "$PWD/snapshot/easylist.txt"},
               {"id": "easyprivacy", "url": "http://127.0.0.1:9/easyprivacy.txt", "snapshot": "$PWD/snapshot/easyprivacy.txt"}],
 "refresh": {"attempts": 1},
 "publish": {"verifyWithWebKit": "$VERIFY"}}
JSON

# Starts the server, waits for the manifest, prints seconds, stops it with SIGTERM (exit status checked).
time_to_manifest() {
  local out="$WORK/out.txt" start end port=""
  : > "$out"
  start=$(date +%s.%N)
  "$BINARY" serve --config "$WORK/config.json" --port 0 > "$out" 2>> "$WORK/serve.log" &
  local pid=$!
  for _ in $(seq 1 6000); do
    [ -z "$port" ] && port=$(grep -o '127.0.0.1:[0-9]*' "$out" | head -1 | cut -d: -f2 || true)
    if [ -n "$port" ] && curl -sf -o /dev/null "http://127.0.0.1:$port/manifest.json"; then
      end=$(date +%s.%N)
      break
    fi
    sleep 0.02
  done
  kill -TERM "$pid"
  local status=0
  wait "$pid" || status=$?
  [ -n "${end:-}" ] || { echo "no manifest within 120 s" >&2; exit 1; }
  echo "$(echo "$end - $start" | bc -l) $status"
}

echo "binary=$BINARY verifyWithWebKit=$VERIFY runs=$RUNS cores=$(nproc)"
for run in $(seq 1 "$RUNS"); do
  rm -rf "$WORK/state" "$WORK/public"
  read -r cold cold_exit < <(time_to_manifest)
  read -r warm warm_exit < <(time_to_manifest)
  lists=$(python3 -c "import json;m=json.load(open('$WORK/public/manifest.json'));print(len(m['lists']), 'lists,', sum(l['rules'] for l in m['lists']), 'rules')")
  printf 'run %d: cold %.2f s (exit %s), warm %.3f s (exit %s), cold/warm %.0fx, set: %s\n' \
    "$run" "$cold" "$cold_exit" "$warm" "$warm_exit" "$(echo "$cold / $warm" | bc -l)" "$lists"
done
