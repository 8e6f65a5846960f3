#!/usr/bin/env bash
# What a device pays for each daily update, measured with the real client over HTTP.
# Converts the real EasyList/EasyPrivacy days 2020-10-19…29 into ONE directory, as the server's
# refresh publishes (each day over the set already there: its layout, its grace-period files and
# the dcz patches written from them), serves it from nginx (gzip_static: the same deterministic .gz
# bytes listserver serves), and runs `listserver sync` for a device after each publish, and for a
# device a week behind (synced on 10-22, then on 10-29). Prints per step: lists changed, bytes the
# device transferred with patches and what whole changed files would cost (gzip), each as a share
# of the new set's gzip bytes, the publish's patch generation time, the rules to recompile as a share
# of the set's rules, and whether the client ended up with exactly the new set's hashes.
#
# Usage: scripts/bench/device-updates.sh            (builds release into .build-sync)
#        LISTSERVER=path/to/listserver scripts/bench/device-updates.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
command -v nginx >/dev/null || { echo "$0: nginx not found; apt-get install -y nginx" >&2; exit 1; }
if [[ -z "${LISTSERVER:-}" ]]; then
    swift build -c release --static-swift-stdlib --scratch-path "$root/.build-sync" --product listserver >/dev/null
    LISTSERVER="$root/.build-sync/release/listserver"
fi
work="$(mktemp -d /tmp/device-updates.XXXXXX)"
chmod 755 "$work"   # nginx workers run as an unprivileged user
nginx_pid=""
cleanup() { [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=$(python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events {}
http {
  access_log $work/nginx/access.log;
  client_body_temp_path $work/nginx;
  types { application/json json; application/octet-stream dcz; }
  server { listen 127.0.0.1:$port; root $work/public; gzip_static on; }
}
CONF

convert() { # day: publishes that day's lists over the set in $work/public; prints the patch time
    "$LISTSERVER" convert --input "$lists/easylist-2020-10-$1.txt" --input "$lists/easyprivacy-2020-10-$1.txt" \
        --out "$work/public" | sed -n 's/.*patches: .* in \([0-9.]*\) s/\1/p'
    cp "$work/public/manifest.json" "$work/manifest-$1.json"
    # nginx's ETag is mtime+size: date each day's manifest by its day, as a real publish would.
    touch -d "2020-10-$1 01:00:00" "$work/public/manifest.json"
}

sync_device() { "$LISTSERVER" sync --manifest "http://127.0.0.1:$port/manifest.json" --dir "$work/$1" --allow-unsigned --json; }

convert 19 > /dev/null
nginx -c "$work/nginx/nginx.conf" & nginx_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/manifest.json" && break; sleep 0.1; done
sync_device daily > "$work/first.json"
python3 -c "import json,sys; r=json.load(open('$work/first.json')); print(f\"first sync 10-19: {len(r['downloaded'])} files, {r['transferredBytes']} bytes transferred\")"

row() { # step-label old-day new-day report patch-seconds
    python3 - "$work/manifest-$2.json" "$work/manifest-$3.json" "$4" "$1" "$5" "$work/public" <<'PY'
import json, os, sys
old, new, report, step, seconds, public = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4], sys.argv[5], sys.argv[6]
held = {e["sha256"] for e in old["lists"]}
changed = [e for e in new["lists"] if e["sha256"] not in held]
gz = lambda e: os.path.getsize(os.path.join(public, e["file"] + ".gz"))
set_gzip = sum(gz(e) for e in new["lists"])
whole = sum(gz(e) for e in changed)
got = sum(d["transferredBytes"] for d in report["downloaded"])
via = sum(1 for d in report["downloaded"] if d.get("patch"))
fallbacks = [d["patchFallback"] for d in report["downloaded"] if d.get("patchFallback")]
rules = sum(e["rules"] for e in new["lists"])
recompile = sum(e["rules"] for e in new["lists"] if e["id"] in report["recompile"])
exact = "yes" if {d["sha256"] for d in report["downloaded"]} == {e["sha256"] for e in changed} else "NO"
print(f"{step:<13} {len(changed):>7} {via:>7} {got:>11} {100*got/set_gzip:>7.2f}% {whole:>11} {100*whole/set_gzip:>7.2f}% "
      f"{seconds:>8} {100*recompile/rules:>9.1f}% {exact:>5}" + (f"  fallbacks: {fallbacks}" if fallbacks else ""))
PY
}

printf "%-13s %7s %7s %11s %8s %11s %8s %8s %10s %5s\n" step changed patched with-patch share whole-B share patch-s recompile exact
previous=19
for day in 20 21 22 23 24 25 26 27 28 29; do
    seconds=$(convert "$day")
    sync_device daily > "$work/sync-$day.json"
    row "10-$previous→$day" "$previous" "$day" "$work/sync-$day.json" "$seconds"
    [[ $day == 22 ]] && sync_device week > /dev/null
    previous=$day
done
sync_device week > "$work/sync-week.json"
row "10-22→29 week" 22 29 "$work/sync-week.json" "-"
# The same device again with nothing new: one conditional request, answered 304.
sync_device daily > "$work/again.json"
python3 -c "import json,sys; r=json.load(open('$work/again.json')); print(f\"no new publish: outcome {r['outcome']}, {r['transferredBytes']} bytes transferred\")"
echo "origin requests served: $(wc -l < "$work/nginx/access.log")"
