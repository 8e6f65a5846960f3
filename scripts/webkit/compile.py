#!/usr/bin/env python3
"""Compile WebKit content-blocker JSON lists with real WebKit (WebKitGTK 4.1).

Why: WebKit rejects a whole list when one url-filter is invalid, so the only proof that a published
list works on devices is compiling it with WebKit's own ContentExtensions compiler.
WebKitGTK's `UserContentFilterStore` runs the same parser/compiler as `WKContentRuleListStore`.

Usage:
  compile.py [--json] [--timeout SECONDS] PATH...
    PATH is a .json list file, or a directory holding manifest.json (every list it names is compiled,
    and only those). `-` reads a JSON request from stdin: {"lists":[{"id":..,"path":..}]}.
Exit status: 0 all compiled, 1 any list failed, 2 usage error, 3 WebKit unavailable.
With --probe: exits 0 when WebKit2 4.1 imports (prints its version), 3 otherwise.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3


def load_webkit():
    """Imports WebKit2 4.1 through gi; returns (WebKit2, GLib) or raises ImportError/ValueError."""
    import gi
    gi.require_version("WebKit2", "4.1")
    from gi.repository import GLib, WebKit2
    return WebKit2, GLib


def count_rules(data):
    """Rule count for the report; None when the bytes are not a JSON array (WebKit will say why)."""
    try:
        parsed = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    return len(parsed) if isinstance(parsed, list) else None


class NativeStderrCapture:
    """Redirects file descriptor 2 to a temp file, because WebKit writes regex details there."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        self.text = ""
        return self

    def __exit__(self, *_exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read(64 * 1024).decode("utf-8", "replace")
        self.file.close()
        return False


class Compiler:
    """One temporary filter store; compiles lists one at a time on a private GLib main loop."""

    def __init__(self, WebKit2, GLib):
        self.WebKit2, self.GLib = WebKit2, GLib
        self.store_dir = tempfile.mkdtemp(prefix="listserver-webkit-")
        self.store = WebKit2.UserContentFilterStore.new(self.store_dir)

    def compile(self, identifier, data, timeout):
        """Returns (ok, error message or None, wall seconds, CPU seconds of this process, all threads)."""
        GLib = self.GLib
        loop = GLib.MainLoop()
        outcome = {}

        def finished(store, result, *_ignored):
            try:
                store.save_finish(result)
                outcome["error"] = None
            except GLib.Error as error:
                outcome["error"] = error.message
            finally:
                loop.quit()

        def expired(*_ignored):
            outcome["timed_out"] = True
            outcome.setdefault("error", "timed out after %ss" % timeout)
            loop.quit()
            return False

        with NativeStderrCapture() as capture:
            start = time.monotonic()
            cpu_start = time.process_time()
            self.store.save(identifier, GLib.Bytes.new(data), None, finished)
            timer = GLib.timeout_add(int(timeout * 1000), expired)
            loop.run()
            seconds = time.monotonic() - start
            cpu_seconds = time.process_time() - cpu_start
        if not outcome.get("timed_out"):
            GLib.source_remove(timer)
        error = outcome.get("error")
        if error is not None and capture.text:
            # WebKit prints the specific regex problem on stderr; keep it next to the GError message.
            error = "%s (%s)" % (error, capture.text.strip().splitlines()[-1])
        if error is None:
            # Keep the temp store small: compiled lists are not needed after the check.
            self._remove(identifier)
        return error is None, error, seconds, cpu_seconds

    def _remove(self, identifier):
        GLib = self.GLib
        loop = GLib.MainLoop()

        def removed(store, result, *_ignored):
            try:
                store.remove_finish(result)
            except GLib.Error:
                pass
            finally:
                loop.quit()

        self.store.remove(identifier, None, removed)
        loop.run()

    def close(self):
        shutil.rmtree(self.store_dir, ignore_errors=True)


class UsageProblem(Exception):
    pass


def lists_from_paths(paths):
    """Expands the command-line paths into (id, file path) pairs, in order."""
    entries = []
    for path in paths:
        if os.path.isdir(path):
            manifest_path = os.path.join(path, "manifest.json")
            try:
                with open(manifest_path, "rb") as handle:
                    manifest = json.load(handle)
            except FileNotFoundError:
                raise UsageProblem("%s has no manifest.json" % path)
            except ValueError as error:
                raise UsageProblem("%s is not valid JSON: %s" % (manifest_path, error))
            lists = manifest.get("lists") if isinstance(manifest, dict) else None
            if not isinstance(lists, list):
                raise UsageProblem("%s has no \"lists\" array" % manifest_path)
            for entry in lists:
                if not isinstance(entry, dict) or "file" not in entry:
                    raise UsageProblem("%s: list entry without \"file\": %r" % (manifest_path, entry))
                list_id = entry.get("id") or os.path.splitext(entry["file"])[0]
                entries.append((list_id, os.path.join(path, entry["file"])))
        elif os.path.isfile(path):
            entries.append((os.path.splitext(os.path.basename(path))[0], path))
        else:
            raise UsageProblem("no such file or directory: %s" % path)
    return entries


def lists_from_stdin():
    request = json.load(sys.stdin)
    return [(item["id"], item["path"]) for item in request["lists"]]


def main(argv):
    parser = argparse.ArgumentParser(description="Compile content-blocker lists with WebKitGTK.")
    parser.add_argument("paths", nargs="*", help="list files, or directories with manifest.json; - for stdin")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds allowed per list (default 120)")
    parser.add_argument("--probe", action="store_true", help="only check that WebKit2 4.1 imports")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code else EXIT_OK

    try:
        WebKit2, GLib = load_webkit()
    except (ImportError, ValueError) as error:
        print("WebKit unavailable: %s (install gir1.2-webkit2-4.1 and python3-gi)" % error, file=sys.stderr)
        return EXIT_UNAVAILABLE
    if args.probe:
        version = "%d.%d.%d" % (WebKit2.get_major_version(), WebKit2.get_minor_version(), WebKit2.get_micro_version())
        print(json.dumps({"webkit": version}) if args.json else "WebKitGTK " + version)
        return EXIT_OK

    if not args.paths:
        print("compile.py: give list files, a directory with manifest.json, or -", file=sys.stderr)
        return EXIT_USAGE
    try:
        entries = lists_from_stdin() if args.paths == ["-"] else lists_from_paths(args.paths)
    except (UsageProblem, ValueError, KeyError, TypeError) as error:
        print("compile.py: %s" % error, file=sys.stderr)
        return EXIT_USAGE

    compiler = Compiler(WebKit2, GLib)
    results = []
    try:
        for index, (list_id, path) in enumerate(entries):
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except OSError as error:
                results.append({"id": list_id, "file": path, "rules": None, "ok": False,
                                "error": "cannot read: %s" % error.strerror, "seconds": 0.0, "cpu_seconds": 0.0})
                continue
            ok, error, seconds, cpu_seconds = compiler.compile("list%d" % index, data, args.timeout)
            results.append({"id": list_id, "file": path, "rules": count_rules(data), "ok": ok,
                            "error": error, "seconds": round(seconds, 4), "cpu_seconds": round(cpu_seconds, 4)})
    finally:
        compiler.close()

    failures = sum(1 for result in results if not result["ok"])
    total = sum(result["seconds"] for result in results)
    if args.json:
        cpu_total = sum(result["cpu_seconds"] for result in results)
        json.dump({"lists": results, "failures": failures, "seconds": round(total, 4),
                   "cpu_seconds": round(cpu_total, 4)}, sys.stdout)
        sys.stdout.write("\n")
    else:
        width = max([len(r["id"]) for r in results] + [4])
        print("%-*s %8s  %-6s %8s  %s" % (width, "list", "rules", "result", "seconds", "error"))
        for r in results:
            rules = "-" if r["rules"] is None else str(r["rules"])
            print("%-*s %8s  %-6s %8.3f  %s" % (width, r["id"], rules, "ok" if r["ok"] else "FAIL",
                                                 r["seconds"], r["error"] or ""))
        print("%-*s %8s  %-6s %8.3f" % (width, "sum", sum(r["rules"] or 0 for r in results),
                                        "%d bad" % failures if failures else "ok", total))
    return EXIT_FAILED if failures else EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
