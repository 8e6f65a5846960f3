#!/usr/bin/env bash
# Conversion speed and memory on the bundled 2025-10 EasyList + EasyPrivacy (snapshot/):
#   1. --dry-run (parse, convert, lay out, serialize, validate; nothing written): wall time with
#      hyperfine and peak RSS with /usr/bin/time -v. Targets: ≤ 0.3 s, ≤ 100 MB.
#   2. full convert into an empty directory (lists, gzip, manifest, report, layout): target ≤ 0.44 s.
# Prints each figure with its ratio to the target, and, with BASELINE=<git rev>, builds that
# revision in a temporary worktree and measures it in the same run for a side-by-side ratio, then
# times the two dry runs alternated, run by run (the ratio to judge a change by).
#
# Usage: scripts/bench/convert.sh
#        BASELINE=HEAD~3 scripts/bench/convert.sh
#        RUNS=20 EXTRA="--no-validate" scripts/bench/convert.sh
#        LISTSERVER=path/to/listserver scripts/bench/convert.sh   (skip the build)
#        BASELINE_BIN=path/to/other/listserver scripts/bench/convert.sh   (a prebuilt baseline)
#        EXTRA="--target safari-26" BASELINE_EXTRA="" BASELINE_BIN=… scripts/bench/convert.sh
#            (BASELINE_EXTRA, when set, replaces EXTRA for the baseline binary: a target against
#            the default of a build that has no targets; unset, both binaries get EXTRA)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
runs="${RUNS:-10}"
extra=(${EXTRA:-})
baseline_extra=(${BASELINE_EXTRA-${EXTRA:-}})
for tool in hyperfine /usr/bin/time; do
    command -v "$tool" >/dev/null || { echo "convert.sh needs $tool (apt-get install hyperfine time)" >&2; exit 1; }
done
work="$(mktemp -d /tmp/convert-bench.XXXXXX)"
cleanup() {
    if [[ -n "${baseline_tree:-}" ]]; then git -C "$root" worktree remove --force "$baseline_tree" >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

build() { # source-dir scratch-dir → path of the release binary
    swift build -c release --static-swift-stdlib --package-path "$1" --scratch-path "$2" --product listserver >&2
    echo "$2/release/listserver"
}

current="${LISTSERVER:-}"
[[ -n "$current" ]] || current="$(build "$root" "$root/.build-layout")"
binaries=("$current")
labels=("current")
extras=("${extra[*]}")
if [[ -n "${BASELINE_BIN:-}" ]]; then
    BASELINE="$BASELINE_BIN"
    binaries+=("$BASELINE_BIN")
    labels+=("baseline $BASELINE_BIN")
    extras+=("${baseline_extra[*]}")
elif [[ -n "${BASELINE:-}" ]]; then
    baseline_tree="$work/baseline"
    git -C "$root" worktree add --detach "$baseline_tree" "$BASELINE" >/dev/null
    binaries+=("$(build "$baseline_tree" "$root/.build-layout-baseline")")
    labels+=("baseline $BASELINE")
    extras+=("${baseline_extra[*]}")
fi

inputs=(--input "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt")
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$current" convert "${inputs[@]}" --dry-run "${extra[@]}" | head -1

ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }
declare -A dry full rss
for index in "${!binaries[@]}"; do
    binary="${binaries[$index]}"
    label="${labels[$index]}"
    read -r -a binary_extra <<<"${extras[$index]}"
    hyperfine --warmup 2 --runs "$runs" --export-json "$work/dry-$index.json" \
        "$binary convert ${inputs[*]} --dry-run ${binary_extra[*]}" >/dev/null
    hyperfine --warmup 1 --runs "$runs" --prepare "rm -rf $work/out" --export-json "$work/full-$index.json" \
        "$binary convert ${inputs[*]} --out $work/out ${binary_extra[*]}" >/dev/null
    dry[$index]=$(python3 -c "import json; r=json.load(open('$work/dry-$index.json'))['results'][0]; print(r['median'])")
    full[$index]=$(python3 -c "import json; r=json.load(open('$work/full-$index.json'))['results'][0]; print(r['median'])")
    rss[$index]=$( { /usr/bin/time -v "$binary" convert "${inputs[@]}" --dry-run "${binary_extra[@]}" >/dev/null; } 2>&1 \
        | awk '/Maximum resident set size/ {print $6}')
    printf "%-22s dry-run median %.3f s (×%s of 0.3 s)  peak RSS %.1f MB (×%s of 100 MB)  full convert median %.3f s (×%s of 0.44 s)\n" \
        "$label" "${dry[$index]}" "$(ratio "${dry[$index]}" 0.3)" "$(python3 -c "print(${rss[$index]}/1024)")" \
        "$(ratio "${rss[$index]}" 102400)" "${full[$index]}" "$(ratio "${full[$index]}" 0.44)"
done
if [[ -n "${BASELINE:-}" ]]; then
    printf "current / baseline: dry-run ×%s, full ×%s, RSS ×%s\n" "$(ratio "${dry[0]}" "${dry[1]}")" \
        "$(ratio "${full[0]}" "${full[1]}")" "$(ratio "${rss[0]}" "${rss[1]}")"
fi
if [[ -n "${BASELINE:-}" ]]; then
    # The two builds alternated run by run (the order flipped each round), so load from other work on
    # the machine falls on both alike: the figure to judge a change by (e.g. provenance: ≤ ×1.10).
    python3 - "$runs" "${binaries[0]}" "${binaries[1]}" "${extras[0]}" "${extras[1]}" "${inputs[@]}" --dry-run <<'PY'
import resource, shlex, statistics, subprocess, sys, time
runs, arguments = int(sys.argv[1]), sys.argv[6:]
# Each entry: a binary and its own extra arguments (the two may be one binary at two targets).
commands = [[sys.argv[2], "convert", *arguments, *shlex.split(sys.argv[4])],
            [sys.argv[3], "convert", *arguments, *shlex.split(sys.argv[5])]]
wall, cpu = [[], []], [[], []]
for round in range(runs + 1):
    for index in ((0, 1) if round % 2 == 0 else (1, 0)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(commands[index], check=True, stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if round > 0:  # round 0 warms the page cache
            wall[index].append(elapsed)
            cpu[index].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
m = [(statistics.median(wall[i]), statistics.median(cpu[i])) for i in (0, 1)]
print(f"alternated dry-run, {runs} rounds: current median {m[0][0]:.3f} s wall / {m[0][1]:.3f} s CPU, "
      f"baseline {m[1][0]:.3f} s wall / {m[1][1]:.3f} s CPU")
print(f"current / baseline (alternated): wall ×{m[0][0] / m[1][0]:.3f}, CPU ×{m[0][1] / m[1][1]:.3f}")
PY
fi
echo "user CPU of one dry run (less sensitive to other load on the machine):"
{ /usr/bin/time -f "  %U s user, %S s sys, %e s wall" "$current" convert "${inputs[@]}" --dry-run "${extra[@]}" >/dev/null; } 2>&1
