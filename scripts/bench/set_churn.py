#!/usr/bin/env python3
"""Compares two published sets (directories with manifest.json and .json.gz files).

Prints: share of the new set's gzip bytes in files the old set did not have, the number of
lists whose file changed (new or different hash), and the list count. Used by daily-updates.sh.
"""
import json
import os
import sys


def files(directory):
    with open(os.path.join(directory, "manifest.json")) as handle:
        manifest = json.load(handle)
    return {entry["id"]: entry["file"] for entry in manifest["lists"]}


def main():
    old_dir, new_dir = sys.argv[1], sys.argv[2]
    old, new = files(old_dir), files(new_dir)
    old_files = set(old.values())
    total = changed_bytes = 0
    changed_lists = []
    for list_id, name in new.items():
        size = os.path.getsize(os.path.join(new_dir, name + ".gz"))
        total += size
        if name not in old_files:
            changed_bytes += size
            changed_lists.append(list_id)
    share = changed_bytes / total if total else 0.0
    print(f"{share:.4f} {len(changed_lists)} {len(new)} {changed_bytes} {total} {','.join(changed_lists) or '-'}")


if __name__ == "__main__":
    main()
