#!/usr/bin/env bash
# Fuzzes conversion with libFuzzer: scripts/fuzz/run-converter-fuzz.sh [RUNS] (default 1,000,000).
# Compiles the Converter and ConverterFuzz targets' sources (every .swift file under their directories)
# into one module with swiftc -sanitize=fuzzer,address (`swift build` cannot link a libFuzzer executable:
# see the README), seeds a corpus from the committed seeds (Tests/Fixtures/fuzz/converter) and
# real EasyList/EasyPrivacy lines, and runs single-threaded. Exit status is libFuzzer's: non-zero with a
# crash-* reproducer in $WORK when an input made ConverterFuzz trap.
set -euo pipefail
runs="${1:-1000000}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="${WORK:-${TMPDIR:-/tmp}/converter-fuzz}"
swiftc="$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)"
clang="$(dirname "$swiftc")/clang"
mkdir -p "$work/corpus" "$work/build/CIDNShim"
cat > "$work/build/CIDNShim/module.modulemap" <<MAP
module CIDNShim {
    header "$root/Sources/CNIOShim/IDN/include/CIDNShim.h"
    link "idn2"
    export *
}
MAP
"$clang" -O1 -fsanitize=address -c "$root/Sources/CNIOShim/IDN/idn.c" -I "$root/Sources/CNIOShim/IDN/include" -o "$work/build/shim.o"
# Snapshot the sources first: swiftc refuses inputs that change while it runs.
rm -rf "$work/src" && mkdir -p "$work/src"
for target in Converter ConverterFuzz; do
    (cd "$root/Sources/$target" && find . -name '*.swift' -print0 | while IFS= read -r -d '' file; do
        cp "$file" "$work/src/$target-$(echo "${file#./}" | tr / -)"
    done)
done
"$swiftc" -O -sanitize=fuzzer,address -parse-as-library -swift-version 5 -module-name ConverterFuzzer -I "$work/build" \
    "$work"/src/*.swift "$root/scripts/fuzz/converter-main.swift" "$work/build/shim.o" -o "$work/converter-fuzz"

if [ -z "$(ls -A "$work/corpus")" ]; then
    cp "$root"/Tests/Fixtures/fuzz/converter/* "$work/corpus/"
    for list in "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt"; do
        name="$(basename "$list" .txt)"
        total="$(wc -l < "$list")"
        for i in $(seq 0 399); do
            start=$(( (i * 7919) % total + 1 ))
            sed -n "${start},$((start + 7))p" "$list" > "$work/corpus/$name-slice-$i"
        done
    done
fi
cd "$work"
"$work/converter-fuzz" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 "$work/corpus"
