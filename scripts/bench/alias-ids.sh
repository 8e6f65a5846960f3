#!/usr/bin/env bash
# How stable the list ids (and so the /lists/<id>.json aliases) are from day to day: converts the
# daily 2020-10-19…29 EasyList + EasyPrivacy chained with --previous, as a refreshing origin does,
# and prints each day's ids and the ids added and dropped per step.
#   scripts/bench/alias-ids.sh            (LISTSERVER=path/to/listserver to skip the build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
if [[ -z "${LISTSERVER:-}" ]]; then
    swift build -c release --product listserver >/dev/null
    LISTSERVER="$root/.build/release/listserver"
fi
work="$(mktemp -d /tmp/alias-ids.XXXXXX)"
trap 'rm -rf "$work"' EXIT
ids() { python3 -c "import json,sys; print(' '.join(e['id'] for e in json.load(open(sys.argv[1]))['lists']))" "$work/$1/manifest.json"; }
previous=""
for day in 19 20 21 22 23 24 25 26 27 28 29; do
    args=(--input "$lists/easylist-2020-10-$day.txt" "$lists/easyprivacy-2020-10-$day.txt" --out "$work/$day")
    [[ -n "$previous" ]] && args+=(--previous "$work/$previous")
    "$LISTSERVER" convert "${args[@]}" >/dev/null
    now="$(ids "$day")"
    if [[ -z "$previous" ]]; then
        echo "10-$day: $(wc -w <<<"$now") ids: $now"
    else
        before="$(ids "$previous")"
        added="$(comm -13 <(tr ' ' '\n' <<<"$before" | sort) <(tr ' ' '\n' <<<"$now" | sort) | xargs)"
        dropped="$(comm -23 <(tr ' ' '\n' <<<"$before" | sort) <(tr ' ' '\n' <<<"$now" | sort) | xargs)"
        echo "10-$previous→$day: $(wc -w <<<"$now") ids, added: ${added:-none}, dropped: ${dropped:-none}"
    fi
    previous=$day
done
