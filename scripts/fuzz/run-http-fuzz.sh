#!/usr/bin/env bash
# libFuzzer run over the HTTP request parser and header interpreters.
#   scripts/fuzz/run-http-fuzz.sh [RUNS]     (default 1000000)
# Builds scripts/fuzz/HTTPParserFuzz.swift with swiftc against the dependency-free parser sources
# (see /work/shared/docs/toolchain-notes.md), then runs it with a per-input timeout (hangs fail)
# and an RSS limit (unbounded buffering fails). Exit status is libFuzzer's: 0 = no crash.
set -euo pipefail
RUNS="${1:-1000000}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SWIFTC="${SWIFTC:-/opt/swift/usr/bin/swiftc}"
OUT="${FUZZ_OUT:-$ROOT/.build-http-fuzz}"
HTTP="$ROOT/Sources/ListServer/HTTP"
mkdir -p "$OUT/corpus" "$OUT/artifacts"
cp -n "$ROOT/scripts/fuzz/http-corpus/"* "$OUT/corpus/" 2>/dev/null || true
"$SWIFTC" -O -sanitize=fuzzer,address -parse-as-library -swift-version 5 \
  "$ROOT/scripts/fuzz/HTTPParserFuzz.swift" \
  "$HTTP/HTTPRequestHead.swift" "$HTTP/HTTPRequestParser.swift" "$HTTP/HTTPDate.swift" \
  "$HTTP/ContentNegotiation.swift" "$HTTP/ConditionalRequest.swift" "$HTTP/RangeRequest.swift" "$HTTP/RequestTarget.swift" \
  -o "$OUT/http-parser-fuzz"
exec "$OUT/http-parser-fuzz" "$OUT/corpus" -runs="$RUNS" -max_len=20000 -timeout=5 -rss_limit_mb=512 \
  -artifact_prefix="$OUT/artifacts/" -print_final_stats=1
