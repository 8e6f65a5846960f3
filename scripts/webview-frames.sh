#!/usr/bin/env bash
# How exactly the converted sets block when requests come from iframes, as ABP judges them
# (scripts/webkit/frames_check.py, docs/targets.md "Fidelity in frames"): builds, converts the
# bundled 2025-10 EasyList + EasyPrivacy once per target the build knows (safari-17 always, every
# other one `listserver convert --target` accepts), and checks each set and SafariConverterLib's
# list for the same input in real WebKitGTK (Xvfb, loopback proxy) against adblock-rust, for
# requests issued from their source as the top page and from an iframe of it under another site.
# Then the same for element hiding (scripts/webkit/hiding_frames.py) on HIDING_PAGES source sites.
# Prints both tables; the JSON reports go to $OUT and $OUT less .json plus -hiding.json.
#   scripts/webview-frames.sh                        (SAMPLE=1200 requests; ~10 min per set on a loaded 2-core machine)
#   SAMPLE=0 scripts/webview-frames.sh               (every request a page can issue)
#   TARGETS="safari-17 safari-26" OUT=frames.json scripts/webview-frames.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
peers="${PEERS:-$root/../shared/data/peers}"
[[ -d "$peers" ]] || peers=/work/shared/data/peers
python="${LISTSERVER_WEBKIT_PYTHON:-$root/.venv/bin/python}"
command -v xvfb-run >/dev/null || { echo "$0: xvfb-run not found; apt-get install -y xvfb" >&2; exit 1; }
swift build --product listserver >/dev/null
listserver="$root/.build/debug/listserver"
work="$(mktemp -d /tmp/webview-frames.XXXXXX)"
trap 'rm -rf "$work"' EXIT

inputs=(--input "$root/snapshot/easylist.txt" --input "$root/snapshot/easyprivacy.txt")
sets=()
for target in ${TARGETS:-safari-17 safari-26}; do
    if [[ "$target" == safari-17 ]]; then
        "$listserver" convert "${inputs[@]}" --out "$work/$target" >/dev/null
    elif ! "$listserver" convert "${inputs[@]}" --out "$work/$target" --target "$target" >/dev/null 2>"$work/err"; then
        echo "$0: skipping $target: $(head -1 "$work/err")" >&2
        continue
    fi
    sets+=("$target=$work/$target")
done
sets+=("safariconverterlib=$peers/safariconverterlib-2025-10.json.gz")
out="${OUT:-$root/bench-out/frames.json}"
mkdir -p "$(dirname "$out")"

xvfb-run -a "$python" scripts/webkit/frames_check.py "${sets[@]}" \
    --abp "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt" \
    --sample "${SAMPLE:-1200}" --json-out "$out"
xvfb-run -a "$python" scripts/webkit/hiding_frames.py "${sets[@]}" \
    --abp "$root/snapshot/easylist.txt" "$root/snapshot/easyprivacy.txt" \
    --pages "${HIDING_PAGES:-100}" --json-out "${out%.json}-hiding.json"
