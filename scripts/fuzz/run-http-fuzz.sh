#!/usr/bin/env bash
# libFuzzer run over the HTTP library's fuzz target (Sources/HTTPFuzz: the request parser and the
# header interpreters).
#   scripts/fuzz/run-http-fuzz.sh [RUNS]     (default 1000000)
# `swift build -Xswiftc -sanitize=fuzzer` cannot link (see /work/shared/docs/toolchain-notes.md), so
# this compiles the targets' directories with swiftc: Sources/HTTPServerCore as a static library
# module, then Sources/HTTPFuzz plus scripts/fuzz/HTTPFuzzMain.swift into the fuzzer, with the C
# shim built by clang. It runs with a per-input timeout (hangs fail) and an RSS limit (unbounded
# buffering fails). Exit status is libFuzzer's: 0 = no crash.
set -euo pipefail
RUNS="${1:-1000000}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TOOLCHAIN="${TOOLCHAIN:-/opt/swift/usr/bin}"
OUT="${FUZZ_OUT:-$ROOT/.build-http-fuzz}"
SHIM="$ROOT/Sources/CNIOShim/System"
mkdir -p "$OUT/corpus" "$OUT/artifacts" "$OUT/modules" "$OUT/shim"
cp -n "$ROOT/scripts/fuzz/http-corpus/"* "$OUT/corpus/" 2>/dev/null || true
printf 'module CNIOShim {\n  header "%s/include/CNIOShim.h"\n  export *\n}\n' "$SHIM" > "$OUT/shim/module.modulemap"
"$TOOLCHAIN/clang" -c -O1 -fsanitize=address -I "$SHIM/include" "$SHIM/system.c" -o "$OUT/shim.o"
FLAGS=(-O -sanitize=fuzzer,address -parse-as-library -swift-version 5 -I "$OUT/shim" -I "$OUT/modules")
mapfile -t CORE < <(find "$ROOT/Sources/HTTPServerCore" -name '*.swift' | sort)
mapfile -t FUZZ < <(find "$ROOT/Sources/HTTPFuzz" -name '*.swift' | sort)
"$TOOLCHAIN/swiftc" "${FLAGS[@]}" -module-name HTTPServerCore -emit-library -static \
  -emit-module -emit-module-path "$OUT/modules/HTTPServerCore.swiftmodule" "${CORE[@]}" -o "$OUT/libHTTPServerCore.a"
"$TOOLCHAIN/swiftc" "${FLAGS[@]}" -module-name HTTPFuzz "${FUZZ[@]}" "$ROOT/scripts/fuzz/HTTPFuzzMain.swift" \
  "$OUT/libHTTPServerCore.a" "$OUT/shim.o" -o "$OUT/http-fuzz"
exec "$OUT/http-fuzz" "$OUT/corpus" -runs="$RUNS" -max_len=20000 -timeout=5 -rss_limit_mb=512 \
  -artifact_prefix="$OUT/artifacts/" -print_final_stats=1
