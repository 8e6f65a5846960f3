#!/usr/bin/env bash
# Cold explain against a baseline, in the same session: `listserver serve` on the bundled 2025-10
# snapshot (SERVE_ONLY=1 scripts/bench/operator-figures.sh, one fresh server per run), the seconds
# from the first /explain request to the first 200 (the engine loads in between) and VmRSS with
# the engine loaded. The two binaries alternate run by run; prints every run, the medians and
# the ratio new / baseline.
# Usage: scripts/bench/explain-cold.sh BASELINE_BIN [NEW_BIN (default .build/release/listserver)] [RUNS (default 5)]
set -euo pipefail
cd "$(dirname "$0")/../.."
[[ $# -ge 1 ]] || { echo "usage: $0 BASELINE_BIN [NEW_BIN] [RUNS]" >&2; exit 2; }
binaries=("$(realpath "$1")" "$(realpath "${2:-.build/release/listserver}")")
labels=(baseline new)
runs="${3:-5}"
declare -a seconds0 seconds1 cpu0 cpu1 rss0 rss1
for run in $(seq 1 "$runs"); do
    for index in 0 1; do
        out=$(SERVE_ONLY=1 scripts/bench/operator-figures.sh "${binaries[$index]}")
        s=$(sed -n 's/^cold explain: \([0-9.]*\) s.*/\1/p' <<<"$out")
        c=$(sed -n 's/^cold explain: .*(\([0-9.]*\) s of the server.s CPU).*/\1/p' <<<"$out")
        r=$(sed -n 's/^explain engine loaded: VmRSS \([0-9]*\) kB.*/\1/p' <<<"$out")
        echo "run $run ${labels[$index]}: cold explain $s s ($c s CPU), VmRSS with the engine $r kB"
        eval "seconds$index+=(\"$s\"); cpu$index+=(\"$c\"); rss$index+=(\"$r\")"
    done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m0=$(median "${seconds0[@]}"); m1=$(median "${seconds1[@]}")
echo "median cold explain: baseline $m0 s, new $m1 s, ratio new/baseline $(echo "scale=3; $m1 / $m0" | bc)"
c0=$(median "${cpu0[@]}"); c1=$(median "${cpu1[@]}")
echo "median CPU of the cold explain: baseline $c0 s, new $c1 s, ratio new/baseline $(echo "scale=3; $c1 / $c0" | bc)"
echo "median VmRSS with the engine: baseline $(median "${rss0[@]}") kB, new $(median "${rss1[@]}") kB"
