#!/usr/bin/env bash
# Checks that two listserver builds publish byte-identical sets (`diff -r`): the bundled 2025-10
# snapshot, and the 2020-10-19…29 daily chain where each day is converted with `--previous` the
# day before (once as is, once with `--removal-grace 3`, which also uses the previous lists' bytes).
#
# Usage: scripts/check-byte-identity.sh BASELINE_BIN NEW_BIN
#   e.g. git worktree add --detach /tmp/base d2ecfcb && swift build -c release --package-path /tmp/base --product listserver
#        scripts/check-byte-identity.sh /tmp/base/.build/release/listserver .build/release/listserver
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BASELINE_BIN NEW_BIN" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
lists="$root/Tests/Fixtures/lists"
work="$(mktemp -d /tmp/byte-identity.XXXXXX)"
trap 'rm -rf "$work"' EXIT
binaries=("$1" "$2")
labels=(baseline new)

for index in 0 1; do
    bin="${binaries[$index]}"
    out="$work/${labels[$index]}"
    "$bin" convert --input "$root/snapshot/easylist.txt" --input "$root/snapshot/easyprivacy.txt" --out "$out/snapshot" >/dev/null
    for grace in 0 3; do
        previous=""
        for day in 19 20 21 22 23 24 25 26 27 28 29; do
            dir="$out/chain-grace$grace/2020-10-$day"
            "$bin" convert --input "$lists/easylist-2020-10-$day.txt" --input "$lists/easyprivacy-2020-10-$day.txt" \
                --out "$dir" --removal-grace "$grace" ${previous:+--previous "$previous"} >/dev/null
            previous="$dir"
        done
    done
done

sets=$(find "$work/baseline" -name manifest.json | wc -l)
files=$(find "$work/baseline" -type f | wc -l)
if diff -r "$work/baseline" "$work/new"; then
    echo "byte-identical: $sets sets, $files files (snapshot 2025-10; 2020-10-19…29 chain with --previous, removal grace 0 and 3)"
else
    echo "DIFFERENT output (see diff above)" >&2
    exit 1
fi
