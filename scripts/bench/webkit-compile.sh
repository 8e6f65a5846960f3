#!/usr/bin/env bash
# WebKit compile time of the converted 2025-10 snapshot (what a device pays on each list update),
# today's build against a baseline commit's, in the same run. Converts snapshot/ with a release
# `listserver convert` of each, then compiles the two sets in WebKitGTK (scripts/webkit/compile.py)
# alternately for ROUNDS rounds (A B, B A, A B, ...: drift in the machine's load hits both alike),
# and prints each set's per-round sums, its median, seconds per rule, and the ratio today/baseline
# of the medians and of each round.
#
# Usage: BASELINE=<git rev> scripts/bench/webkit-compile.sh      (default BASELINE=main)
#        ROUNDS=6 BASELINE=HEAD~3 scripts/bench/webkit-compile.sh
#        LISTSERVER=path BASELINE_LISTSERVER=path scripts/bench/webkit-compile.sh   (skip the builds)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
baseline="${BASELINE:-main}"
rounds="${ROUNDS:-4}"
python="${LISTSERVER_WEBKIT_PYTHON:-$root/.venv/bin/python}"
[ -x "$python" ] || python=/usr/bin/python3
work="$(mktemp -d /tmp/webkit-compile-bench.XXXXXX)"
cleanup() {
    if [[ -n "${baseline_tree:-}" ]]; then git -C "$root" worktree remove --force "$baseline_tree" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

build() { # source-dir scratch-dir → path of the release binary (the same scratch dirs as convert.sh)
    swift build -c release --static-swift-stdlib --package-path "$1" --scratch-path "$2" --product listserver >&2
    echo "$2/release/listserver"
}
current="${LISTSERVER:-}"
[[ -n "$current" ]] || current="$(build "$root" "$root/.build-layout")"
previous="${BASELINE_LISTSERVER:-}"
if [[ -z "$previous" ]]; then
    baseline_tree="$work/baseline"
    git -C "$root" worktree add --detach "$baseline_tree" "$baseline" >/dev/null
    previous="$(build "$baseline_tree" "$root/.build-layout-baseline")"
fi

inputs=(--input "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt")
"$current" convert "${inputs[@]}" --out "$work/set-current" | head -1
"$previous" convert "${inputs[@]}" --out "$work/set-baseline" >/dev/null
if diff -rq "$work/set-current" "$work/set-baseline" >/dev/null; then
    echo "note: the two sets are byte-identical; the ratio shows this machine's noise"
fi

echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds, alternating"
for round in $(seq 1 "$rounds"); do
    if (( round % 2 )); then order=(current baseline); else order=(baseline current); fi
    for label in "${order[@]}"; do
        # Exit 1 means a list failed; the summary reports it, so keep going.
        "$python" "$root/scripts/webkit/compile.py" --json "$work/set-$label" > "$work/$label-$round.json" || [ $? -eq 1 ]
    done
done

"$python" - "$work" "$rounds" "$baseline" <<'PY'
import json, statistics, sys
work, rounds, baseline = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(label):
    return [json.load(open("%s/%s-%d.json" % (work, label, r))) for r in range(1, rounds + 1)]
sets = {"current": load("current"), "baseline": load("baseline")}
medians = {}
for label, reports in sets.items():
    sums = [report["seconds"] for report in reports]
    rules = sum(entry["rules"] or 0 for entry in reports[0]["lists"])
    failures = max(report["failures"] for report in reports)
    medians[label] = statistics.median(sums)
    cpu = statistics.median(report.get("cpu_seconds", 0.0) for report in reports)
    name = label if label == "current" else "baseline " + baseline
    print("%-18s %2d lists, %6d rules: median %.2f s (rounds: %s), %.2f us per rule, CPU %.2f s, failures %d" % (
        name, len(reports[0]["lists"]), rules, medians[label], " ".join("%.2f" % s for s in sums),
        medians[label] / rules * 1e6, cpu, failures))
per_round = [c["seconds"] / b["seconds"] for c, b in zip(sets["current"], sets["baseline"])]
print("current / baseline: %.2fx of the medians; per round %s" % (
    medians["current"] / medians["baseline"], " ".join("%.2f" % r for r in per_round)))
PY
