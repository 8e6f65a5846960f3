#!/usr/bin/env bash
# What a signed manifest costs: signing and verifying time per manifest and the signature's bytes.
#   scripts/bench/sign.sh [MANIFEST] [ROUNDS]   (default: a synthetic 3 KB manifest, 1000 rounds)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build -c release --product SigningBench >/dev/null
exec .build/release/SigningBench "${1:--}" "${2:-1000}"
