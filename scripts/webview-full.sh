#!/usr/bin/env bash
# The decision engine against a real WebView on every loadable dev-sample request (12–15 min on 2 cores).
# Too long for CI's budget beside the rest of the suite, so it runs on its own:
#   scripts/webview-full.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
scripts/setup.sh test
swift build --build-tests
LISTSERVER_FULL_WEBVIEW=1 swift test --skip-build --no-parallel --filter DecisionEngineWebViewTests
