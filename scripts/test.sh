#!/usr/bin/env bash
# Sets up and runs every test: unit, real-socket, real-libcurl, real-WebKit, Varnish end to end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/setup.sh test
swift build --build-tests
# One test at a time: many tests start real servers, child processes (WebKit, Varnish, listserver)
# and blocking sockets; on 2 cores, running them in parallel starved Dispatch's shared thread pool.
swift test --skip-build --no-parallel "$@"
