#!/usr/bin/env bash
# Sets up and runs the tests in two tiers:
#   scripts/test.sh            the format check, then both tiers (what CI runs)
#   scripts/test.sh --fast     the fast tier only: pure code, in-process servers and loopback sockets, in parallel
#   scripts/test.sh --e2e      the end-to-end tier only: WebKit, Varnish, GNOME Web, Chromium, listserver processes, kill -9
# Further arguments go to `swift test` (e.g. scripts/test.sh --fast --filter RefreshTests).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
tier=all
case "${1:-}" in
  --fast) tier=fast; shift ;;
  --e2e) tier=e2e; shift ;;
esac
scripts/setup.sh test
if [ "$tier" = all ]; then
  echo "== swift format lint --strict (.swift-format)"
  swift format lint --strict --recursive --parallel Sources Tests
fi
swift build --build-tests
if [ "$tier" != e2e ]; then
  echo "== fast tier (parallel)"
  swift test --skip-build --parallel --skip OriginEndToEndTests "$@"
fi
if [ "$tier" != fast ]; then
  # One test at a time: these start real servers, Varnish, WebViews and `listserver` processes, and on
  # 2 cores running them side by side starves Dispatch's shared thread pool.
  echo "== end-to-end tier (serial)"
  swift test --skip-build --no-parallel --filter OriginEndToEndTests "$@"
fi
