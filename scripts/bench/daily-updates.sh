#!/usr/bin/env bash
# Daily-update cost of the layout on the real EasyList/EasyPrivacy versions of 2020-10-19…29:
# converts 10-19, then each following day with --previous = the day before, and prints for each
# step the share of the new set's gzip bytes in files the previous set did not have (what every
# device downloads) and how many lists changed (what every device recompiles); then the median of
# the ten one-day steps and the week 10-22 → 10-29. Target: median ≤ 25 %, aim 10 %.
#
# Usage: scripts/bench/daily-updates.sh            (builds release into .build-layout)
#        LISTSERVER=path/to/listserver scripts/bench/daily-updates.sh
#        GRACE=3 scripts/bench/daily-updates.sh   (convert --removal-grace 3)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
if [[ -z "${LISTSERVER:-}" ]]; then
    swift build -c release --static-swift-stdlib --scratch-path "$root/.build-layout" --product listserver >/dev/null
    LISTSERVER="$root/.build-layout/release/listserver"
fi
work="$(mktemp -d /tmp/daily-updates.XXXXXX)"
trap 'rm -rf "$work"' EXIT

convert() { # day previous-day-or-empty out
    local previous=()
    [[ -n "$2" ]] && previous=(--previous "$work/$2")
    "$LISTSERVER" convert --input "$lists/easylist-2020-10-$1.txt" "$lists/easyprivacy-2020-10-$1.txt" \
        --out "$work/$3" "${previous[@]}" ${GRACE:+--removal-grace "$GRACE"} >/dev/null
}

convert 19 "" 19
printf "%-10s %9s %8s %6s %12s  %s\n" step "new gz %" changed lists "new gz B" "changed lists"
shares=()
new_bytes=()
previous=19
for day in 20 21 22 23 24 25 26 27 28 29; do
    convert "$day" "$previous" "$day"
    read -r share count total bytes all names < <(python3 "$root/scripts/bench/set_churn.py" "$work/$previous" "$work/$day")
    printf "%-10s %8.1f%% %8s %6s %12s  %s\n" "10-$previous→$day" "$(python3 -c "print($share*100)")" "$count" "$total" "$bytes" "$names"
    shares+=("$share")
    new_bytes+=("$bytes")
    previous=$day
done
median=$(printf "%s\n" "${shares[@]}" | sort -g | python3 -c "import sys; v=[float(x) for x in sys.stdin]; n=len(v); print((v[n//2-1]+v[n//2])/2 if n%2==0 else v[n//2])")
printf "median over the ten one-day steps: %.1f%% of gzip bytes new (target ≤ 25%%, aim 10%%; ratio to target %.2f)\n" \
    "$(python3 -c "print($median*100)")" "$(python3 -c "print($median/0.25)")"
# Shares shrink when the set grows and grow when it shrinks; the bytes are what devices download.
median_bytes=$(printf "%s\n" "${new_bytes[@]}" | sort -n | python3 -c "import sys; v=[int(x) for x in sys.stdin]; n=len(v); print((v[n//2-1]+v[n//2])//2)")
echo "median new gzip bytes per one-day step: $median_bytes"
convert 29 22 week
read -r share count total bytes all names < <(python3 "$root/scripts/bench/set_churn.py" "$work/22" "$work/week")
printf "week 10-22→29 in one step: %.1f%% of gzip bytes new, %s of %s lists changed (%s)\n" \
    "$(python3 -c "print($share*100)")" "$count" "$total" "$names"
fresh_total=$(python3 -c "import json,os; d='$work/29'; m=json.load(open(d+'/manifest.json')); print(sum(os.path.getsize(d+'/'+e['file']+'.gz') for e in m['lists']))")
echo "set size on 10-29: $fresh_total gzip bytes in $(python3 -c "import json; print(len(json.load(open('$work/29/manifest.json'))['lists']))") lists"
