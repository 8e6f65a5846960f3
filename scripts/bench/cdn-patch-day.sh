#!/usr/bin/env bash
# Origin load on a patch day behind a real CDN: `listserver serve` refreshes from a
# loopback upstream holding the real EasyList/EasyPrivacy of day N, one device store is synced to
# that set, then the upstream moves to day N+1 and POST /admin/refresh publishes it (with dcz
# patches from day N). Varnish (scripts/varnish/cdn.vcl) starts empty in front of the server and
# DEVICES devices, each a copy of the day-N store, run `listserver sync` through it: once with the
# cold cache, once more (fresh day-N copies) with the cache the first wave warmed. Prints origin
# requests per 1,000 device syncs for each wave, by route, from the server's /metrics, and what
# the devices did (patched lists, fallbacks, bytes).
#
# Usage: scripts/bench/cdn-patch-day.sh            (env: DAY=19 DEVICES=1000 PARALLEL=8
#                                                   LISTSERVER=prebuilt binary; else builds release into .build-sync)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
DAY="${DAY:-19}"
NEXT=$(printf "%02d" $((10#$DAY + 1)))
DEVICES="${DEVICES:-1000}"
PARALLEL="${PARALLEL:-8}"
for tool in varnishd curl python3 xargs; do
    command -v "$tool" >/dev/null || { echo "$0: $tool not found (scripts/setup.sh test installs it)" >&2; exit 1; }
done
[[ -f "$lists/easylist-2020-10-$NEXT.txt" ]] || { echo "$0: no 2020-10-$NEXT lists in $lists" >&2; exit 2; }
if [[ -z "${LISTSERVER:-}" ]]; then
    swift build -c release --static-swift-stdlib --scratch-path "$root/.build-sync" --product listserver >/dev/null
    LISTSERVER="$root/.build-sync/release/listserver"
fi

work="$(mktemp -d /tmp/cdn-patch-day.XXXXXX)"
chmod 755 "$work"   # varnishd reads the VCL as its unprivileged user
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; [[ -n "${KEEP:-}" ]] || rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { # url [log]: bounded wait (3 min) for a 2xx while the last started process lives
    for _ in $(seq 900); do
        curl -sf -o /dev/null "$1" && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.2
    done
    echo "$0: $1 never answered" >&2; [[ -n "${2:-}" ]] && tail -20 "$2" >&2; exit 1
}
upstream_day() { cp "$lists/easylist-2020-10-$1.txt" "$work/upstream/easylist.txt"; cp "$lists/easyprivacy-2020-10-$1.txt" "$work/upstream/easyprivacy.txt"; }

UP_PORT=$(free_port); LS_PORT=$(free_port); CDN_PORT=$(free_port)
mkdir -p "$work/upstream" "$work/devices"
upstream_day "$DAY"
python3 -m http.server "$UP_PORT" --bind 127.0.0.1 --directory "$work/upstream" >/dev/null 2>&1 & pids+=($!)
cat > "$work/config.json" <<JSON
{"publicDir": "$work/public", "stateDir": "$work/state",
 "listen": {"address": "127.0.0.1", "port": $LS_PORT},
 "upstreams": [{"id": "easylist", "url": "http://127.0.0.1:$UP_PORT/easylist.txt"},
               {"id": "easyprivacy", "url": "http://127.0.0.1:$UP_PORT/easyprivacy.txt"}],
 "refresh": {"intervalSeconds": 86400, "attempts": 1},
 "publish": {"verifyWithWebKit": "off"}}
JSON
wait_for "http://127.0.0.1:$UP_PORT/easylist.txt"
LISTSERVER_ADMIN_TOKEN=bench-token "$LISTSERVER" serve --config "$work/config.json" >"$work/server.log" 2>&1 & pids+=($!)
wait_for "http://127.0.0.1:$LS_PORT/healthz" "$work/server.log"
origin="http://127.0.0.1:$LS_PORT"

start_edge() { # a fresh varnishd (empty cache) on CDN_PORT
    [[ -n "${edge_pid:-}" ]] && { kill "$edge_pid"; wait "$edge_pid" 2>/dev/null || true; }
    rm -rf "$work/varnish"
    varnishd -F -n "$work/varnish" -a "127.0.0.1:$CDN_PORT" -f "$work/cdn.vcl" -s malloc,256m -p default_grace=0 >"$work/varnish.log" 2>&1 &
    edge_pid=$!; pids+=($edge_pid)
    wait_for "http://127.0.0.1:$CDN_PORT/healthz" "$work/varnish.log"
}
"$root/scripts/varnish/render-vcl.sh" 127.0.0.1 "$LS_PORT" > "$work/cdn.vcl"
chmod 644 "$work/cdn.vcl"
start_edge
cdn="http://127.0.0.1:$CDN_PORT"

# One device synced to day N through the edge (a device remembers its manifest URL), copied per device.
"$LISTSERVER" sync --manifest "$cdn/manifest.json" --dir "$work/seed" --allow-unsigned --json >/dev/null
day_n=$(curl -sf "$origin/manifest.json" | sha256sum)

upstream_day "$NEXT"
curl -sf -o /dev/null -X POST -H "Authorization: Bearer bench-token" "$origin/admin/refresh"
for _ in $(seq 600); do [[ "$(curl -sf "$origin/manifest.json" | sha256sum)" != "$day_n" ]] && break; sleep 0.2; done
[[ "$(curl -sf "$origin/manifest.json" | sha256sum)" != "$day_n" ]] || { echo "$0: the day-$NEXT publish never appeared" >&2; exit 1; }
start_edge   # the patch day starts with an empty edge cache

# Origin requests by route (manifest, list = hashed lists and patches) from /metrics.
origin_counts() { curl -sf "$origin/metrics" | python3 -c '
import re, sys
counts = {}
for line in sys.stdin:
    m = re.match(r"listserver_http_requests_total\{route=\"(\w+)\",status=\"(\d+)\"\} (\d+)", line)
    if m and m.group(1) in ("manifest", "list"):
        key = m.group(1) + " " + m.group(2)
        counts[key] = counts.get(key, 0) + int(m.group(3))
print(" ".join(k.replace(chr(32), chr(95)) + "=" + str(v) for k, v in sorted(counts.items())))'; }

wave() { # label: DEVICES fresh day-N stores sync through the edge; prints origin requests per 1,000
    # Each device copies the day-N store, syncs, and is removed: at most PARALLEL stores on disk.
    mkdir -p "$work/reports-$1"
    local before after start end
    before=$(origin_counts); start=$(date +%s.%N)
    seq "$DEVICES" | xargs -P "$PARALLEL" -I{} sh -c \
        "cp -a \"$work/seed\" \"$work/devices/{}\" && \"$LISTSERVER\" sync --manifest $cdn/manifest.json \
         --dir \"$work/devices/{}\" --allow-unsigned --json > \"$work/reports-$1/{}.json\"; rm -rf \"$work/devices/{}\""
    end=$(date +%s.%N); after=$(origin_counts)
    python3 - "$1" "$DEVICES" "$before" "$after" "$work/reports-$1" "$start" "$end" <<'PY'
import json, os, sys
label, devices, before, after, reports, start, end = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]), float(sys.argv[7])
parse = lambda text: {k: int(v) for k, v in (pair.split("=") for pair in text.split())}
b, a = parse(before), parse(after)
delta = {k: a[k] - b.get(k, 0) for k in a if a[k] - b.get(k, 0)}
total = sum(delta.values())
patched = files = fallbacks = transferred = updated = 0
for name in os.listdir(reports):
    r = json.load(open(os.path.join(reports, name)))
    updated += r["outcome"] == "updated"
    for d in r["downloaded"]:
        files += 1
        patched += bool(d.get("patch"))
        fallbacks += bool(d.get("patchFallback"))
        transferred += d["transferredBytes"]
per = lambda n: n * 1000 / devices
print(f"{label:<5} {devices} devices in {end - start:.1f} s: origin requests per 1,000 device syncs {per(total):.1f} "
      "(" + (", ".join(k.replace("_", " ") + ": " + str(v) for k, v in sorted(delta.items())) or "none") + "); "
      
      f"devices updated {updated}, files {files} ({patched} via patch, {fallbacks} fallbacks), {transferred / devices / 1000:.1f} KB per device")
PY
}

echo "patch day 2020-10-$DAY -> 2020-10-$NEXT, $DEVICES devices, $PARALLEL at a time, Varnish in front of listserver"
wave cold
wave warm
