#!/usr/bin/env bash
# What the lists cost a phone on the first compile and on every page load, in real WebKitGTK,
# against SafariConverterLib's one list for the same input (2025-10), same run, alternating.
#   1. First compile: ROUNDS_COMPILE rounds (default 3) of the reference device
#      (scripts/webkit/device.py) installing each set into an empty store, order alternating;
#      CPU and wall seconds, and the ratio ours / SafariConverterLib per round and of the medians.
#   2. Page load (scripts/webkit/page_cost.py under xvfb-run): no lists, SafariConverterLib's list,
#      our set, each in its own WebView behind a loopback nginx forward proxy, ROUNDS rounds
#      (default 5) in rotating order: per allowed subresource request (fetch), whole real pages
#      from dev-sample.jsonl with their requests, and style recalculation on a page with thousands
#      of elements. Prints medians, ratios to SafariConverterLib, and the lists' own cost (above
#      no lists) as a ratio, twice: time inside the page, and CPU seconds of each view's web
#      process (read from /proc; far steadier than wall time on a loaded machine).
# The machine may be shared: read the same-run ratios, not the seconds.
#
# Usage: scripts/bench/page-cost.sh                       (builds release into .build-sync)
#        LISTSERVER=.build/debug/listserver ROUNDS=7 scripts/bench/page-cost.sh
#        SET=/path/to/converted/set scripts/bench/page-cost.sh   (skip the conversion)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
peers="${PEERS:-$root/../shared/data/peers}"
[[ -d "$peers" ]] || peers=/work/shared/data/peers
python="${LISTSERVER_WEBKIT_PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python=/usr/bin/python3
command -v nginx >/dev/null || { echo "$0: nginx not found; apt-get install -y nginx" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "$0: xvfb-run not found; apt-get install -y xvfb" >&2; exit 1; }
work="$(mktemp -d /tmp/page-cost.XXXXXX)"
trap 'rm -rf "$work"' EXIT

set_dir="${SET:-}"
if [[ -z "$set_dir" ]]; then
    if [[ -z "${LISTSERVER:-}" ]]; then
        swift build -c release --static-swift-stdlib --scratch-path "$root/.build-sync" --product listserver >/dev/null
        LISTSERVER="$root/.build-sync/release/listserver"
    fi
    set_dir="$work/ours"
    "$LISTSERVER" convert --input "$root/snapshot/easylist.txt" --input "$root/snapshot/easyprivacy.txt" --out "$set_dir" --no-validate | head -1
fi
zcat "$peers/safariconverterlib-2025-10.json.gz" > "$work/safari.json"
ours_lists=()
while IFS= read -r spec; do ours_lists+=(--list "$spec"); done < <(
    "$python" -c "import json,sys; [print('%s=%s/%s' % (e['id'], sys.argv[1], e['file'])) for e in json.load(open(sys.argv[1] + '/manifest.json'))['lists']]" "$set_dir")

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
rounds_compile="${ROUNDS_COMPILE:-3}"
for round in $(seq 1 "$rounds_compile"); do
    if (( round % 2 )); then order=(ours safari); else order=(safari ours); fi
    for label in "${order[@]}"; do
        rm -rf "$work/store"
        if [[ $label == ours ]]; then
            "$python" "$root/scripts/webkit/device.py" --store "$work/store" "${ours_lists[@]}" --json > "$work/compile-ours-$round.json"
        else
            "$python" "$root/scripts/webkit/device.py" --store "$work/store" --list "safari=$work/safari.json" --json > "$work/compile-safari-$round.json"
        fi
    done
done
rm -rf "$work/store"
"$python" - "$work" "$rounds_compile" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
load = lambda label: [json.load(open("%s/compile-%s-%d.json" % (work, label, r))) for r in range(1, rounds + 1)]
ours, safari = load("ours"), load("safari")
for key, what in (("compile_cpu_seconds", "CPU"), ("compile_seconds", "wall")):
    o, s = [r[key] for r in ours], [r[key] for r in safari]
    print("first compile (%s): ours %d lists %d rules median %.2f s, SafariConverterLib %d rules median %.2f s; ours/SafariConverterLib %.2fx of the medians; per round %s" % (
        what, ours[0]["lists"], ours[0]["compiled_rules"], statistics.median(o), safari[0]["compiled_rules"], statistics.median(s),
        statistics.median(o) / statistics.median(s), " ".join("%.2f" % (a / b) for a, b in zip(o, s))))
PY

xvfb-run -a "$python" "$root/scripts/webkit/page_cost.py" --rounds "${ROUNDS:-5}" \
    --config none=none --config "safari=$work/safari.json" --config "ours=$set_dir" --versus safari --baseline none
