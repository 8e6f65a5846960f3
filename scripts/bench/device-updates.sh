#!/usr/bin/env bash
# What a device pays for each daily update, measured with the real client over HTTP.
# Converts the real EasyList/EasyPrivacy days 2020-10-19…29 in a chain (each day with
# --previous = the day before, so the layout is stable), serves each day's set in turn from
# nginx (gzip_static: the same deterministic .gz bytes listserver serves), and runs
# `listserver sync` for one device after each publish. Prints per step: lists in the set, files
# downloaded, bytes of lists and bytes transferred (gzip), lists recompiled and their rules, and
# whether the client fetched exactly the files whose hash changed.
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
  types { application/json json; }
  server { listen 127.0.0.1:$port; root $work/current; gzip_static on; }
}
CONF

convert() { # day previous-day-or-empty
    local previous=()
    [[ -n "$2" ]] && previous=(--previous "$work/sets/$2")
    "$LISTSERVER" convert --input "$lists/easylist-2020-10-$1.txt" "$lists/easyprivacy-2020-10-$1.txt" \
        --out "$work/sets/$1" "${previous[@]}" >/dev/null
}

# nginx's ETag is mtime+size: two manifests written in the same second with the same size would
# share it and the device would get a 304. Date each day's manifest by its day, as a real publish would.
publish() { touch -d "2020-10-$1 01:00:00" "$work/sets/$1/manifest.json"; ln -sfn "$work/sets/$1" "$work/current"; }

sync_device() { "$LISTSERVER" sync --manifest "http://127.0.0.1:$port/manifest.json" --dir "$work/device" --allow-unsigned --json; }

convert 19 ""
publish 19
nginx -c "$work/nginx/nginx.conf" & nginx_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/manifest.json" && break; sleep 0.1; done
sync_device > "$work/first.json"
python3 - "$work/first.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"first sync 10-19: {len(r['downloaded'])} files, {r['downloadedBytes']} bytes of lists, {r['transferredBytes']} bytes transferred")
PY

printf "%-10s %5s %10s %12s %12s %10s %9s %6s\n" step lists downloaded list-bytes transferred recompiled rules exact
previous=19
for day in 20 21 22 23 24 25 26 27 28 29; do
    convert "$day" "$previous"
    publish "$day"
    sync_device > "$work/sync-$day.json"
    python3 - "$work/sets/$previous/manifest.json" "$work/sets/$day/manifest.json" "$work/sync-$day.json" "10-$previous→$day" <<'PY'
import json, sys
old, new, report, step = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
expected = {e["sha256"] for e in new["lists"]} - {e["sha256"] for e in old["lists"]}
got = [d["sha256"] for d in report["downloaded"]]
exact = "yes" if set(got) == expected and len(got) == len(expected) else "NO"
rules = sum(e["rules"] for e in new["lists"] if e["id"] in report["recompile"])
print(f"{step:<10} {len(new['lists']):>5} {len(got):>10} {report['downloadedBytes']:>12} {report['transferredBytes']:>12} "
      f"{len(report['recompile']):>10} {rules:>9} {exact:>6}")
PY
    previous=$day
done
# The same device again with nothing new: one conditional request, answered 304.
sync_device > "$work/again.json"
python3 -c "import json,sys; r=json.load(open('$work/again.json')); print(f\"no new publish: outcome {r['outcome']}, {r['transferredBytes']} bytes transferred\")"
echo "origin requests served: $(wc -l < "$work/nginx/access.log")"
