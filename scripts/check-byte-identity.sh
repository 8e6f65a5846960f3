#!/usr/bin/env bash
# Checks that two listserver builds publish byte-identical sets (`diff -r`): the bundled 2025-10
# snapshot, and the 2020-10-19…29 daily chain where each day is converted with `--previous` the
# day before (once as is, once with `--removal-grace 3`, which also uses the previous lists' bytes).
# When both builds take `convert --signing-key`, the snapshot and the first three days of the chain
# are also published signed with one key made for the run: Ed25519 signatures are deterministic and
# the signing time is the day (a 14-day validity signs at the start of the UTC day), so the
# manifests (with `generation` and `expires`) and `signatures/*.minisig` must be identical too
# (a run that crosses midnight UTC can differ there; run it again).
# Older builds write no `bytes`/`patches` manifest fields and no `.dcz` files, nor `provenance.txt`:
# a manifest that is not byte-identical must be equal once those fields are stripped, and only the
# patch and provenance files both builds wrote are compared. The summary counts the manifests
# that are byte-identical.
#
# Usage: scripts/check-byte-identity.sh BASELINE_BIN NEW_BIN
#   e.g. git worktree add --detach /tmp/base d2ecfcb && swift build -c release --package-path /tmp/base --product listserver
#        scripts/check-byte-identity.sh /tmp/base/.build/release/listserver .build/release/listserver
set -euo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BASELINE_BIN NEW_BIN" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
lists="$root/Tests/Fixtures/lists"
work="$(mktemp -d /tmp/byte-identity.XXXXXX)"
trap 'rm -rf "$work"' EXIT
binaries=("$1" "$2")
labels=(baseline new)
signed=1
for bin in "${binaries[@]}"; do
    "$bin" convert --help 2>&1 | grep -q -- --signing-key || signed=0
done
if [[ $signed -eq 1 ]]; then
    "$2" keygen --out "$work/key" >/dev/null
fi

# chain BIN DIR LAST_DAY [convert flags...]: converts 2020-10-19…LAST_DAY into DIR/2020-10-DD, each
# day with --previous the day before.
chain() {
    local bin="$1" dir="$2" last="$3" previous="" day
    shift 3
    for day in $(seq 19 "$last"); do
        "$bin" convert --input "$lists/easylist-2020-10-$day.txt" --input "$lists/easyprivacy-2020-10-$day.txt" \
            --out "$dir/2020-10-$day" ${previous:+--previous "$previous"} "$@" >/dev/null
        previous="$dir/2020-10-$day"
    done
}
snapshot() {
    local bin="$1" dir="$2"
    shift 2
    "$bin" convert --input "$root/snapshot/easylist.txt" --input "$root/snapshot/easyprivacy.txt" --out "$dir" "$@" >/dev/null
}

for index in 0 1; do
    bin="${binaries[$index]}"
    out="$work/${labels[$index]}"
    snapshot "$bin" "$out/snapshot"
    for grace in 0 3; do
        chain "$bin" "$out/chain-grace$grace" 29 --removal-grace "$grace"
    done
    if [[ $signed -eq 1 ]]; then
        snapshot "$bin" "$out/signed/snapshot" --signing-key "$work/key/signing-key.pem"
        chain "$bin" "$out/signed/chain" 21 --signing-key "$work/key/signing-key.pem"
    fi
done

sets=$(find "$work/baseline" -name manifest.json | wc -l)
files=$(find "$work/baseline" -type f | wc -l)
# Issue #12 adds `bytes` and `patches` to manifest entries and `.dcz` patch files beside the lists;
# the derived patch names replace `patches` with the top-level `patchFiles`.
# Everything else must be byte-identical; manifests must be identical once those fields are
# stripped; patch files both builds wrote must be identical too.
status=0
diff -r -x '*.dcz' -x manifest.json -x provenance.txt "$work/baseline" "$work/new" || status=1
while IFS= read -r provenance; do
    other="$work/new/${provenance#"$work/baseline/"}"
    [[ -f "$other" ]] && { cmp "$provenance" "$other" || status=1; }
done < <(find "$work/baseline" -name provenance.txt)
python3 - "$work/baseline" "$work/new" <<'PY' || status=1
import json, pathlib, sys
base, new = map(pathlib.Path, sys.argv[1:3])
def stripped(path):
    manifest = json.loads(path.read_bytes())
    manifest.pop("patchFiles", None)  # patches under derived names (docs/patches.md)
    for entry in manifest["lists"]:
        entry.pop("bytes", None)
        entry.pop("patches", None)
    return json.dumps(manifest, separators=(",", ":")) + "\n"
bad = 0
identical = 0
manifests = sorted(base.rglob("manifest.json"))
for path in manifests:
    other = new / path.relative_to(base)
    if other.exists() and path.read_bytes() == other.read_bytes():
        identical += 1
    elif not other.exists() or stripped(path) != stripped(other):
        print(f"manifest differs beyond bytes/patches: {path.relative_to(base)}"); bad += 1
print(f"manifests byte-identical: {identical} of {len(manifests)}")
signatures = sorted(base.rglob("*.minisig"))
if signatures:
    print(f"signatures: {len(signatures)} (compared by diff -r)")
patches = {side: {p.relative_to(root) for p in root.rglob("*.dcz")} for side, root in (("baseline", base), ("new", new))}
for rel in sorted(patches["baseline"] & patches["new"]):
    if (base / rel).read_bytes() != (new / rel).read_bytes():
        print(f"patch differs: {rel}"); bad += 1
print(f"patch files: baseline {len(patches['baseline'])}, new {len(patches['new'])}, in both {len(patches['baseline'] & patches['new'])}")
sys.exit(1 if bad else 0)
PY
if [[ $status -eq 0 ]]; then
    echo "byte-identical: $sets sets, $files files (snapshot 2025-10; 2020-10-19…29 chain with --previous, removal grace 0 and 3;$([[ $signed -eq 1 ]] && echo " signed: snapshot and 2020-10-19…21;") manifests byte for byte or, from older builds, without bytes/patches)"
else
    echo "DIFFERENT output (see above)" >&2
    exit 1
fi
