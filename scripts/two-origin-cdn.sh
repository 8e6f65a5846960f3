#!/usr/bin/env bash
# Primary, follower and Varnish (two-backend director), at least 1,000 `listserver sync` runs while the
# primary publishes the next day, is killed and restarted. The test command runs the same test with 150.
# usage: scripts/two-origin-cdn.sh [SYNCS]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
swift build --build-tests
LISTSERVER_CDN_SYNCS="${1:-1000}" swift test --skip-build --no-parallel --filter TwoOriginCDNTests
