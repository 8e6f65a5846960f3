#!/usr/bin/env python3
"""Check evaluate.py against real WebKit: load pages in a WebKitGTK WebView with our lists installed
and see which requests reach a loopback logging proxy.

Run under Xvfb:  xvfb-run -a .venv/bin/python scripts/webkit/webview_check.py SETDIR [--sample 300]
`--sample 0` checks every request of a type a page can issue; `--decisions-out FILE` writes WebKit's
own decision for each request (JSON Lines: url, page, type, webkit_blocked, page_loaded), which the
Swift engine's test (DecisionEngineWebViewTests) compares against.

How: every sampled request is rewritten to http:// (the proxy cannot see paths inside an HTTPS
CONNECT tunnel); the evaluator decides on the very same rewritten URL and page, so the two are
compared like for like. Requests are grouped by source page; for each page the WebView loads
`http://<source host>/__lsharness__/<n>` through the proxy (WebKit network proxy settings, custom
mode), and the page issues the requests by type: img, script, link stylesheet, fetch, iframe,
sendBeacon (ping), @font-face (font). ABP `document` requests are top-frame navigations of their own.
A request the proxy saw was allowed; one it never saw (within the page's time limit) was blocked.
All traffic stays on 127.0.0.1: the proxy answers everything itself and never connects out.
Prints agreement and writes every difference; exit 1 when they differ.
"""
import argparse
import http.server
import json
import os
import random
import socketserver
import sys
import tempfile
import shutil
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import Evaluator, load_set, normalize_url  # noqa: E402

TESTED_TYPES = ("script", "image", "stylesheet", "xmlhttprequest", "subdocument", "ping", "font", "document")
GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
HARNESS_PATH = "/__lsharness__/"
# A page issues at most this many requests, so it finishes well within --page-timeout.
MAX_PER_PAGE = 40
# A blocked iframe fires no load event; an allowed one reaches the proxy within milliseconds.
IFRAME_BOUND_MS = 1500


class ProxyLog:
    def __init__(self):
        self.lock = threading.Lock()
        self.seen = []
        self.pages = {}

    def add(self, url):
        with self.lock:
            self.seen.append(url)

    def snapshot(self):
        with self.lock:
            return list(self.seen)


def make_proxy(log):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _answer(self):
            target = self.path
            log.add(target)
            path_only = target.split("?", 1)[0]
            body, kind = b"", "text/plain"
            page = None
            for key, html in log.pages.items():
                if target.endswith(key):
                    page = html
            if page is not None:
                body, kind = page.encode(), "text/html"
            elif path_only.endswith((".gif", ".png", ".jpg", ".jpeg")) or "image" in self.headers.get("Accept", ""):
                body, kind = GIF, "image/gif"
            elif "text/css" in self.headers.get("Accept", ""):
                body, kind = b"", "text/css"
            elif "text/html" in self.headers.get("Accept", ""):
                body, kind = b"<!doctype html><title>x</title>", "text/html"
            else:
                body, kind = b"", "application/javascript"
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(min(length, 1 << 20))
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_HEAD = do_OPTIONS = _answer

        def do_CONNECT(self):
            log.add("CONNECT " + self.path)
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True
        allow_reuse_address = True

    return Server(("127.0.0.1", 0), Handler)


def to_http(url):
    if url.startswith("https://"):
        return "http://" + url[len("https://"):]
    if url.startswith("wss://"):
        return "ws://" + url[len("wss://"):]
    return url


def page_html(items, marker, timed=False, iframe_bound_ms=IFRAME_BOUND_MS):
    """A page that issues each request once, by its ABP type, then sets the title to `marker`.
    `timed`: the title becomes `marker:<ms>`, the time since navigation start when the last request
    really ended; an iframe that ends only by its bound (blocked: no load event) adds no time."""
    calls = json.dumps([[item["http_url"], item["type"]] for item in items])
    title = "%s + ':' + last.toFixed(3)" % json.dumps(marker) if timed else json.dumps(marker)
    return """<!doctype html><html><head><title>loading</title></head><body><script>
const items = %s; let pending = items.length, last = performance.now();
function done(bound) { if (bound !== true) last = performance.now(); if (--pending === 0) document.title = %s; }
for (const [url, type] of items) {
  try {
    if (type === 'image') { const e = new Image(); e.onload = e.onerror = done; e.src = url; document.body.appendChild(e); }
    else if (type === 'script') { const e = document.createElement('script'); e.onload = e.onerror = done; e.src = url; document.body.appendChild(e); }
    else if (type === 'stylesheet') { const e = document.createElement('link'); e.rel = 'stylesheet'; e.onload = e.onerror = done; e.href = url; document.head.appendChild(e); }
    else if (type === 'xmlhttprequest') { fetch(url, {mode: 'no-cors', cache: 'no-store'}).then(done, done); }
    else if (type === 'subdocument') { const e = document.createElement('iframe'); let over = false; const end = (bound) => { if (!over) { over = true; done(bound); } }; e.onload = e.onerror = () => end(false); setTimeout(() => end(true), %d); e.src = url; document.body.appendChild(e); }
    else if (type === 'ping') { navigator.sendBeacon(url, 'x'); done(); }
    else if (type === 'font') { const f = new FontFace('f' + pending, 'url(' + JSON.stringify(url) + ')'); document.fonts.add(f); f.load().then(done, done); }
    else done();
  } catch (e) { done(); }
}
if (items.length === 0) document.title = %s;
</script></body></html>""" % (calls, title, iframe_bound_ms, title)


def choose_sample(requests, evaluator, size, seed, documents_wanted=None):
    """Every request an exception or an if-/unless-domain rule decides (rare: ~90 of 3,869), then ones a
    load-type/load-context rule decides, then random ones; documents are capped separately."""
    rng = random.Random(seed)
    eligible = [r for r in requests if r["type"] in TESTED_TYPES and r["url"].startswith(("http://", "https://"))]
    if size == 0:
        return eligible
    rare, conditioned, plain = [], [], []
    for request in eligible:
        url, source = to_http(request["url"]), to_http(request.get("source") or "")
        decision = evaluator.decide(url, source, request["type"])
        rule = decision.rule.source["trigger"] if decision.rule else {}
        if decision.cancelled_by or "if-domain" in rule or "unless-domain" in rule:
            rare.append(request)
        elif "load-type" in rule or "load-context" in rule:
            conditioned.append(request)
        else:
            plain.append(request)
    for group in (rare, conditioned, plain):
        rng.shuffle(group)
    wanted = documents_wanted if documents_wanted is not None else max(4, size // 30)
    documents = [r for r in rare + conditioned + plain if r["type"] == "document"][:wanted]
    rest = [r for r in rare if r["type"] != "document"][: size // 3]
    rest += [r for r in conditioned if r["type"] != "document"][: size // 3]
    rest += [r for r in plain if r["type"] != "document"][: max(0, size - len(rest) - len(documents))]
    return documents + rest


class ListCompileError(Exception):
    """A list WebKit refused to compile; the message names it and gives WebKit's error."""


def open_webview(lists, proxy_url, store_dir):
    """A WebView (in an offscreen window) with every (list_id, rule array) of `lists` compiled into
    a store in `store_dir` and installed, and all its traffic sent to the proxy at `proxy_url`.
    Returns (view, window); raises ListCompileError. Needs Gtk initialised (a display)."""
    import gi
    gi.require_version("WebKit2", "4.1")
    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk, WebKit2

    store = WebKit2.UserContentFilterStore.new(store_dir)
    manager = WebKit2.UserContentManager()
    for index, (list_id, array) in enumerate(lists):
        loop = GLib.MainLoop()
        holder = {}

        def saved(source, result, *_):
            try:
                holder["filter"] = source.save_finish(result)
            except GLib.Error as error:
                holder["error"] = error.message
            loop.quit()

        store.save("l%d" % index, GLib.Bytes.new(json.dumps(array).encode()), None, saved)
        loop.run()
        if "error" in holder:
            raise ListCompileError("list %s does not compile: %s" % (list_id, holder["error"]))
        manager.add_filter(holder["filter"])

    data_manager = WebKit2.WebsiteDataManager.new_ephemeral()
    data_manager.set_network_proxy_settings(WebKit2.NetworkProxyMode.CUSTOM,
                                            WebKit2.NetworkProxySettings.new(proxy_url, None))
    context = WebKit2.WebContext.new_with_website_data_manager(data_manager)
    context.set_cache_model(WebKit2.CacheModel.DOCUMENT_VIEWER)
    view = WebKit2.WebView(web_context=context, user_content_manager=manager)
    window = Gtk.OffscreenWindow()
    window.add(view)
    window.show_all()
    return view, window


def main(argv):
    parser = argparse.ArgumentParser(description="Evaluator vs real WebKit, through a loopback proxy.")
    parser.add_argument("directory", help="converted set (directory with manifest.json)")
    parser.add_argument("--requests", default=os.path.join(os.path.dirname(__file__), "../../Tests/Fixtures/requests/dev-sample.jsonl"))
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--page-timeout", type=float, default=8.0)
    parser.add_argument("--documents", type=int, default=None, help="top-frame navigations to include (default sample/30)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--differences", default=None, help="file to write differences to")
    parser.add_argument("--decisions-out", default=None, help="file to write WebKit's decision on every checked request to (JSON Lines)")
    parser.add_argument("--time-limit", type=float, default=900.0, help="seconds for all page loads; requests past it are not run")
    args = parser.parse_args(argv)

    import gi
    gi.require_version("WebKit2", "4.1")
    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk, WebKit2

    if not Gtk.init_check(sys.argv)[0]:
        print("webview_check.py: no display; run under xvfb-run -a", file=sys.stderr)
        return 2

    lists = load_set(args.directory)
    evaluator = Evaluator(lists)
    with open(args.requests, encoding="utf-8") as handle:
        requests = [json.loads(line) for line in handle if line.strip()]
    sample = choose_sample(requests, evaluator, args.sample, args.seed, args.documents)

    log = ProxyLog()
    proxy = make_proxy(log)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    proxy_url = "http://127.0.0.1:%d" % proxy.server_address[1]

    store_dir = tempfile.mkdtemp(prefix="listserver-webview-")
    compile_started = time.monotonic()
    try:
        try:
            view, window = open_webview(lists, proxy_url, store_dir)
        except ListCompileError as error:
            print(str(error), file=sys.stderr)
            return 1
        compile_seconds = time.monotonic() - compile_started
        deadline_total = time.monotonic() + args.time_limit
        started = time.monotonic()

        load_state = {"ended": False}

        def on_load_changed(_view, event):
            if event == WebKit2.LoadEvent.FINISHED:
                load_state["ended"] = True

        def on_load_failed(*_):
            load_state["ended"] = True
            return False

        view.connect("load-changed", on_load_changed)
        view.connect("load-failed", on_load_failed)

        def load_and_wait(url, marker, timeout, settle_seconds=0.7):
            """Loads `url` and waits for the page's `marker` title, or (no marker: a navigation)
            for the load to finish or fail, or for `timeout`."""
            loop = GLib.MainLoop()
            start = time.monotonic()
            load_state["ended"] = False

            def poll():
                finished = view.get_title() == marker if marker is not None else load_state["ended"]
                if finished or time.monotonic() - start > timeout:
                    loop.quit()
                    return False
                return True

            view.load_uri(url)
            GLib.timeout_add(20, poll)
            loop.run()
            reached = view.get_title() == marker if marker is not None else load_state["ended"]
            # Let stragglers (beacons, iframes) reach the proxy.
            settle = time.monotonic() + settle_seconds
            while time.monotonic() < settle:
                GLib.MainContext.default().iteration(False)
                time.sleep(0.02)
            return reached

        results = []
        # Pages: group non-document requests by their (http) source page; one URL once per page.
        groups = {}
        for request in sample:
            if request["type"] == "document":
                continue
            source = to_http(request.get("source") or "")
            if not source:
                source = "http://%s/" % (normalize_url(to_http(request["url"]))[1] or "unknown.invalid")
            host = normalize_url(source)[1]
            group = groups.setdefault(host, [[]])
            if len(group[-1]) >= MAX_PER_PAGE or any(item["http_url"] == to_http(request["url"]) for item in group[-1]):
                group.append([])
            group[-1].append(dict(request, http_url=to_http(request["url"])))
        page_number = 0
        for host, pages in groups.items():
            for items in pages:
                if time.monotonic() > deadline_total:
                    break
                # Beacons may reach the proxy after the page reports done; every other load has
                # reached it by the time its onload/onerror (or the iframe bound) ran.
                stragglers = any(item["type"] == "ping" for item in items)
                # A page that does not report done in time is loaded once more, with twice the time;
                # if it still does not, its requests are left out (page_finished false), never guessed.
                for timeout in (args.page_timeout, 2 * args.page_timeout):
                    page_number += 1
                    if page_number % 100 == 0:
                        print("webview_check: %d pages, %d requests, %.0f s" % (page_number, len(results), time.monotonic() - started),
                              file=sys.stderr, flush=True)
                    page_url = "http://%s%s%d" % (host, HARNESS_PATH, page_number)
                    key = "%s%d" % (HARNESS_PATH, page_number)
                    log.pages[key] = page_html(items, "done-%d" % page_number)
                    before = len(log.snapshot())
                    page_finished = load_and_wait(page_url, "done-%d" % page_number, timeout, 0.7 if stragglers else 0.05)
                    seen = {normalize_url(url)[0] for url in log.snapshot()[before:]}
                    if page_finished or normalize_url(page_url)[0] not in seen:
                        break
                page_loaded = normalize_url(page_url)[0] in seen
                for item in items:
                    webkit_blocked = normalize_url(item["http_url"])[0] not in seen
                    ours = evaluator.decide(item["http_url"], page_url, item["type"])
                    results.append({"url": item["http_url"], "page": page_url, "type": item["type"],
                                    "webkit_blocked": webkit_blocked, "page_loaded": page_loaded, "page_finished": page_finished,
                                    "ours_blocked": ours.blocked, "ours": ours.as_json()})
        for request in sample:
            if request["type"] != "document" or time.monotonic() > deadline_total:
                continue
            url = to_http(request["url"])
            before = len(log.snapshot())
            load_and_wait(url, None, 3.0, 0.05)
            seen = {normalize_url(u)[0] for u in log.snapshot()[before:]}
            ours = evaluator.decide(url, "", "document")
            results.append({"url": url, "page": url, "type": "document", "webkit_blocked": normalize_url(url)[0] not in seen,
                            "page_loaded": True, "page_finished": True, "ours_blocked": ours.blocked, "ours": ours.as_json()})
        window.destroy()
    finally:
        proxy.shutdown()
        proxy.server_close()
        shutil.rmtree(store_dir, ignore_errors=True)

    connects = [u for u in log.snapshot() if u.startswith("CONNECT ")]
    valid = [r for r in results if r["page_loaded"] and r["page_finished"]]
    differences = [r for r in valid if r["webkit_blocked"] != r["ours_blocked"]]
    if args.decisions_out:
        with open(args.decisions_out, "w", encoding="utf-8") as handle:
            for r in results:
                handle.write(json.dumps({key: r[key] for key in ("url", "page", "type", "webkit_blocked", "page_loaded", "page_finished")}) + "\n")
    summary = {
        "sampled": len(sample),
        "not_run": len(sample) - len(results),
        "compile_seconds": round(compile_seconds, 1),
        "load_seconds": round(time.monotonic() - started, 1),
        "pages": page_number,
        "checked": len(valid),
        "pages_blocked_themselves": sum(1 for r in results if not r["page_loaded"]),
        "unfinished": sum(1 for r in results if r["page_loaded"] and not r["page_finished"]),
        "agree": len(valid) - len(differences),
        "agreement_percent": round(100.0 * (len(valid) - len(differences)) / max(1, len(valid)), 3),
        "webkit_blocked": sum(r["webkit_blocked"] for r in valid),
        "by_type": {t: sum(1 for r in valid if r["type"] == t) for t in TESTED_TYPES},
        "with_exception_or_condition": sum(1 for r in valid if r["ours"]["cancelled_by"] or (r["ours"]["rule"] and any(
            k in r["ours"]["rule"] for k in ("if-domain", "unless-domain", "load-type", "load-context")))),
        "allowed_by_exception": sum(1 for r in valid if r["ours"]["cancelled_by"]),
        "blocked_by_domain_rule": sum(1 for r in valid if r["ours"]["rule"] and (
            "if-domain" in r["ours"]["rule"] or "unless-domain" in r["ours"]["rule"])),
        "blocked_by_party_rule": sum(1 for r in valid if r["ours"]["rule"] and "load-type" in r["ours"]["rule"]),
        "unexpected_connects": len(connects),
        "differences": differences,
    }
    if args.differences:
        with open(args.differences, "w", encoding="utf-8") as handle:
            for r in differences:
                handle.write(json.dumps(r) + "\n")
    if args.json:
        print(json.dumps(summary))
    else:
        print("checked %d requests (%d pages), WebKit blocked %d; agreement %.3f%% (%d differences)" % (
            summary["checked"], page_number, summary["webkit_blocked"], summary["agreement_percent"], len(differences)))
        print("by type: %s; decided by an exception or a domain/party condition: %d" % (
            summary["by_type"], summary["with_exception_or_condition"]))
        print("allowed by an exception: %d; blocked by an if-/unless-domain rule: %d; by a load-type rule: %d" % (
            summary["allowed_by_exception"], summary["blocked_by_domain_rule"], summary["blocked_by_party_rule"]))
        for r in differences[:20]:
            print("  DIFF %s %s page=%s webkit=%s ours=%s %s" % (r["type"], r["url"], r["page"],
                  "block" if r["webkit_blocked"] else "allow", "block" if r["ours_blocked"] else "allow",
                  r["ours"]["rule"] or r["ours"]["cancelled_by"] or ""))
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
