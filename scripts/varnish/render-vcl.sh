#!/usr/bin/env bash
# Prints scripts/varnish/cdn.vcl with the origin filled in.
# usage: render-vcl.sh ORIGIN_HOST ORIGIN_PORT > cdn.rendered.vcl
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 ORIGIN_HOST ORIGIN_PORT" >&2; exit 2; }
[[ "$2" =~ ^[0-9]+$ ]] || { echo "$0: ORIGIN_PORT must be a number, got '$2'" >&2; exit 2; }
sed -e "s/__ORIGIN_HOST__/$1/" -e "s/__ORIGIN_PORT__/$2/" "$(dirname "$0")/cdn.vcl"
