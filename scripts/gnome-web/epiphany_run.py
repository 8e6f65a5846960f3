#!/usr/bin/env python3
"""One start of real GNOME Web (Debian's `epiphany-browser`) with a throw-away home, for checking
ListServer's stable list URLs as GNOME Web uses them.

    epiphany_run.py --home DIR --page PAGE.json --out RESULT.json [--gsettings LINE]... [--age-sidecars SECONDS]

- `--home` is the whole throw-away environment (HOME and the XDG directories); reuse it for a
  second start. GNOME Web keeps its filter store in $XDG_CACHE_HOME/epiphany/adblock.
- `--gsettings` lines are run as given (the line `/lists/` prints, split like a shell would, never
  through one) against a private keyfile settings backend; the first whose schema has
  `content-filters` wins, so both the current and the GNOME Web 43 line can be passed.
- The script starts a logging HTTP proxy on 127.0.0.1 and points GNOME Web's proxy settings at it
  (loopback stays direct, as GNOME's default ignore-hosts say). The proxy answers every proxied
  request itself and logs its URL; nothing leaves the machine. The same socket serves the test
  page at /page.html: PAGE.json is {"resources": [{"url": "http://…", "tag": "img|script|style"}]}.
  After the page's load event it requests /done, which ends the start.
- `--age-sidecars` moves each saved filter's last update that many seconds back (GNOME Web refetches
  a list once its last update is a day old), before starting.

RESULT.json: proxied URLs, whether the page finished, the filter store's files with size and mtime
(ns), the sidecars' (uri, sha256, last_update), and GNOME Web's filter-manager log lines.
"""
import argparse
import http.server
import json
import os
import shlex
import signal
import socketserver
import subprocess
import sys
import threading
import time

TIMEOUT_SECONDS = 240


class State:
    def __init__(self, page):
        self.lock = threading.Lock()
        self.proxied = []
        self.done = threading.Event()
        self.page = page


def make_handler(state):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def answer(self, status, content_type, body):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def do_GET(self):
            if not self.path.startswith("/"):
                # Absolute form: a proxied request. Log it and answer here; nothing is forwarded.
                with state.lock:
                    state.proxied.append(self.path)
                self.answer(200, "text/plain", b"")
            elif self.path == "/page.html":
                self.answer(200, "text/html; charset=utf-8", state.page)
            elif self.path.startswith("/done"):
                self.answer(204, "text/plain", b"")
                state.done.set()
            else:
                self.answer(404, "text/plain", b"")

        do_HEAD = do_GET
        do_POST = do_GET

        def do_CONNECT(self):
            with state.lock:
                state.proxied.append("CONNECT " + self.path)
            self.answer(403, "text/plain", b"")

        def log_message(self, *args):
            pass

    return Handler


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def page_html(spec):
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>listserver gnome-web check</title>"]
    for resource in spec["resources"]:
        url = resource["url"].replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        if resource["tag"] == "style":
            parts.append(f'<link rel="stylesheet" href="{url}">')
    parts.append("</head><body><p>check</p>")
    for resource in spec["resources"]:
        url = resource["url"].replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
        if resource["tag"] == "img":
            parts.append(f'<img src="{url}" width="1" height="1">')
        elif resource["tag"] == "script":
            parts.append(f'<script src="{url}"></script>')
    parts.append("<script>addEventListener('load', function () { new Image().src = '/done'; });</script></body></html>")
    return "".join(parts).encode()


def environment(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "DBUS_", "GSETTINGS", "DISPLAY", "WAYLAND"))}
    env.update({
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, "config"),
        "XDG_DATA_HOME": os.path.join(home, "data"),
        "XDG_CACHE_HOME": os.path.join(home, "cache"),
        "XDG_RUNTIME_DIR": os.path.join(home, "runtime"),
        # A private settings store: a keyfile under XDG_CONFIG_HOME, no dconf, no user session.
        "GSETTINGS_BACKEND": "keyfile",
        # GIO's GNOME proxy resolver reads org.gnome.system.proxy only in a GNOME session.
        "XDG_CURRENT_DESKTOP": "GNOME",
        # WebKit's bubblewrap sandbox cannot set up its namespaces in this container (the web
        # process crashes at start); the check is about content blocking, not the sandbox.
        "WEBKIT_DISABLE_SANDBOX_THIS_IS_DANGEROUS": "1",
        "NO_AT_BRIDGE": "1",
        # GNOME Web's own debug log for its filter manager (LOG lines on stdout).
        "EPHY_LOG_MODULES": "ephy-filters-manager",
        "LC_ALL": "C.UTF-8",
    })
    for name in ("config", "data", "cache", "runtime"):
        os.makedirs(os.path.join(home, name), mode=0o700, exist_ok=True)
    return env


def gsettings(env, *arguments):
    return subprocess.run(["gsettings", *arguments], env=env, capture_output=True, text=True, timeout=30)


def configure(env, lines, proxy_port):
    chosen = None
    for line in lines:
        words = shlex.split(line)
        if words[:2] != ["gsettings", "set"] or len(words) != 5 or words[3] != "content-filters":
            raise SystemExit(f"not a content-filters gsettings line: {line}")
        keys = gsettings(env, "list-keys", words[2])
        if keys.returncode == 0 and "content-filters" in keys.stdout.split():
            done = gsettings(env, *words[1:])
            if done.returncode != 0:
                raise SystemExit(f"{line}: {done.stderr.strip()}")
            chosen = line
            break
    if chosen is None:
        raise SystemExit("no gsettings line names a schema with content-filters")
    for arguments in (("org.gnome.system.proxy", "mode", "manual"), ("org.gnome.system.proxy.http", "host", "127.0.0.1"),
                      ("org.gnome.system.proxy.http", "port", str(proxy_port)),
                      ("org.gnome.system.proxy.https", "host", "127.0.0.1"), ("org.gnome.system.proxy.https", "port", str(proxy_port))):
        done = gsettings(env, "set", *arguments)
        if done.returncode != 0:
            raise SystemExit(f"gsettings set {' '.join(arguments)}: {done.stderr.strip()}")
    return chosen


def store_dir(home):
    return os.path.join(home, "cache", "epiphany", "adblock")


def sidecar_type():
    from gi.repository import GLib
    return GLib, GLib.VariantType("(usmsx)")


def read_sidecars(home):
    out = []
    directory = store_dir(home)
    if not os.path.isdir(directory):
        return out
    GLib, kind = sidecar_type()
    for name in sorted(os.listdir(directory)):
        if name.endswith(".filterinfo"):
            with open(os.path.join(directory, name), "rb") as f:
                value = GLib.Variant.new_from_bytes(kind, GLib.Bytes.new(f.read()), False).unpack()
            out.append({"file": name, "version": value[0], "uri": value[1], "sha256": value[2], "last_update": value[3]})
    return out


def age_sidecars(home, seconds):
    GLib, kind = sidecar_type()
    for sidecar in read_sidecars(home):
        path = os.path.join(store_dir(home), sidecar["file"])
        value = GLib.Variant("(usmsx)", (sidecar["version"], sidecar["uri"], sidecar["sha256"], sidecar["last_update"] - seconds))
        with open(path, "wb") as f:
            f.write(value.get_data_as_bytes().get_data())


def store_files(home):
    out = {}
    for root, _, files in os.walk(store_dir(home)):
        for name in files:
            path = os.path.join(root, name)
            info = os.stat(path)
            out[os.path.relpath(path, store_dir(home))] = {"bytes": info.st_size, "mtime_ns": info.st_mtime_ns, "inode": info.st_ino}
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", required=True)
    parser.add_argument("--page", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--gsettings", action="append", default=[])
    parser.add_argument("--age-sidecars", type=int, default=0)
    args = parser.parse_args()

    with open(args.page) as f:
        state = State(page_html(json.load(f)))
    server = Server(("127.0.0.1", 0), make_handler(state))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()

    home = os.path.abspath(args.home)
    env = environment(home)
    chosen = configure(env, args.gsettings, port) if args.gsettings else None
    if args.age_sidecars:
        age_sidecars(home, args.age_sidecars)
    before = store_files(home)

    log_path = os.path.join(home, f"epiphany-{int(time.time() * 1000)}.log")
    started = time.monotonic()
    with open(log_path, "wb") as log:
        child = subprocess.Popen(
            ["dbus-run-session", "--", "xvfb-run", "-a", "-s", "-screen 0 1024x768x24 -nolisten tcp",
             "epiphany", f"--profile={os.path.join(home, 'profile')}", f"http://127.0.0.1:{port}/page.html"],
            env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        finished = state.done.wait(TIMEOUT_SECONDS)
        seconds = time.monotonic() - started
        # The whole session (dbus, Xvfb, GNOME Web and its WebKit processes) is one process group.
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
            try:
                os.killpg(child.pid, sig)
            except ProcessLookupError:
                break
            try:
                child.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    server.shutdown()
    with open(log_path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").splitlines()
    with state.lock:
        proxied = list(state.proxied)
    result = {
        "finished": finished,
        "seconds": round(seconds, 2),
        "gsettings": chosen,
        "proxied": proxied,
        "store_before": before,
        "store": store_files(home),
        "sidecars": read_sidecars(home),
        "filter_log": [line for line in lines if "ephy-filters-manager" in line or "Filter " in line or "filter " in line],
    }
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0 if finished else 1


if __name__ == "__main__":
    sys.exit(main())
