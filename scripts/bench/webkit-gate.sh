#!/usr/bin/env bash
# The publish gate's cost on the converted 2025-10 snapshot: WebKit compiles through `listserver
# verify` (WebKitGTK loaded with dlopen into helper processes of listserver itself) against
# scripts/webkit/compile.py (PyGObject, the former path), in the same run, alternating the order
# each round (A B, B A, ...) so drift in the machine's load hits both alike. Two pairs:
#   serial: one helper (`verify --helpers 1`) vs one compile.py process over all lists;
#   gate:   one helper per core (what the gate runs) vs one compile.py per core over the same
#           size-balanced shares (what the gate ran before).
# Prints each round's wall seconds, the medians and the ratios new/old.
#
# Usage: scripts/bench/webkit-gate.sh              (ROUNDS=3; LISTSERVER=path to skip the build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
rounds="${ROUNDS:-3}"
python="$root/.venv/bin/python"
[ -x "$python" ] || python=/usr/bin/python3
if [[ -z "${LISTSERVER:-}" ]]; then
    swift build -c release --package-path "$root" --product listserver >&2
    LISTSERVER="$root/.build/release/listserver"
fi
cores="$(nproc)"
work="$(mktemp -d /tmp/webkit-gate-bench.XXXXXX)"
trap 'rm -rf "$work"' EXIT

"$LISTSERVER" convert --input "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt" --out "$work/set" | head -1
# The gate's split: lists by size, largest first, each to the lightest share (WebKitCompilerPool.balance).
"$python" - "$work/set" "$cores" <<'PY'
import json, os, sys
directory, count = sys.argv[1], int(sys.argv[2])
manifest = json.load(open(os.path.join(directory, "manifest.json")))
shares, load = [[] for _ in range(count)], [0] * count
for entry in sorted(manifest["lists"], key=lambda e: -os.path.getsize(os.path.join(directory, e["file"]))):
    lightest = load.index(min(load))
    shares[lightest].append(entry)
    load[lightest] += os.path.getsize(os.path.join(directory, entry["file"]))
for index, share in enumerate(shares):
    with open(os.path.join(directory, "share-%d.json" % index), "w") as out:
        json.dump({"lists": [{"id": e["id"], "path": os.path.join(directory, e["file"])} for e in share]}, out)
PY

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc; }
new_serial() { "$LISTSERVER" verify --helpers 1 "$work/set"; }
old_serial() { "$python" "$root/scripts/webkit/compile.py" --json "$work/set"; }
new_gate() { "$LISTSERVER" verify --helpers "$cores" "$work/set"; }
old_gate() {
    local pids=() index
    for ((index = 0; index < cores; index++)); do
        "$python" "$root/scripts/webkit/compile.py" --json - <"$work/set/share-$index.json" >/dev/null & pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
}

declare -A times
for ((round = 1; round <= rounds; round++)); do
    for pair in serial gate; do
        if ((round % 2)); then order=(new old); else order=(old new); fi
        for side in "${order[@]}"; do
            times[$pair-$side]+="$(seconds "${side}_$pair") "
        done
    done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "lists: $("$python" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["lists"]))' "$work/set/manifest.json"), cores: $cores, rounds: $rounds"
for pair in serial gate; do
    new="$(median "${times[$pair-new]}")" old="$(median "${times[$pair-old]}")"
    printf '%-6s new (listserver verify): %s s  old (compile.py): %s s  median new/old: %.2f\n' \
        "$pair" "${times[$pair-new]}" "${times[$pair-old]}" "$(echo "$new / $old" | bc -l)"
done
