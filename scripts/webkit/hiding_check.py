#!/usr/bin/env python3
"""Which elements real WebKit hides: installs content-blocker lists in a WebKitGTK WebView, loads
pages (and the iframes they embed) through a loopback proxy, and reports, for every document, the
ids of the elements whose computed display is `none`.

Why: `css-display-none` rules can be conditioned on the top page (`if-domain`) or matched against
the document's own URL (`url-filter` with `resource-type: document`); which frames a rule reaches,
and which site exceptions cancel it, is WebKit behaviour that only a WebView shows.

Run under Xvfb:  xvfb-run -a .venv/bin/python scripts/webkit/hiding_check.py PLAN.json
PLAN: {"lists": [[rule, ...], ...],
       "pages": [{"url": "http://a.example/p", "elements": ["ad", "keep"],
                  "frames": [{"url": "http://b.example/f", "elements": ["ad"], "images": ["http://d.example/y.gif"],
                              "markup": "<p id=\"y\"></p>"}],
                  "images": ["http://c.example/x.gif"],
                  "markup": "<ul><li id=\"x1\" data-a=\"b\"></li></ul>"}],
       "report_requests": true}
"markup" (optional, also in a frame) is extra HTML for the document's body, for selectors a plain <div id class> cannot match;
its elements with an id are reported like the others.
Prints {"<page url>": {"<document url>": [hidden ids, sorted]}} as JSON. With "report_requests", each page
also has "requests": the plan's frame and image URLs of that page that reached the proxy (the others
were blocked), so network rules can be judged inside frames too. Exit 0, or 1 when a list
does not compile or a page does not report, 2 without a display.
All traffic stays on 127.0.0.1: the proxy answers everything itself and never connects out.
"""
import json
import os
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ListCompileError, ProxyLog, make_proxy, open_webview  # noqa: E402

PATH_PREFIX = "/__lshide__/"

REPORT_SCRIPT = """<script>
function hiddenIds() {
  return Array.from(document.querySelectorAll('[id]')).filter(e => getComputedStyle(e).display === 'none').map(e => e.id).sort();
}
</script>"""


def elements_html(ids):
    return "".join('<div id="%s" class="%s">%s</div>' % (i, i, i) for i in ids)


def frame_html(ids, images=(), markup=""):
    return """<!doctype html><html><head><title>frame</title>%s</head><body>%s%s%s<script>
window.addEventListener('load', () => setTimeout(() => parent.postMessage({url: location.href, hidden: hiddenIds()}, '*'), 300));
</script></body></html>""" % (REPORT_SCRIPT, elements_html(ids), "".join('<img src="%s">' % url for url in images), markup)


def page_html(ids, frame_urls, images, markup=""):
    frames = "".join('<iframe src="%s"></iframe>' % url for url in frame_urls)
    frames += "".join('<img src="%s">' % url for url in images)
    frames += markup
    return """<!doctype html><html><head><title>loading</title>%s</head><body>%s%s<script>
const report = {}; let pending = %d;
function finish() { report[location.href] = hiddenIds(); window.lsReport = report; document.title = 'done:' + location.href; }
window.addEventListener('message', (event) => { report[event.data.url] = event.data.hidden; if (--pending === 0) finish(); });
window.addEventListener('load', () => { if (pending === 0) setTimeout(finish, 300); });
setTimeout(finish, 4000);
</script></body></html>""" % (REPORT_SCRIPT, elements_html(ids), frames, len(frame_urls))


def page_report(view):
    """The JSON text of the loaded page's `lsReport` (set by page_html's finish())."""
    from gi.repository import GLib
    loop, holder = GLib.MainLoop(), {}

    def evaluated(source, result, *_):
        try:
            holder["text"] = source.evaluate_javascript_finish(result).to_string()
        except GLib.Error as error:
            holder["text"] = "null"
            print("hiding_check.py: reading the page's report failed: %s" % error.message, file=sys.stderr)
        loop.quit()

    view.evaluate_javascript("JSON.stringify(window.lsReport)", -1, None, None, None, evaluated)
    loop.run()
    return holder["text"]


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as handle:
        plan = json.load(handle)

    import gi
    gi.require_version("WebKit2", "4.1")
    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk

    if not Gtk.init_check(sys.argv)[0]:
        print("hiding_check.py: no display; run under xvfb-run -a", file=sys.stderr)
        return 2

    log = ProxyLog()
    proxy = make_proxy(log)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    proxy_url = "http://127.0.0.1:%d" % proxy.server_address[1]
    store_dir = tempfile.mkdtemp(prefix="listserver-hiding-")
    results = {}
    try:
        try:
            view, window = open_webview([(str(index), rules) for index, rules in enumerate(plan["lists"])],
                                        proxy_url, store_dir)
        except ListCompileError as error:
            print(str(error), file=sys.stderr)
            return 1

        for number, page in enumerate(plan["pages"]):
            frames = page.get("frames", [])
            # Every document gets its own path, so the proxy can tell them apart whatever the host.
            frame_urls = []
            for frame_number, frame in enumerate(frames):
                path = "%s%d-%d" % (PATH_PREFIX, number, frame_number)
                log.pages[path] = frame_html(frame["elements"], frame.get("images", []), frame.get("markup", ""))
                frame_urls.append(frame["url"].rstrip("/") + path)
            path = "%s%d" % (PATH_PREFIX, number)
            log.pages[path] = page_html(page["elements"], frame_urls, page.get("images", []), page.get("markup", ""))
            url = page["url"].rstrip("/") + path
            loop = GLib.MainLoop()
            start = time.monotonic()
            seen_before = len(log.snapshot())

            def reported_here(title):
                # The previous page's "done:" title can still be up when this load starts.
                return title == "done:" + url

            def poll():
                if reported_here(view.get_title() or "") or time.monotonic() - start > 10:
                    loop.quit()
                    return False
                return True

            view.load_uri(url)
            GLib.timeout_add(50, poll)
            loop.run()
            title = view.get_title() or ""
            if not reported_here(title):
                print("page %s did not report within 10 s" % url, file=sys.stderr)
                return 1
            # The report is read from the page, not the title: WebKit cuts titles at about 1,000 characters.
            reported = json.loads(page_report(view))
            # Report under the URLs the plan gave (without the harness path).
            named = {page["url"]: reported.get(url)}
            for frame, frame_url in zip(frames, frame_urls):
                named[frame["url"]] = reported.get(frame_url)
            if plan.get("report_requests"):
                seen = set(log.snapshot()[seen_before:])
                requested = [image for image in page.get("images", []) if image in seen]
                for frame, frame_url in zip(frames, frame_urls):
                    if frame_url in seen:
                        requested.append(frame["url"])
                    requested += [image for image in frame.get("images", []) if image in seen]
                named["requests"] = sorted(requested)
            results[page["url"]] = named
        window.destroy()
    finally:
        proxy.shutdown()
        proxy.server_close()
        shutil.rmtree(store_dir, ignore_errors=True)
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
