#!/usr/bin/env bash
# The memory and time figures of docs/scaling.md ("Memory and time on one origin"), each printed
# with what it measures:
#   1. `listserver serve` on the bundled 2025-10 snapshot (no network, WebKit gate off): RSS idle,
#      seconds of a cold explain (first request to first 200) and RSS with the explain engine loaded
#      (VmRSS and VmHWM from /proc); then SIGTERM and its exit status.
#   2. Peak RSS (`/usr/bin/time -f %M`) and the message of `convert` on a hostile 50 MB list.
#   3. `convert` wall time of one line whose $domain= names 60,000 domains, full vs --dry-run, and of
#      20 MB shapes against the 2025-10 snapshot (the "at most 10x" bound).
# Usage: scripts/bench/operator-figures.sh [BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
BINARY=$(realpath "${1:-.build/release/listserver}")
WORK=$(mktemp -d /tmp/operator-figures.XXXXXX)
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
kb() { awk -v k="$1" '$1==k":" {print $2}' "/proc/$SERVER/status"; }

echo "== 1. serve: explain memory and cold explain (bundled 2025-10 snapshot)"
cp snapshot/easylist.txt snapshot/easyprivacy.txt "$WORK/"
cat > "$WORK/config.json" <<JSON
{"publicDir": "public", "stateDir": "state",
 "upstreams": [{"id": "easylist", "url": "http://127.0.0.1:9/easylist.txt", "snapshot": "easylist.txt"},
               {"id": "easyprivacy", "url": "http://127.0.0.1:9/easyprivacy.txt", "snapshot": "easyprivacy.txt"}],
 "refresh": {"attempts": 1}, "publish": {"verifyWithWebKit": "off"}}
JSON
LISTSERVER_ADMIN_TOKEN=figures "$BINARY" serve --config "$WORK/config.json" --port 0 > "$WORK/out.txt" 2> "$WORK/serve.log" &
SERVER=$!
port=""
for _ in $(seq 1 600); do
  [ -z "$port" ] && port=$(grep -o '127.0.0.1:[0-9]*' "$WORK/out.txt" | head -1 | cut -d: -f2 || true)
  [ -n "$port" ] && curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
  sleep 0.1
done
sleep 2   # let the first online attempt fail and settle
echo "idle, set installed: VmRSS $(kb VmRSS) kB, VmHWM $(kb VmHWM) kB"
explain() { curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer figures' \
  "http://127.0.0.1:$port/explain?url=https%3A%2F%2Fads.example.com%2Fbanner.js&page=https%3A%2F%2Fnews.example.org%2F&type=script"; }
cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$SERVER/stat"; }
cpu0=$(cpu)
start=$(date +%s.%N)
until [ "$(explain)" = 200 ]; do sleep 0.02; done
end=$(date +%s.%N)
echo "cold explain: $(echo "$end - $start" | bc) s from the first request to the first 200 ($(echo "$(cpu) - $cpu0" | bc) s of the server's CPU)"
echo "explain engine loaded: VmRSS $(kb VmRSS) kB, VmHWM $(kb VmHWM) kB"
kill -TERM "$SERVER"; wait "$SERVER" && echo "SIGTERM: exit 0" || echo "SIGTERM: exit $?"
SERVER=""

echo "== 2. convert: a hostile 50 MB list"
[ -n "${SERVE_ONLY:-}" ] && exit 0
python3 - "$WORK/hostile50.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as out:
    out.write("[Adblock Plus 2.0]\n")
    size, i = 0, 0
    while size < 50 * 1024 * 1024:
        line = "||h%d.example^\n" % i
        out.write(line); size += len(line); i += 1
PY
/usr/bin/time -f "peak RSS %M kB, %e s, exit %x" "$BINARY" convert --input "$WORK/hostile50.txt" --out "$WORK/h50" 2>&1 | tail -3 || true

echo "== 3. convert: wide lines (full vs --dry-run) and 20 MB shapes against the 2025-10 snapshot"
python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
ordinary = "".join("||ordinary%d.example^\n" % i for i in range(200))
def domains(n, sep): return sep.join("d%d.example.com" % i for i in range(n))
shapes = {
    "wide60k": "||ads.example^$domain=" + domains(60000, "|"),
    "domain20mb": "||ads.example^$domain=" + domains(1050000, "|"),
    "hiding20mb": domains(1050000, ",") + "##.ad-banner",
    "hosts20mb": "\n".join("||h%d.example^" % i for i in range(1200000)),
}
for name, line in shapes.items():
    with open("%s/%s.txt" % (work, name), "w") as out:
        out.write("[Adblock Plus 2.0]\n" + ordinary + line + "\n")
PY
t() { /usr/bin/time -f "%e s, peak RSS %M kB" "$@" 2>&1 >/dev/null | tail -1; }
echo "60,000-domain line, --dry-run: $(t "$BINARY" convert --input "$WORK/wide60k.txt" --out "$WORK/w1" --dry-run)"
echo "60,000-domain line, full:      $(t "$BINARY" convert --input "$WORK/wide60k.txt" --out "$WORK/w2")"
echo "2025-10 snapshot, full:        $(t "$BINARY" convert --input snapshot/easylist.txt snapshot/easyprivacy.txt --out "$WORK/snap")"
for name in domain20mb hiding20mb hosts20mb; do
  echo "$name ($(stat -c %s "$WORK/$name.txt") bytes), full: $(t "$BINARY" convert --input "$WORK/$name.txt" --out "$WORK/o-$name")"
done
