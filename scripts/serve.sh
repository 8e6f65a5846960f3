#!/usr/bin/env bash
# Sets up, builds in release and starts the server with ./config.json (the bundled snapshot
# is served at once, upstream is tried in the background). Extra flags go to `listserver serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/setup.sh server
swift build -c release --product listserver
exec .build/release/listserver serve --config config.json "$@"
