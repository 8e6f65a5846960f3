#!/usr/bin/env bash
# Release timing of rule conversion alone: scripts/fuzz/run-convert-timing.sh [lists...]
# (default: the bundled 2025-10 EasyList + EasyPrivacy). RUNS=n sets the repetitions.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${TMPDIR:-/tmp}/convert-timing-build"
mapfile -t sources < <("$(dirname "$0")/rule-sources.sh" "$out")
/opt/swift/usr/bin/swiftc -O -wmo -parse-as-library -module-name ConvertTiming -I "$out" \
    "${sources[@]}" "$root/scripts/fuzz/ConvertTiming.swift" "$out/shim.o" -o "$out/convert-timing"
if [ $# -eq 0 ]; then set -- "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt"; fi
"$out/convert-timing" "$@"
