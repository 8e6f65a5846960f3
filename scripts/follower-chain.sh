#!/usr/bin/env bash
# A follower against a real primary over the whole 2020-10-19…29 chain (11 publishes): after each, the
# served files are byte-identical and every response head equals the primary's apart from Date.
# The test command runs 3 days of it. usage: scripts/follower-chain.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
swift build --build-tests
LISTSERVER_FOLLOW_DAYS=11 swift test --skip-build --no-parallel --filter 'FollowerTests/'
