#!/usr/bin/env bash
# Prints scripts/varnish/cdn.vcl with the origins filled in: the primary, and optionally a follower
# (docs/followers.md); with one origin both of the VCL's backends name it.
# usage: render-vcl.sh ORIGIN_HOST ORIGIN_PORT [SECOND_HOST SECOND_PORT] > cdn.rendered.vcl
set -euo pipefail
[ $# -eq 2 ] || [ $# -eq 4 ] || { echo "usage: $0 ORIGIN_HOST ORIGIN_PORT [SECOND_HOST SECOND_PORT]" >&2; exit 2; }
second_host="${3:-$1}"
second_port="${4:-$2}"
two_origins=$([ $# -eq 4 ] && echo yes || echo no)
for port in "$2" "$second_port"; do
    [[ "$port" =~ ^[0-9]+$ ]] || { echo "$0: ports must be numbers, got '$port'" >&2; exit 2; }
done
sed -e "s/__ORIGIN_HOST__/$1/" -e "s/__ORIGIN_PORT__/$2/" -e "s/__SECOND_HOST__/$second_host/" -e "s/__SECOND_PORT__/$second_port/" -e "s/__TWO_ORIGINS__/$two_origins/" \
    "$(dirname "$0")/cdn.vcl"
