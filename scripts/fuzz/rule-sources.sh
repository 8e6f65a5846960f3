#!/usr/bin/env bash
# Shared by the fuzz and timing scripts: builds the C shim object and a module map into $1,
# and prints the Swift sources of rule conversion (no layout) for swiftc.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$1"; shift
clang_flags=("$@")
mkdir -p "$out/CNIOShim"
cat > "$out/CNIOShim/module.modulemap" <<MAP
module CNIOShim {
    header "$root/Sources/CNIOShim/include/CNIOShim.h"
    link "curl"
    link "z"
    link "crypto"
    link "idn2"
    export *
}
MAP
/opt/swift/usr/bin/clang -O1 -c "$root/Sources/CNIOShim/shim.c" -I "$root/Sources/CNIOShim/include" "${clang_flags[@]}" -o "$out/shim.o" >&2
ls "$root"/Sources/Converter/{Parse,Rules,Validate}/*.swift \
   "$root"/Sources/Converter/{ConvertedRules,Converter,ConversionReport,ConversionError}.swift
