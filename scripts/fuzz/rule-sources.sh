#!/usr/bin/env bash
# Shared by the fuzz and timing scripts: builds the C shim object and a module map into $1,
# copies the Swift sources of rule conversion (no layout) into $1/src and prints their paths for swiftc.
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
# Snapshot the sources first: other engineers edit the tree while swiftc runs, and swiftc refuses
# inputs that change during a build.
rm -rf "$out/src" && mkdir -p "$out/src"
cp "$root"/Sources/Converter/{Parse,Rules,Validate}/*.swift \
   "$root"/Sources/Converter/{ConvertedRules,Converter,ConversionReport,ConversionError}.swift "$out/src/"
ls "$out"/src/*.swift
