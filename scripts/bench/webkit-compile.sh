#!/usr/bin/env bash
# WebKit compile time of the converted 2025-10 snapshot: what a device pays on each list update.
# Converts snapshot/ with a release build of `listserver convert`, compiles every list in WebKitGTK
# (scripts/webkit/compile.py) RUNS times, and prints each list's median seconds, the median of the
# per-run sums, and its ratio to the reference: 12 s, a well-known converter's output on the same
# input, measured on this machine. Target: ratio <= 0.6.
# Usage: scripts/bench/webkit-compile.sh   (env: RUNS=3, REFERENCE_SECONDS=12, SCRATCH=.build-webkit)
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS="${RUNS:-3}"
REFERENCE_SECONDS="${REFERENCE_SECONDS:-12}"
SCRATCH="${SCRATCH:-.build-webkit}"
PYTHON="${LISTSERVER_WEBKIT_PYTHON:-.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=/usr/bin/python3
OUT=bench-out/webkit-compile
mkdir -p "$OUT"

swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product listserver >/dev/null
rm -rf "$OUT/set"
"$SCRATCH/release/listserver" convert --input snapshot/easylist.txt snapshot/easyprivacy.txt --out "$OUT/set" > "$OUT/convert.txt"
head -1 "$OUT/convert.txt"

for run in $(seq 1 "$RUNS"); do
    # Exit 1 means a list failed; the summary below reports it, so keep going.
    "$PYTHON" scripts/webkit/compile.py --json "$OUT/set" > "$OUT/run-$run.json" || [ $? -eq 1 ]
done

"$PYTHON" - "$OUT" "$RUNS" "$REFERENCE_SECONDS" <<'PY'
import json, statistics, sys
out, runs, reference = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
reports = [json.load(open("%s/run-%d.json" % (out, run))) for run in range(1, runs + 1)]
ids = [entry["id"] for entry in reports[0]["lists"]]
print("%-22s %8s %10s %8s   %s" % ("list", "rules", "median s", "cpu s", "wall s per run"))
for index, list_id in enumerate(ids):
    entries = [report["lists"][index] for report in reports]
    times = [entry["seconds"] for entry in entries]
    status = "ok" if all(entry["ok"] for entry in entries) else "FAIL " + (entries[0]["error"] or "")
    cpu = statistics.median(entry.get("cpu_seconds", 0.0) for entry in entries)
    print("%-22s %8s %10.3f %8.3f   %s %s" % (list_id, entries[0]["rules"], statistics.median(times), cpu,
                                             " ".join("%.3f" % t for t in times), status))
sums = [report["seconds"] for report in reports]
total = statistics.median(sums)
rules = sum(entry["rules"] or 0 for entry in reports[0]["lists"])
failures = max(report["failures"] for report in reports)
print("sum: %d lists, %d rules, median %.2f s over %d runs (%s), failures %d" % (
    len(ids), rules, total, runs, " ".join("%.2f" % s for s in sums), failures))
cpu_total = statistics.median(report.get("cpu_seconds", 0.0) for report in reports)
print("CPU seconds of the compiling process (all threads), median of runs: %.2f s" % cpu_total)
with open("/proc/loadavg") as handle:
    print("load average during the run: %s (2 cores; wall time inflates when others build)" % " ".join(handle.read().split()[:3]))
print("ratio to reference %.1f s: %.2fx (target <= 0.60x)" % (reference, total / reference))
PY
