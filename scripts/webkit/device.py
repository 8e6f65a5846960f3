#!/usr/bin/env python3
"""The reference device: what an app does after each sync, in real WebKit (WebKitGTK 4.1).

The loop an app developer copies (on Apple platforms `WKContentRuleListStore` has the same calls):
  1. sync the store with ListSync (`listserver sync --json`): downloads, patches, hash checks;
  2. for every list of the synced set, the identifier `<id>-<first 16 hex of its SHA-256>`:
     look it up in the content filter store, and compile it only when the lookup misses
     (a list whose bytes did not change keeps its identifier, so it is never compiled again);
  3. remove every identifier in the store that the new set no longer names
     (after the new set is complete, so a failed compile leaves the old lists installed).

The identifier carries the hash, so the store itself is the record of what is compiled: no side
file can disagree with it, and a crash between steps costs at most one more compile.

Usage:
  device.py --store WEBKITDIR --dir SYNCDIR [--listserver BIN (--manifest URL | --sets URL) [SYNC-FLAG...]] [--json]
      SYNCDIR is a ListSync store (state.json + lists/<sha256>.json). With --manifest, runs
      `BIN sync --manifest URL --dir SYNCDIR --json` first (flags after `--` go to it, e.g.
      `-- --allow-unsigned`); without it, installs the set SYNCDIR already holds. With --sets (an
      origin's /sets/ URL), the sync picks the set for this WebKitGTK's version (2.50 and later:
      safari-26) with `--webkit-version`; the report names the set.
  device.py --store WEBKITDIR --list ID=PATH [--list ID=PATH ...] [--json]
      installs the given files as the set (a peer's one-list output, for comparisons).
Prints per run: lists in the set, lookups, lists compiled (with seconds), compile wall and CPU
seconds, identifiers removed, and the sync's bytes. Exit 0 when every list is installed, 1 when a
compile or the sync failed, 2 usage, 3 WebKit unavailable.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compile import NativeStderrCapture, load_webkit  # noqa: E402

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3
HASH_PREFIX = 16


def identifier(list_id, sha256):
    """The compiled list's name: a changed list gets a new name, an unchanged one keeps its own."""
    return "%s-%s" % (list_id, sha256[:HASH_PREFIX])


class FilterStore:
    """A persistent `UserContentFilterStore`; each call runs to completion on a private main loop."""

    def __init__(self, WebKit2, GLib, path):
        self.GLib = GLib
        os.makedirs(path, exist_ok=True)
        self.store = WebKit2.UserContentFilterStore.new(path)

    def _run(self, start, finish):
        """Starts one async call and returns (value, GLib error message or None)."""
        loop = self.GLib.MainLoop()
        outcome = {}

        def done(store, result, *_ignored):
            try:
                outcome["value"] = finish(result)
            except self.GLib.Error as error:
                outcome["error"] = error.message
            finally:
                loop.quit()

        start(done)
        loop.run()
        return outcome.get("value"), outcome.get("error")

    def lookup(self, name):
        """True when a compiled list with this identifier is in the store."""
        value, error = self._run(lambda done: self.store.load(name, None, done), self.store.load_finish)
        return error is None and value is not None

    def compile(self, name, data):
        """Returns (error or None, wall seconds, CPU seconds of this process, all threads)."""
        with NativeStderrCapture() as capture:
            start, cpu = time.monotonic(), time.process_time()
            _, error = self._run(lambda done: self.store.save(name, self.GLib.Bytes.new(data), None, done),
                                 self.store.save_finish)
            seconds, cpu_seconds = time.monotonic() - start, time.process_time() - cpu
        if error is not None and capture.text:
            error = "%s (%s)" % (error, capture.text.strip().splitlines()[-1])
        return error, seconds, cpu_seconds

    def identifiers(self):
        value, _ = self._run(lambda done: self.store.fetch_identifiers(None, done), self.store.fetch_identifiers_finish)
        return list(value or [])

    def remove(self, name):
        _, error = self._run(lambda done: self.store.remove(name, None, done), self.store.remove_finish)
        return error


def synced_set(sync_dir):
    """(id, sha256, path) of each list in the ListSync store's last synced manifest."""
    with open(os.path.join(sync_dir, "state.json"), "rb") as handle:
        state = json.load(handle)
    return [(entry["id"], entry["sha256"], os.path.join(sync_dir, "lists", entry["sha256"] + ".json"))
            for entry in state["manifest"]["lists"]]


def given_set(specs):
    entries = []
    for spec in specs:
        list_id, _, path = spec.partition("=")
        if not list_id or not path:
            raise ValueError("--list wants ID=PATH, got %r" % spec)
        with open(path, "rb") as handle:
            entries.append((list_id, hashlib.sha256(handle.read()).hexdigest(), path))
    return entries


def webkit_version(WebKit2):
    """The running WebKitGTK's version, e.g. `2.50.6`: what picks the set."""
    return "%d.%d.%d" % (WebKit2.get_major_version(), WebKit2.get_minor_version(), WebKit2.get_micro_version())


def run_sync(listserver, source, sync_dir, extra):
    """`source` is the flags that name what to sync: `--manifest URL` or `--sets URL --webkit-version X.Y.Z`."""
    command = [listserver, "sync"] + source + ["--dir", sync_dir, "--json"] + extra
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if done.returncode != 0:
        raise RuntimeError("listserver sync failed (%d): %s" % (done.returncode, done.stderr.decode(errors="replace").strip()))
    return json.loads(done.stdout)


def install(store, entries):
    """Steps 2 and 3 of the loop; returns the report without the sync part."""
    wanted = [identifier(list_id, sha) for list_id, sha, _ in entries]
    report = {"lists": len(entries), "lookups": 0, "compiled": [], "failed": [], "removed": [],
              "compile_seconds": 0.0, "compile_cpu_seconds": 0.0, "compiled_rules": 0}
    for (list_id, sha, path), name in zip(entries, wanted):
        report["lookups"] += 1
        if store.lookup(name):
            continue
        with open(path, "rb") as handle:
            data = handle.read()
        error, seconds, cpu_seconds = store.compile(name, data)
        report["compile_seconds"] += seconds
        report["compile_cpu_seconds"] += cpu_seconds
        if error is not None:
            report["failed"].append({"id": list_id, "identifier": name, "error": error})
            continue
        rules = len(json.loads(data))
        report["compiled_rules"] += rules
        report["compiled"].append({"id": list_id, "identifier": name, "rules": rules,
                                   "seconds": round(seconds, 4), "cpu_seconds": round(cpu_seconds, 4)})
    if not report["failed"]:
        keep = set(wanted)
        for name in store.identifiers():
            if name not in keep and store.remove(name) is None:
                report["removed"].append(name)
    report["compile_seconds"] = round(report["compile_seconds"], 4)
    report["compile_cpu_seconds"] = round(report["compile_cpu_seconds"], 4)
    return report


def main(argv):
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser(description="Sync, then compile only what changed into a WebKit filter store.")
    parser.add_argument("--store", required=True, help="the device's UserContentFilterStore directory")
    parser.add_argument("--dir", help="the ListSync store directory")
    parser.add_argument("--listserver", default="listserver", help="listserver binary for the sync step")
    parser.add_argument("--manifest", help="manifest URL; when given, sync first")
    parser.add_argument("--sets", help="an origin's /sets/ URL: sync the set for this WebKit's version first")
    parser.add_argument("--list", action="append", default=[], help="ID=PATH: install these files as the set")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code else EXIT_OK
    if bool(args.dir) == bool(args.list) or (args.manifest and args.sets):
        print("device.py: give --dir SYNCDIR or --list ID=PATH, and at most one of --manifest and --sets", file=sys.stderr)
        return EXIT_USAGE
    try:
        WebKit2, GLib = load_webkit()
    except (ImportError, ValueError) as error:
        print("WebKit unavailable: %s (install gir1.2-webkit2-4.1 and python3-gi)" % error, file=sys.stderr)
        return EXIT_UNAVAILABLE

    sync = None
    try:
        if args.manifest:
            sync = run_sync(args.listserver, ["--manifest", args.manifest], args.dir, extra)
        elif args.sets:
            sync = run_sync(args.listserver, ["--sets", args.sets, "--webkit-version", webkit_version(WebKit2)], args.dir, extra)
        entries = synced_set(args.dir) if args.dir else given_set(args.list)
    except (RuntimeError, OSError, ValueError, KeyError) as error:
        print("device.py: %s" % error, file=sys.stderr)
        return EXIT_FAILED
    report = install(FilterStore(WebKit2, GLib, args.store), entries)
    if sync is not None:
        report["sync"] = {key: sync.get(key) for key in ("outcome", "manifestTransferredBytes", "transferredBytes",
                                                         "recompile", "removedLists")}
        report["sync"]["signatureTransferredBytes"] = sync.get("signatureTransferredBytes", 0)
        if sync.get("set"):
            report["sync"]["set"] = sync["set"]
            report["sync"]["webkitVersion"] = webkit_version(WebKit2)
        report["sync"]["files"] = [{"id": f["id"], "transferredBytes": f["transferredBytes"], "patch": f.get("patch"),
                                    "patchFallback": f.get("patchFallback")} for f in sync.get("downloaded", [])]
    if args.json:
        json.dump(report, sys.stdout)
        sys.stdout.write("\n")
    else:
        if sync is not None and sync.get("set"):
            print("set: %s (%s) for WebKitGTK %s" % (sync["set"]["name"], sync["set"]["target"], webkit_version(WebKit2)))
        if sync is not None:
            print("sync: %s, %d bytes transferred (manifest %d), %d files" % (
                sync["outcome"], sync["transferredBytes"], sync["manifestTransferredBytes"], len(sync.get("downloaded", []))))
        print("lists %d, lookups %d, compiled %d (%d rules) in %.2f s (CPU %.2f s), removed %d" % (
            report["lists"], report["lookups"], len(report["compiled"]), report["compiled_rules"],
            report["compile_seconds"], report["compile_cpu_seconds"], len(report["removed"])))
        for item in report["compiled"]:
            print("  compiled %-40s %7d rules %7.3f s" % (item["identifier"], item["rules"], item["seconds"]))
        for name in report["removed"]:
            print("  removed  %s" % name)
        for item in report["failed"]:
            print("  FAILED   %s: %s" % (item["identifier"], item["error"]))
    return EXIT_FAILED if report["failed"] else EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
