#!/usr/bin/env bash
# What a phone pays each day, compile and bytes, in real WebKit (scripts/webkit/device.py).
# Publishes the real EasyList/EasyPrivacy days 2020-10-19…29 into ONE signed directory through the
# server's publish path (`listserver convert` over the set already there: layout, patches, signed
# manifest), serves it from nginx (gzip_static; the manifest gzipped as the origin serves it), and
# after each publish runs the reference device: `listserver sync` (signature checked), then a
# WebKitGTK UserContentFilterStore lookup per list and a compile on each miss. In the same run,
# alternating the order day by day, it compiles (a) the whole day's set in an empty store (the
# "full compile" the share is of) and (b) SafariConverterLib's output for the same day
# (../shared/data/peers), one list a device recompiles whole every day. A second device syncs on
# 10-22 and again on 10-29 (a week behind).
#
# Per day it prints: lists compiled, compile seconds (wall and CPU) and their share of the full
# compile, the full compile and the peer's compile with their ratio, and the bytes counted whole
# (manifest as transferred + its signature + patches + whole files) as a share of the set's gzip.
# The machine may be shared: read the same-run ratios, not the seconds.
#
# Usage: scripts/bench/device-day.sh                     (builds release into .build-sync)
#        LISTSERVER=.build/debug/listserver scripts/bench/device-day.sh
#        PEERS=/path/to/peers DAYS="20 21" scripts/bench/device-day.sh
#        CONVERT_FLAGS="--removal-grace 3" scripts/bench/device-day.sh   (a layout knob under test)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
peers="${PEERS:-$root/../shared/data/peers}"
[[ -d "$peers" ]] || peers=/work/shared/data/peers
days="${DAYS:-20 21 22 23 24 25 26 27 28 29}"
python="${LISTSERVER_WEBKIT_PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python=/usr/bin/python3
device="$root/scripts/webkit/device.py"
command -v nginx >/dev/null || { echo "$0: nginx not found; apt-get install -y nginx" >&2; exit 1; }
if [[ -z "${LISTSERVER:-}" ]]; then
    swift build -c release --static-swift-stdlib --scratch-path "$root/.build-sync" --product listserver >/dev/null
    LISTSERVER="$root/.build-sync/release/listserver"
fi
work="$(mktemp -d /tmp/device-day.XXXXXX)"
chmod 755 "$work"   # nginx workers run as an unprivileged user
nginx_pid=""
cleanup() { [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

port=$("$python" -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])")
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events {}
http {
  access_log $work/nginx/access.log;
  client_body_temp_path $work/nginx;
  types { application/json json; application/octet-stream dcz minisig; }
  server { listen 127.0.0.1:$port; root $work/public; gzip_static on; }
}
CONF
"$LISTSERVER" keygen --out "$work/key" >/dev/null
pub="$(ls "$work/key"/*.pub)"
key="$(ls "$work/key"/* | grep -v '\.pub$' | head -1)"

publish() { # day: publishes that day's lists over the set in $work/public, signed
    "$LISTSERVER" convert --input "$lists/easylist-2020-10-$1.txt" --input "$lists/easyprivacy-2020-10-$1.txt" \
        --out "$work/public" --signing-key "$key" --no-validate ${CONVERT_FLAGS:-} >/dev/null
    # The origin serves the manifest gzipped (Support/Gzip, level 9); nginx serves this sibling.
    gzip -9nc "$work/public/manifest.json" > "$work/public/manifest.json.gz"
    cp "$work/public/manifest.json" "$work/manifest-$1.json"
    # nginx's ETag is mtime+size: date each day's manifest by its day, as a real publish would.
    touch -d "2020-10-$1 01:00:00" "$work/public/manifest.json" "$work/public/manifest.json.gz"
    zcat "$peers/safariconverterlib-2020-10-$1.json.gz" > "$work/peer-$1.json"
}
device() { # name → the device's JSON report of one sync + install
    "$python" "$device" --store "$work/webkit-$1" --dir "$work/sync-$1" --listserver "$LISTSERVER" \
        --manifest "http://127.0.0.1:$port/manifest.json" --json -- --trusted-key "$pub"
}
full() { "$python" "$device" --store "$work/webkit-full-$1" --dir "$work/sync-daily" --json; rm -rf "$work/webkit-full-$1"; }
peer() { "$python" "$device" --store "$work/webkit-peer" --list "safari=$work/peer-$1.json" --json; }

publish 19
nginx -c "$work/nginx/nginx.conf" & nginx_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/manifest.json" && break; sleep 0.1; done
device daily > "$work/daily-19.json"
peer 19 > "$work/peer-19.json.report"
cp "$work/daily-19.json" "$work/full-19.json"

row() { # label day device-report full-report peer-report
    "$python" - "$work/public" "$work/manifest-$2.json" "$3" "$4" "$5" "$1" "$work/peer-$2.json" <<'PY'
import gzip, json, os, sys
public, manifest, device, full, peer, label, peer_list = sys.argv[1:8]
manifest, device, full, peer = (json.load(open(p)) for p in (manifest, device, full, peer))
set_gzip = sum(os.path.getsize(os.path.join(public, e["file"] + ".gz")) for e in manifest["lists"])
signature = 0
if device["sync"]["outcome"] != "not-modified":
    sha = __import__("hashlib").sha256(open(os.path.join(public, "manifest.json"), "rb").read()).hexdigest()
    path = os.path.join(public, "signatures", sha + ".minisig")
    signature = os.path.getsize(path) if os.path.exists(path) else 0
sync = device["sync"]
whole = sync["transferredBytes"] + signature
files = sync["transferredBytes"] - sync["manifestTransferredBytes"]
fallbacks = [f["patchFallback"] for f in sync["files"] if f.get("patchFallback")]
peer_gzip = len(gzip.compress(open(peer_list, "rb").read(), 9))
d, f, p = device["compile_seconds"], full["compile_seconds"], peer["compile_seconds"]
dc, fc, pc = device["compile_cpu_seconds"], full["compile_cpu_seconds"], peer["compile_cpu_seconds"]
print(f"{label:<14} {len(device['compiled']):>3}/{device['lists']:<3} {d:>7.2f} {dc:>7.2f} {100*dc/fc:>6.1f}% {100*d/f:>6.1f}% "
      f"{f:>6.2f} {fc:>6.2f} {p:>6.2f} {pc:>6.2f} {fc/pc:>6.2f} "
      f"{sync['manifestTransferredBytes']:>7} {signature:>4} {files:>7} {whole:>7} {100*whole/set_gzip:>6.2f}% {set_gzip:>7} {peer_gzip:>7}"
      + (f"  fallbacks: {fallbacks}" if fallbacks else "") + (f"  FAILED: {device['failed']}" if device["failed"] else ""))
print(json.dumps({"label": label, "cpu_share": dc / fc, "wall_share": d / f, "full_over_peer_cpu": fc / pc,
                  "full_over_peer_wall": f / p, "bytes_share": whole / set_gzip}), file=open(os.environ["ROWS"], "a"))
PY
}
export ROWS="$work/rows.jsonl"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); device = scripts/webkit/device.py (WebKitGTK)"
printf "%-14s %7s %7s %7s %7s %7s %6s %6s %6s %6s %6s %7s %4s %7s %7s %7s %7s %7s\n" step compiled dev-s dev-cpu cpu-shr wall-shr \
    full-s full-c peer-s peer-c full/pr manif-B sig files-B whole-B share set-gz peer-gz
row "first 10-19" 19 "$work/daily-19.json" "$work/full-19.json" "$work/peer-19.json.report"
previous=19
index=0
for day in $days; do
    publish "$day"
    device daily > "$work/daily-$day.json"
    # Alternate which of the two full compiles goes first, so drift in the load hits both alike.
    if (( index % 2 )); then
        peer "$day" > "$work/peer-$day.json.report"; full "$day" > "$work/full-$day.json"
    else
        full "$day" > "$work/full-$day.json"; peer "$day" > "$work/peer-$day.json.report"
    fi
    row "10-$previous→$day" "$day" "$work/daily-$day.json" "$work/full-$day.json" "$work/peer-$day.json.report"
    [[ $day == 22 ]] && device week > "$work/week-22.json"
    previous=$day
    index=$((index + 1))
done
if [[ -f "$work/week-22.json" && " $days " == *" 29 "* ]]; then
    device week > "$work/week-29.json"
    row "10-22→29 week" 29 "$work/week-29.json" "$work/full-29.json" "$work/peer-29.json.report"
fi
"$python" - "$ROWS" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
daily = [r for r in rows if "→" in r["label"] and "week" not in r["label"]]
first = [r for r in rows if r["label"].startswith("first")]
week = [r for r in rows if "week" in r["label"]]
med = lambda key: statistics.median(r[key] for r in daily)
if daily:
    print(f"median over {len(daily)} daily steps: recompile {100*med('cpu_share'):.1f}% of a full compile (CPU; wall {100*med('wall_share'):.1f}%), "
          f"bytes counted whole {100*med('bytes_share'):.2f}% of the set's gzip; full compile / SafariConverterLib {med('full_over_peer_cpu'):.2f}x CPU "
          f"({med('full_over_peer_wall'):.2f}x wall)")
for r in week:
    print(f"week behind (10-22→29): recompile {100*r['cpu_share']:.1f}% (CPU; wall {100*r['wall_share']:.1f}%), bytes counted whole {100*r['bytes_share']:.2f}%")
PY
echo "origin requests served: $(wc -l < "$work/nginx/access.log")"
