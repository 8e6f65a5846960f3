#!/usr/bin/env bash
# SIGTERM stress of `listserver serve`: RUNS (default 200) SIGTERMs at spread delays into a refresh,
# a publish, an explain engine load and under HTTP load; every run must exit 0 and leave a whole
# published set. About 1 s per run on 2 cores. The test command runs 24 of them (ShutdownStressTests).
#   scripts/sigterm-stress.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests
LISTSERVER_SIGTERM_RUNS="${1:-200}" swift test --skip-build --no-parallel --filter ShutdownStressTests
