#!/usr/bin/env python3
"""What content-blocker lists cost a page load, in a real WebKitGTK WebView (run under Xvfb).

Configurations are compared in the same run, alternating their order round by round:
  --config NAME=none | NAME=DIR (a set with manifest.json) | NAME=FILE.json (one list)
Each gets its own WebView (own web process), with its lists compiled before any timing.

Traffic: every WebView sends all requests to one loopback nginx used as an HTTP forward proxy
(WebKit's custom proxy settings), so a request keeps its real host and path, and the URL the
content blocker matches is the page's real URL with `https://` turned into `http://` (a proxy
cannot see inside a CONNECT tunnel; the rules we and SafariConverterLib emit match both schemes).
nginx answers every subresource with an empty 200 at once and serves the harness pages; nothing
leaves 127.0.0.1. Its access log says which requests got through.

Three measurements per configuration and round, all timed inside the page with performance.now():
  request  a page on a real news host issues the allowed subresource requests of dev-sample.jsonl
           (allowed by every configuration: a calibration load finds them) with fetch(), 16 at a
           time; the cost per request is the elapsed time over the count;
  pages    the sample's real pages (source hosts with the most requests), each issuing its own
           requests by type (img, script, stylesheet, fetch, iframe, beacon) from its own URL;
           the time is until the last one ends (blocked ones end early, as in a real page);
  style    a page with thousands of elements (class and id names from ABP hiding selectors and
           ordinary ones), timing forced style recalculations and layouts after class changes.
Prints medians per configuration, each ratio to the configuration named by --versus, and the same
ratios over the cost above the configuration named by --baseline (the lists' own share).
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import ListCompileError, open_webview, page_html, to_http  # noqa: E402
from evaluate import load_set, normalize_url  # noqa: E402
from proc_cpu import cpu_seconds, descendants  # noqa: E402

HARNESS = "/__lspagecost__/"
# An allowed iframe loads from the loopback proxy within tens of milliseconds; a blocked one never
# fires its load event, and the page waits this bound for it (not counted in the page's time).
IFRAME_BOUND_MS = 600
SUBRESOURCE_TYPES = ("script", "image", "stylesheet", "xmlhttprequest", "subdocument", "ping", "font")
PLACEHOLDER_SOURCES = ("https://foo.com", "http://foo.com", "")


class Proxy:
    """nginx as a forward proxy on 127.0.0.1: harness pages from a directory, every other URL an
    empty 200; logs `host + uri` of each request it answers."""

    def __init__(self, work):
        self.work = work
        self.pages = os.path.join(work, "pages")
        os.makedirs(os.path.join(self.pages, HARNESS.strip("/")), exist_ok=True)
        os.chmod(work, 0o755)
        self.log = os.path.join(work, "access.log")
        import socket
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as handle:
            handle.write("""daemon off; worker_processes 1; pid %(w)s/nginx.pid; error_log %(w)s/error.log;
events { worker_connections 1024; }
http {
  log_format seen '$host$request_uri';
  access_log %(w)s/access.log seen;
  client_body_temp_path %(w)s; proxy_temp_path %(w)s; fastcgi_temp_path %(w)s; uwsgi_temp_path %(w)s; scgi_temp_path %(w)s;
  types { text/html html; }
  keepalive_requests 100000;
  server {
    listen 127.0.0.1:%(p)d default_server;
    add_header Cache-Control no-store always;
    add_header Access-Control-Allow-Origin * always;
    location %(h)s { root %(r)s; }
    location / { default_type application/javascript; return 200 ""; }
  }
}
""" % {"w": work, "p": self.port, "h": HARNESS, "r": self.pages})
        self.process = subprocess.Popen(["nginx", "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("nginx did not start; see %s/error.log" % work)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def write_page(self, name, html):
        with open(os.path.join(self.pages, HARNESS.strip("/"), name), "w", encoding="utf-8") as handle:
            handle.write(html)
        return HARNESS + name

    def seen_since(self, offset):
        """(new offset, set of host+uri lines logged after `offset`)."""
        with open(self.log, "rb") as handle:
            handle.seek(offset)
            data = handle.read()
        return offset + len(data), set(data.decode("utf-8", "replace").split("\n"))

    def log_size(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def host_uri(url):
    """The form nginx logs: host plus path and query of the normalized URL."""
    normalized = normalize_url(url)[0]
    rest = normalized.split("://", 1)[1]
    return rest


def fetch_page(urls, marker, parallel=16):
    """Issues `urls` with fetch(), `parallel` at a time; the title becomes `marker:<ms>:<count>`."""
    return """<!doctype html><html><head><title>loading</title></head><body><script>
const urls = %s; let next = 0, ended = 0; const start = performance.now();
function one() {
  if (next >= urls.length) return;
  const url = urls[next++];
  fetch(url, {mode: 'no-cors', cache: 'no-store'}).then(end, end);
}
function end() {
  ended++;
  if (ended === urls.length) document.title = %s + ':' + (performance.now() - start).toFixed(3) + ':' + urls.length;
  else one();
}
for (let i = 0; i < %d; i++) one();
</script></body></html>""" % (json.dumps(urls), json.dumps(marker), parallel)


def timed_page(items, marker):
    """page_html's requests by type, with the time since navigation start in the title: the
    document, the lists' style sheets for the new document, every subresource until the last one
    really ends (a blocked iframe fires no load event; its bound is not counted as its time)."""
    return page_html(items, marker, timed=True, iframe_bound_ms=IFRAME_BOUND_MS)


def style_page(marker, names, elements, rounds):
    """Inserts `elements` new elements (class and id names as on real pages) `rounds` times and
    forces style and layout each time: the matching every hiding selector costs each new element."""
    return """<!doctype html><html><head><title>loading</title></head><body><div id="root"></div><script>
const names = %s; const count = %d; const rounds = %d;
let seed = 7; function rnd(n) { seed = (seed * 1103515245 + 12345) %% 2147483648; return seed %% n; }
const tags = ['div', 'span', 'a', 'p', 'section', 'li', 'img', 'iframe', 'aside', 'ins'];
function batch() {
  const parts = [];
  for (let i = 0; i < count; i++) {
    const tag = tags[rnd(tags.length)];
    const cls = names[rnd(names.length)] + ' ' + names[rnd(names.length)];
    const id = rnd(4) === 0 ? ' id="' + names[rnd(names.length)] + '-' + i + '"' : '';
    parts.push('<div class="w"><' + tag + ' class="' + cls + '"' + id + ' data-n="' + i + '">x</' + tag + '></div>');
  }
  return parts.join('');
}
const batches = [batch(), batch()];
const root = document.getElementById('root');
const times = [];
for (let r = 0; r < rounds; r++) {
  const t0 = performance.now();
  root.innerHTML = batches[r %% 2];
  document.body.offsetHeight;
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
document.title = %s + ':' + times[Math.floor(times.length / 2)].toFixed(3);
</script></body></html>""" % (json.dumps(names), elements, rounds, json.dumps(marker))


def style_names(configs, limit=4000, seed=3):
    """Class names from the hiding selectors of the lists (so some elements are hidden, as on a real
    page), and as many ordinary ones."""
    import re
    found = set()
    for lists in configs.values():
        for _, array in lists:
            for rule in array:
                selector = rule.get("action", {}).get("selector")
                if selector:
                    found.update(re.findall(r"\.([A-Za-z][A-Za-z0-9_-]{2,30})", selector))
    rng = random.Random(seed)
    picked = sorted(found)
    rng.shuffle(picked)
    ordinary = ["content", "article", "header", "footer", "nav", "menu", "title", "teaser", "image", "caption", "story",
                "row", "col", "grid", "card", "link", "button", "meta", "author", "date", "list", "item", "wrapper"]
    return picked[: limit // 2] + ["%s-%d" % (rng.choice(ordinary), i) for i in range(limit // 2)]


def load_config(spec):
    name, _, target = spec.partition("=")
    if target == "none":
        return name, []
    if os.path.isdir(target):
        return name, load_set(target)
    with open(target, "rb") as handle:
        return name, [(os.path.basename(target), json.load(handle))]


def main(argv):
    parser = argparse.ArgumentParser(description="Page-load cost of content-blocker lists in a real WebView.")
    parser.add_argument("--config", action="append", required=True, help="NAME=none | NAME=DIR | NAME=FILE.json")
    parser.add_argument("--requests", default=os.path.join(os.path.dirname(__file__), "../../Tests/Fixtures/requests/dev-sample.jsonl"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pages", type=int, default=30, help="real pages from the sample (most requests first)")
    parser.add_argument("--repeat", type=int, default=2, help="times each allowed request is issued per round")
    parser.add_argument("--elements", type=int, default=6000)
    parser.add_argument("--versus", default=None, help="configuration the ratios are taken to (default: the second)")
    parser.add_argument("--baseline", default=None, help="configuration without lists (default: the first)")
    parser.add_argument("--json", default=None, help="also write every measurement to this file")
    parser.add_argument("--measure", default="request,pages,style",
                        help="comma-separated subset of request,pages,style (default: all three)")
    parser.add_argument("--per-page", action="store_true", help="also print each page's median time per configuration")
    args = parser.parse_args(argv)
    measure = set(args.measure.split(","))

    import gi
    gi.require_version("WebKit2", "4.1")
    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk, WebKit2
    if not Gtk.init_check(sys.argv)[0]:
        print("page_cost.py: no display; run under xvfb-run -a", file=sys.stderr)
        return 2

    configs = dict(load_config(spec) for spec in args.config)
    names = list(configs)
    versus = args.versus or names[1]
    baseline = args.baseline or names[0]
    with open(args.requests, encoding="utf-8") as handle:
        requests = [json.loads(line) for line in handle if line.strip()]

    work = tempfile.mkdtemp(prefix="page-cost-")
    proxy = Proxy(work)
    views = {}
    try:
        for name in names:
            store = os.path.join(work, "store-" + name)
            started = time.process_time()
            views[name] = open_webview(configs[name], proxy.url, store)
            print("page_cost: %s: %d lists, %d rules installed (%.1f s CPU to compile)" % (
                name, len(configs[name]), sum(len(a) for _, a in configs[name]), time.process_time() - started), file=sys.stderr)

        counter = [0]

        def load(name, path_host, html, timeout=60.0):
            """Loads `html` at http://<host><harness path> in the view; returns the title's payload or None."""
            counter[0] += 1
            marker = "m%d" % counter[0]
            page = proxy.write_page("%d.html" % counter[0], html.replace("__MARKER__", marker))
            view = views[name][0]
            view.load_uri("http://%s%s" % (path_host, page))
            loop = GLib.MainLoop()
            start = time.monotonic()

            def poll():
                if (view.get_title() or "").startswith(marker + ":") or time.monotonic() - start > timeout:
                    loop.quit()
                    return False
                return True

            GLib.timeout_add(5, poll)
            loop.run()
            title = view.get_title() or ""
            return title[len(marker) + 1:] if title.startswith(marker + ":") else None

        # The per-request page: a real news host (not an ad host) issuing every sampled subresource
        # URL; calibration keeps those that every configuration lets through.
        request_host = "www.spiegel.de"
        candidates = []
        seen_urls = set()
        for request in requests:
            url = to_http(request["url"])
            if request["type"] in SUBRESOURCE_TYPES and url.startswith("http://") and url not in seen_urls:
                seen_urls.add(url)
                candidates.append(url)
        allowed = set(host_uri(u) for u in candidates)
        processes = {}
        for name in names:
            offset = proxy.log_size()
            before = descendants()
            result = load(name, request_host, fetch_page(candidates, "__MARKER__"), timeout=120)
            # The web process that appeared for this view's first load is the one its pages run in.
            processes[name] = [pid for pid, comm in descendants().items() if pid not in before and "WebProces" in comm]
            if len(processes[name]) != 1:
                print("page_cost: %s: %d new web processes; CPU figures will be wrong" % (name, len(processes[name])), file=sys.stderr)
            if result is None:
                raise RuntimeError("calibration page did not finish in %s" % name)
            time.sleep(0.3)
            _, seen = proxy.seen_since(offset)
            allowed &= seen
        allowed_urls = [u for u in candidates if host_uri(u) in allowed] * args.repeat
        print("page_cost: %d of %d sampled subresource URLs pass every configuration; %d requests per round" % (
            len(allowed) , len(candidates), len(allowed_urls)), file=sys.stderr)

        # Real pages: the sample's source pages with the most requests (placeholder sources left out).
        by_page = {}
        for request in requests:
            source = request.get("source") or ""
            if source in PLACEHOLDER_SOURCES or request["type"] not in SUBRESOURCE_TYPES:
                continue
            items = by_page.setdefault(to_http(source), [])
            url = to_http(request["url"])
            if all(item["http_url"] != url for item in items):
                items.append(dict(request, http_url=url))
        pages = sorted(by_page.items(), key=lambda kv: (-len(kv[1]), kv[0]))[: args.pages]
        names_for_style = style_names(configs)

        results = {name: {key: [] for key in ("request_ms", "pages_ms", "style_ms", "request_cpu_ms", "pages_cpu_ms", "style_cpu_ms")}
                   for name in names}
        for round_index in range(args.rounds):
            order = names[round_index % len(names):] + names[: round_index % len(names)]
            for name in order:
                cpu = lambda: cpu_seconds(processes[name])
                if "request" in measure:
                    started = cpu()
                    value = load(name, request_host, fetch_page(allowed_urls, "__MARKER__"), timeout=120)
                    if value is not None:
                        elapsed, count = value.split(":")
                        results[name]["request_ms"].append(float(elapsed) / int(count))
                        results[name]["request_cpu_ms"].append((cpu() - started) * 1000.0 / int(count))
                if "pages" in measure:
                    total = 0.0
                    finished = 0
                    started = cpu()
                    for source, items in pages:
                        host = normalize_url(source)[1]
                        value = load(name, host, timed_page(items, "__MARKER__"), timeout=20)
                        if value is not None:
                            total += float(value)
                            finished += 1
                            results[name].setdefault("page_ms", {}).setdefault(source, []).append(float(value))
                    results[name]["pages_ms"].append(total)
                    results[name]["pages_cpu_ms"].append((cpu() - started) * 1000.0)
                    results[name].setdefault("pages_finished", []).append(finished)
                if "style" in measure:
                    started = cpu()
                    value = load(name, "www.spiegel.de", style_page("__MARKER__", names_for_style, args.elements, 10), timeout=120)
                    if value is not None:
                        results[name]["style_ms"].append(float(value))
                        results[name]["style_cpu_ms"].append((cpu() - started) * 1000.0)
            print("page_cost: round %d/%d done" % (round_index + 1, args.rounds), file=sys.stderr, flush=True)
        for view, window in views.values():
            window.destroy()
    finally:
        proxy.stop()
        shutil.rmtree(work, ignore_errors=True)

    median = lambda values: statistics.median(values) if values else float("nan")
    print("configurations: %s; %d rounds, alternating; %d allowed requests per round; %d real pages; %d elements" % (
        ", ".join("%s (%d rules)" % (n, sum(len(a) for _, a in configs[n])) for n in names), args.rounds,
        len(allowed_urls), len(pages), args.elements))
    for suffix, what in (("_ms", "time inside the page (wall)"), ("_cpu_ms", "CPU of the view's web process")):
      print(what + ":")
      print("%-10s %12s %10s %10s %12s %10s %10s %12s %10s %10s" % (
        "config", "request-us", "/" + versus, "lists/" + versus, "pages-ms", "/" + versus, "lists/" + versus,
        "style-ms", "/" + versus, "lists/" + versus))
      for name in names:
        row = [name]
        for key, scale in (("request" + suffix, 1000.0), ("pages" + suffix, 1.0), ("style" + suffix, 1.0)):
            mine, theirs, base = (median(results[n][key]) for n in (name, versus, baseline))
            ratio = mine / theirs if theirs else float("nan")
            extra = (mine - base) / (theirs - base) if theirs != base else float("nan")
            row += ["%.2f" % (mine * scale), "%.3f" % ratio, "%.3f" % extra]
        print("%-10s %12s %10s %10s %12s %10s %10s %12s %10s %10s" % tuple(row))
    for name in names:
        print("%-10s per round: request-us %s | pages-ms %s (finished %s) | style-ms %s" % (
            name, " ".join("%.1f" % (v * 1000) for v in results[name]["request_ms"]),
            " ".join("%.0f" % v for v in results[name]["pages_ms"]), " ".join(map(str, results[name].get("pages_finished", []))),
            " ".join("%.2f" % v for v in results[name]["style_ms"])))
        print("%-10s CPU per round: request-us %s | pages-ms %s | style-ms %s" % (
            name, " ".join("%.1f" % (v * 1000) for v in results[name]["request_cpu_ms"]),
            " ".join("%.0f" % v for v in results[name]["pages_cpu_ms"]), " ".join("%.0f" % v for v in results[name]["style_cpu_ms"])))
    if args.per_page:
        print("per page, median ms: " + " ".join("%10s" % n[:10] for n in names))
        for source, _ in pages:
            print("  %-40s %s" % (source[7:47], " ".join(
                "%10.1f" % median(results[n].get("page_ms", {}).get(source, [])) for n in names)))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
