#!/usr/bin/env bash
# Fuzzes rule conversion with libFuzzer: scripts/fuzz/run-converter-fuzz.sh [RUNS] (default 1,000,000).
# Builds the target with swiftc (-sanitize=fuzzer,address) against the rule-conversion sources, seeds
# a corpus from real EasyList/EasyPrivacy lines and hand-picked edge cases, and runs it single-threaded.
# Exit status is libFuzzer's: non-zero with a crash-* reproducer in $WORK when something failed.
set -euo pipefail
runs="${1:-1000000}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${WORK:-${TMPDIR:-/tmp}/converter-fuzz}"
mkdir -p "$work/corpus"
mapfile -t sources < <("$(dirname "$0")/rule-sources.sh" "$work/build" -fsanitize=address)
/opt/swift/usr/bin/swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name ConverterFuzz -I "$work/build" \
    "${sources[@]}" "$root/scripts/fuzz/ConverterFuzzTarget.swift" "$work/build/shim.o" -o "$work/converter-fuzz"

# Seeds: 400 files of 8 consecutive filter lines from each list, plus edge cases.
if [ -z "$(ls -A "$work/corpus")" ]; then
    for list in "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt"; do
        name="$(basename "$list" .txt)"
        total="$(wc -l < "$list")"
        for i in $(seq 0 399); do
            start=$(( (i * 7919) % total + 1 ))
            sed -n "${start},$((start + 7))p" "$list" > "$work/corpus/$name-$i"
        done
    done
    printf '||ads.example^$third-party,domain=a.example|~b.a.example\n/ads^|\n@@||x.example^$document\n' > "$work/corpus/edge-1"
    printf '/^https?:\\/\\/[a-z\\d]+\\.example\\/(?:ad)+\\W/$match-case\n##div:has(> .ad)\na.example#@#.ad\n##.ad\n' > "$work/corpus/edge-2"
    printf '\xef\xbb\xbf||b\xc3\xbccher.example^\r\n/werbung/\xc3\xa4.js\r\nsub.a.example,~x.sub.a.example##.ad\n' > "$work/corpus/edge-3"
fi
cd "$work"
"$work/converter-fuzz" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "$work/corpus"
