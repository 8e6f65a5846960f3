#!/usr/bin/env bash
# What dcz patches save a device on the real EasyList/EasyPrivacy days 2020-10-19…29.
# Converts the chain with `listserver convert --previous` (as daily-updates.sh does), then for each
# one-day step, and for a device a week behind (10-22 → 10-29), patches every list whose bytes
# changed (`dcz measure`: paired by id, each patch decoded back and checked) and prints the bytes a
# device transfers with patches (patches the size rule keeps, gzip for the rest and for new ids) and
# with whole files, each as a share of the new set's gzip bytes, the encode time of all of a step's
# patches (one thread, and both cores), and `zstd -3 --patch-from` on the same pairs as a sanity check.
# Then the encode time of the publish of 10-29 with patches from each of the 7 versions before it
# (10-22…28), as the publisher writes them.
#
# Usage: scripts/bench/patches.sh                (builds release into .build-patches)
#        LISTSERVER=path DCZ=path scripts/bench/patches.sh
#        LEVELS="3 6 9" scripts/bench/patches.sh (other zstd levels than PatchEncoder's standard, in one run)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lists="$root/Tests/Fixtures/lists"
if [[ -z "${LISTSERVER:-}" || -z "${DCZ:-}" ]]; then
    swift build -c release --scratch-path "$root/.build-patches" --product listserver >/dev/null
    swift build -c release --scratch-path "$root/.build-patches" --product dcz >/dev/null
    LISTSERVER="$root/.build-patches/release/listserver"
    DCZ="$root/.build-patches/release/dcz"
fi
command -v zstd >/dev/null || { echo "$0: zstd not found; apt-get install -y zstd" >&2; exit 1; }
work="$(mktemp -d /tmp/patches.XXXXXX)"
trap 'rm -rf "$work"' EXIT

convert() { # day previous-day-or-empty out
    local previous=()
    [[ -n "$2" ]] && previous=(--previous "$work/$2")
    "$LISTSERVER" convert --input "$lists/easylist-2020-10-$1.txt" "$lists/easyprivacy-2020-10-$1.txt" \
        --out "$work/$3" "${previous[@]}" >/dev/null
}

# Sum of `zstd -3 --patch-from` frames (+40 header bytes each) over the changed lists of two sets.
patch_from() {
    python3 - "$1" "$2" <<'PY'
import json, os, subprocess, sys
old, new = sys.argv[1], sys.argv[2]
before = {e["id"]: e for e in json.load(open(f"{old}/manifest.json"))["lists"]}
total = 0
for e in json.load(open(f"{new}/manifest.json"))["lists"]:
    b = before.get(e["id"])
    if b and b["sha256"] != e["sha256"]:
        out = subprocess.run(["zstd", "-q", "-3", "-c", f"--patch-from={old}/{b['file']}", f"{new}/{e['file']}"],
                             check=True, capture_output=True).stdout
        total += len(out) + 40
print(total)
PY
}

measure() { # old-dir new-dir label level
    "$DCZ" measure "$work/$1" "$work/$2" ${4:+"$4"} > "$work/measure.txt"
    local summary pf
    summary=$(grep '^summary' "$work/measure.txt")
    pf=$(patch_from "$work/$1" "$work/$2")
    python3 - "$summary" "$pf" "$3" <<'PY'
import sys
f = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
g = int(f["set_gzip"])
print(f"{sys.argv[3]:<11} {f['changed']:>7} {f['added']:>5} {g:>9} {f['added_gzip']:>9} {f['whole_files']:>11} {int(f['whole_files'])/g*100:>6.1f}% "
      f"{f['with_patches']:>11} {int(f['with_patches'])/g*100:>6.2f}% {sys.argv[2]:>11} {float(f['encode_serial_s']):>8.2f}s {float(f['encode_parallel_s']):>8.2f}s")
PY
    echo "$summary" >> "$work/summaries-$4.txt"
}

convert 19 "" 19
previous=19
for day in 20 21 22 23 24 25 26 27 28 29; do
    convert "$day" "$previous" "$day"
    previous=$day
done
convert 29 22 week

for level in ${LEVELS:-standard}; do
    [[ "$level" == standard ]] && level=""
    echo "== zstd level ${level:-of PatchEncoder.Parameters.standard}"
    printf "%-11s %7s %5s %9s %9s %11s %7s %11s %7s %11s %9s %9s\n" step changed new "set gz B" "new-id B" "whole B" "whole%" \
        "patches B" "patch%" "patch-from B" "encode 1T" "encode 2T"
    previous=19
    for day in 20 21 22 23 24 25 26 27 28 29; do
        measure "$previous" "$day" "10-$previous→$day" "$level"
        previous=$day
    done
    python3 - "$work/summaries-$level.txt" <<'PY'
import statistics, sys
rows = [dict(kv.split("=") for kv in line.split()[1:]) for line in open(sys.argv[1])]
share = lambda r, k: int(r[k]) / int(r["set_gzip"])
print(f"median over the ten one-day steps: with patches {statistics.median(share(r, 'with_patches') for r in rows)*100:.2f}% "
      f"of the set's gzip bytes (target ≤ 1%), whole files {statistics.median(share(r, 'whole_files') for r in rows)*100:.1f}%")
changed_only = [(int(r["with_patches"]) - int(r["added_gzip"])) / int(r["set_gzip"]) for r in rows]
print(f"the same without list ids new that day (their whole gzip): median {statistics.median(changed_only)*100:.2f}%, "
      f"worst {max(changed_only)*100:.2f}%")
print(f"encode time of one step's patches: median {statistics.median(float(r['encode_serial_s']) for r in rows):.2f} s on one thread, "
      f"{statistics.median(float(r['encode_parallel_s']) for r in rows):.2f} s on both cores")
PY
    : > "$work/summaries-$level.txt"
    measure 22 week "10-22→29" "$level"
    : > "$work/grace.txt"
    for day in 22 23 24 25 26 27 28; do
        "$DCZ" measure "$work/$day" "$work/29" ${level:+"$level"} | grep '^summary' >> "$work/grace.txt"
    done
    python3 - "$work/grace.txt" <<'PY'
import sys
rows = [dict(kv.split("=") for kv in line.split()[1:]) for line in open(sys.argv[1])]
print(f"publish of 10-29 with patches from the 7 versions 10-22…28: {sum(int(r['changed']) for r in rows)} patches, "
      f"encode {sum(float(r['encode_serial_s']) for r in rows):.2f} s on one thread, "
      f"{sum(float(r['encode_parallel_s']) for r in rows):.2f} s on both cores (budget ≤ 2 s); load average {open('/proc/loadavg').read().split()[0]}")
PY
done
