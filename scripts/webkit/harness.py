#!/usr/bin/env python3
"""The WebView harness the real-WebKit checks share: a loopback logging proxy that answers every
request itself (real host names in the URLs WebKit matches, nothing leaves 127.0.0.1), pages that issue
requests by their ABP type (as the top page, or inside an iframe of another site's top page), and a
WebView with content-blocker lists installed whose loads go through that proxy.
Used by webview_check.py, frames_check.py, hiding_check.py and page_cost.py.
"""
import http.server
import json
import socketserver
import sys
import threading
import time

from evaluate import normalize_url

GIF = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
HARNESS_PATH = "/__lsharness__/"
# A page issues at most this many requests, so it finishes well within its time limit.
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


def page_html(items, marker, timed=False, iframe_bound_ms=IFRAME_BOUND_MS, in_frame=False):
    """A page that issues each request once, by its ABP type, then sets the title to `marker`.
    `timed`: the title becomes `marker:<ms>`, the time since navigation start when the last request
    really ended; an iframe that ends only by its bound (blocked: no load event) adds no time.
    `in_frame`: the page is an iframe and posts `marker` to its parent instead (see frame_top_html)."""
    calls = json.dumps([[item["http_url"], item["type"]] for item in items])
    title = "%s + ':' + last.toFixed(3)" % json.dumps(marker) if timed else json.dumps(marker)
    report = "parent.postMessage(%s, '*')" if in_frame else "document.title = %s"
    template = """<!doctype html><html><head><title>loading</title></head><body><script>
const items = %s; let pending = items.length, last = performance.now();
function finish() { """ + report + """; }
function done(bound) { if (bound !== true) last = performance.now(); if (--pending === 0) finish(); }
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
if (items.length === 0) finish();
</script></body></html>"""
    return template % (calls, title, iframe_bound_ms)


def frame_top_html(frame_url):
    """A top page that embeds `frame_url` and takes the frame's posted marker as its own title, so the
    requests of page_html(..., in_frame=True) are issued by a document of another site than the top."""
    return """<!doctype html><html><head><title>loading</title></head><body>
<script>window.addEventListener('message', (event) => { document.title = String(event.data); });</script>
<iframe src=%s></iframe></body></html>""" % json.dumps(frame_url)


def page_groups(sample):
    """[(source host, requests)]: the non-document requests of `sample` by their (http) source page, at
    most MAX_PER_PAGE per page and one URL once per page; each request gains `http_url`."""
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
    return [(host, items) for host, pages in groups.items() for items in pages]


class PageRunner:
    """Loads harness pages in one WebView and tells which of their requests reached the proxy: a
    request the proxy saw was allowed, one it never saw was blocked."""

    def __init__(self, view, log):
        from gi.repository import WebKit2
        self.view, self.log, self.pages = view, log, 0
        self.ended = False

        def on_load_changed(_view, event):
            if event == WebKit2.LoadEvent.FINISHED:
                self.ended = True

        def on_load_failed(*_):
            self.ended = True
            return False

        view.connect("load-changed", on_load_changed)
        view.connect("load-failed", on_load_failed)

    def load_and_wait(self, url, marker, timeout, settle_seconds=0.7):
        """Loads `url` and waits for the page's `marker` title, or (no marker: a navigation)
        for the load to finish or fail, or for `timeout`."""
        from gi.repository import GLib
        loop = GLib.MainLoop()
        start = time.monotonic()
        self.ended = False

        def poll():
            finished = self.view.get_title() == marker if marker is not None else self.ended
            if finished or time.monotonic() - start > timeout:
                loop.quit()
                return False
            return True

        self.view.load_uri(url)
        GLib.timeout_add(20, poll)
        loop.run()
        reached = self.view.get_title() == marker if marker is not None else self.ended
        # Let stragglers (beacons, iframes) reach the proxy.
        settle = time.monotonic() + settle_seconds
        while time.monotonic() < settle:
            GLib.MainContext.default().iteration(False)
            time.sleep(0.02)
        return reached

    def navigate(self, url):
        """The URLs the proxy saw while the WebView navigated to `url` (a top-frame document)."""
        before = len(self.log.snapshot())
        self.load_and_wait(url, None, 3.0, 0.05)
        return {normalize_url(u)[0] for u in self.log.snapshot()[before:]}

    def issue(self, host, items, page_timeout, top_host=None):
        """Has a harness document on `host` issue `items` (page_html): the top page, or with `top_host`
        an iframe in a top page on that other host (frame_top_html). Returns (URL of the issuing
        document, URLs the proxy saw, whether that document loaded, whether it reported done).
        A page that does not report in time is loaded once more with twice the time; if it still
        does not, the caller leaves its requests out (never guesses)."""
        # Beacons may reach the proxy after the page reports done; every other load has
        # reached it by the time its onload/onerror (or the iframe bound) ran.
        stragglers = any(item["type"] == "ping" for item in items)
        for timeout in (page_timeout, 2 * page_timeout):
            self.pages += 1
            marker = "done-%d" % self.pages
            key = "%s%d" % (HARNESS_PATH, self.pages)
            document_url = "http://%s%s" % (host, key)
            if top_host is None:
                self.log.pages[key] = page_html(items, marker)
                page_url = document_url
            else:
                document_url = "http://%s%s-frame" % (host, key)
                self.log.pages[key + "-frame"] = page_html(items, marker, in_frame=True)
                page_url = "http://%s%s" % (top_host, key)
                self.log.pages[key] = frame_top_html(document_url)
            before = len(self.log.snapshot())
            finished = self.load_and_wait(page_url, marker, timeout, 0.7 if stragglers else 0.05)
            seen = {normalize_url(url)[0] for url in self.log.snapshot()[before:]}
            loaded = normalize_url(document_url)[0] in seen and normalize_url(page_url)[0] in seen
            if finished or not loaded:
                break
        return document_url, seen, loaded, finished


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
