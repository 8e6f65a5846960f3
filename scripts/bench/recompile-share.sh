#!/usr/bin/env bash
# Which lists a device recompiles each day, and what that costs, for one or two builds in the same
# run: quicker than device-day.sh (no server, no sync), for comparing layouts.
# Converts 2020-10-19…29 chained into one directory per build (`listserver convert` over the set
# already there, as the publish path does), then compiles each list of the 10-29 set in WebKitGTK
# (scripts/webkit/device.py, an empty store per round, the builds alternating, ROUNDS rounds) and
# weighs each day's changed lists (a hash the previous day's manifest did not have) by the median
# CPU seconds of the list with that id. Prints per day and as medians: the share of the set's rules
# recompiled, and the CPU-estimated share of a full compile with its seconds; then a device a week
# behind (10-22→29). The estimate uses 10-29's per-list cost for every day.
#
# Usage: LISTSERVER=.build/debug/listserver scripts/bench/recompile-share.sh
#        LISTSERVER=new/listserver BASELINE_LISTSERVER=old/listserver ROUNDS=3 scripts/bench/recompile-share.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
python="${LISTSERVER_WEBKIT_PYTHON:-/usr/bin/python3}"
rounds="${ROUNDS:-3}"
: "${LISTSERVER:?set LISTSERVER to a listserver binary}"
work="$(mktemp -d /tmp/recompile-share.XXXXXX)"
trap 'rm -rf "$work"' EXIT
labels=(current)
binaries=("$LISTSERVER")
if [[ -n "${BASELINE_LISTSERVER:-}" ]]; then labels+=(baseline); binaries+=("$BASELINE_LISTSERVER"); fi

for i in "${!labels[@]}"; do
    out="$work/${labels[$i]}"
    mkdir -p "$out/public"
    for day in 19 20 21 22 23 24 25 26 27 28 29; do
        "${binaries[$i]}" convert --input "$lists/easylist-2020-10-$day.txt" --input "$lists/easyprivacy-2020-10-$day.txt" \
            --out "$out/public" --no-validate >/dev/null
        cp "$out/public/manifest.json" "$out/manifest-$day.json"
    done
done

compile() { # label round → device.py's JSON report for that build's 10-29 set, compiled whole
    local specs=()
    while read -r id file; do specs+=(--list "$id=$work/$1/public/$file"); done < <(
        "$python" -c 'import json,sys; [print(e["id"], e["file"]) for e in json.load(open(sys.argv[1]))["lists"]]' "$work/$1/manifest-29.json")
    "$python" "$root/scripts/webkit/device.py" --store "$work/store-$1-$2" --json "${specs[@]}"
    rm -rf "$work/store-$1-$2"
}
for round in $(seq "$rounds"); do
    order=("${labels[@]}")
    (( round % 2 == 0 )) && order=($(printf '%s\n' "${labels[@]}" | tac))
    for label in "${order[@]}"; do compile "$label" "$round" > "$work/$label/compile-$round.json"; done
done

"$python" - "$work" "${labels[@]}" <<'PY'
import glob, json, statistics, sys
work, labels = sys.argv[1], sys.argv[2:]
days = [19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]
for label in labels:
    manifests = {d: json.load(open(f"{work}/{label}/manifest-{d}.json")) for d in days}
    runs = [json.load(open(path)) for path in glob.glob(f"{work}/{label}/compile-*.json")]
    per_run = [{c["id"]: c["cpu_seconds"] for c in r["compiled"]} for r in runs]
    cpu = {i: statistics.median(run[i] for run in per_run) for i in per_run[0]}
    full = sum(cpu.values())
    fallback = statistics.median(cpu.values())  # a list id 10-29 no longer has
    def step(old, new):
        held = {e["sha256"] for e in manifests[old]["lists"]}
        changed = [e for e in manifests[new]["lists"] if e["sha256"] not in held]
        rules = sum(e["rules"] for e in changed) / sum(e["rules"] for e in manifests[new]["lists"])
        seconds = sum(cpu.get(e["id"], fallback) for e in changed)
        return changed, rules, seconds
    print(f"{label}: full compile of the 10-29 set {full:.2f} s CPU (median of {len(runs)} rounds), "
          + ", ".join(f"{k} {v:.2f}" for k, v in sorted(cpu.items(), key=lambda kv: -kv[1])))
    shares, seconds = [], []
    for old, new in zip(days, days[1:]):
        changed, rules, cost = step(old, new)
        shares.append((rules, cost / full))
        seconds.append(cost)
        print(f"  10-{old}→{new}  rules {100*rules:5.1f}%  cpu~ {100*cost/full:5.1f}% ({cost:.2f} s)  {len(changed)} lists: "
              + " ".join(e["id"] for e in changed))
    changed, rules, cost = step(22, 29)
    print(f"  median: rules {100*statistics.median(s[0] for s in shares):.1f}%, cpu~ {100*statistics.median(s[1] for s in shares):.1f}% "
          f"({statistics.median(seconds):.2f} s); week behind 10-22→29: rules {100*rules:.1f}%, cpu~ {100*cost/full:.1f}% ({cost:.2f} s)")
PY
