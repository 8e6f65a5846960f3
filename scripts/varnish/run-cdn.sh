#!/usr/bin/env bash
# Runs Varnish in the foreground as a local CDN edge in front of a ListServer origin.
# usage: run-cdn.sh ORIGIN_PORT LISTEN_PORT [WORKDIR]
#   e.g. scripts/varnish/run-cdn.sh 8080 6081 /tmp/listserver-cdn
# Then: varnishncsa -n WORKDIR -b  (what reaches the origin), varnishstat -n WORKDIR -1.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 ORIGIN_PORT LISTEN_PORT [WORKDIR]" >&2; exit 2; }
command -v varnishd >/dev/null || { echo "$0: varnishd not found; apt-get install -y varnish" >&2; exit 1; }
workdir="${3:-/tmp/listserver-cdn-$2}"
mkdir -p "$workdir"
"$(dirname "$0")/render-vcl.sh" 127.0.0.1 "$1" > "$workdir/cdn.vcl"
# default_grace=0: serve stale only as long as the origin's stale-while-revalidate allows.
exec varnishd -F -n "$workdir" -a "127.0.0.1:$2" -f "$workdir/cdn.vcl" -s malloc,64m -p default_grace=0
