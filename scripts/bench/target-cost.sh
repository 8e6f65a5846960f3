#!/usr/bin/env bash
# What one target's set costs a device against another's, in real WebKitGTK, in one run:
#   1. first compile: ROUNDS_COMPILE rounds (default 3) of the reference device (scripts/webkit/device.py)
#      installing each set into an empty store, order alternating; median CPU and wall seconds, B/A;
#   2. page cost: scripts/webkit/page_cost.py under xvfb-run with no lists, A and B, ROUNDS rounds
#      (default 3) rotating: per allowed request, real dev-sample pages, style; ratios to A.
# The machine may be shared: read the same-run ratios (the web process's CPU is the steadier one).
# Usage: scripts/bench/target-cost.sh SET_A SET_B      (set directories, e.g. safari-17 and safari-26 output)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python="${LISTSERVER_WEBKIT_PYTHON:-$root/.venv/bin/python}"
[[ $# -eq 2 ]] || { sed -n 2,9p "$0" >&2; exit 2; }
a="$1"; b="$2"
work="$(mktemp -d /tmp/target-cost.XXXXXX)"
trap 'rm -rf "$work"' EXIT

lists() { "$python" -c "import json,sys; [print('--list\n%s=%s/%s' % (e['id'], sys.argv[1], e['file'])) for e in json.load(open(sys.argv[1] + '/manifest.json'))['lists']]" "$1"; }
mapfile -t lists_a < <(lists "$a")
mapfile -t lists_b < <(lists "$b")
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
rounds="${ROUNDS_COMPILE:-3}"
for round in $(seq 1 "$rounds"); do
    if (( round % 2 )); then order=(a b); else order=(b a); fi
    for label in "${order[@]}"; do
        rm -rf "$work/store"
        if [[ $label == a ]]; then set_lists=("${lists_a[@]}"); else set_lists=("${lists_b[@]}"); fi
        "$python" "$root/scripts/webkit/device.py" --store "$work/store" "${set_lists[@]}" --json > "$work/compile-$label-$round.json"
    done
done
"$python" - "$work" "$rounds" <<'PY'
import json, statistics, sys
work, rounds = sys.argv[1], int(sys.argv[2])
load = lambda label: [json.load(open("%s/compile-%s-%d.json" % (work, label, r))) for r in range(1, rounds + 1)]
a, b = load("a"), load("b")
for key, what in (("compile_cpu_seconds", "CPU"), ("compile_seconds", "wall")):
    x, y = [r[key] for r in a], [r[key] for r in b]
    print("first compile (%s): A %d rules median %.2f s, B %d rules median %.2f s; B/A %.3fx of the medians; per round %s" % (
        what, a[0]["compiled_rules"], statistics.median(x), b[0]["compiled_rules"], statistics.median(y),
        statistics.median(y) / statistics.median(x), " ".join("%.3f" % (q / p) for p, q in zip(x, y))))
PY
xvfb-run -a "$python" "$root/scripts/webkit/page_cost.py" --rounds "${ROUNDS:-3}" \
    --config none=none --config "A=$a" --config "B=$b" --versus A --baseline none
