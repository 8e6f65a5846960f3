#!/usr/bin/env bash
# Starts `listserver serve` in a network namespace with nothing but loopback (no route, no DNS)
# from an empty state, and reports how long it took to answer /manifest.json with the full
# bundled set, and where /status says each list came from. Needs root (unshare -n).
#   scripts/offline-check.sh [LISTSERVER_BINARY] [TIMEOUT_SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/.build/release/listserver}"
limit="${2:-60}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/config.json" "$work/config.json"
ln -s "$root/snapshot" "$work/snapshot"

exec unshare --net bash -s "$binary" "$work" "$limit" <<'INNER'
set -euo pipefail
binary="$1"; work="$2"; limit="$3"
ip link set lo up
port=18480
start=$(date +%s.%N)
"$binary" serve --config "$work/config.json" --port "$port" 2>"$work/serve.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
/usr/bin/python3 - "$port" "$start" "$limit" <<'PY'
import json, sys, time, urllib.request
port, start, limit = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
base = f"http://127.0.0.1:{port}"
while True:
    try:
        with urllib.request.urlopen(base + "/manifest.json", timeout=2) as response:
            manifest = json.load(response)
        break
    except Exception:
        if time.time() - start > limit:
            print(f"offline-check: no manifest within {limit:.0f} s", file=sys.stderr)
            sys.exit(1)
        time.sleep(0.2)
elapsed = time.time() - start
with urllib.request.urlopen(base + "/status", timeout=5) as response:
    status = json.load(response)
print(json.dumps({
    "seconds": round(elapsed, 2),
    "lists": len(manifest["lists"]),
    "rules": sum(entry["rules"] for entry in manifest["lists"]),
    "sources": {u["id"]: {"source": u.get("source"), "sourceDate": u.get("sourceDate")} for u in status.get("upstreams", [])},
}))
PY
INNER
