#!/usr/bin/env python3
"""How exactly converted sets block when requests come from iframes, judged the way ABP judges them.

ABP (adblock-rust, our reference) decides `$domain=` and `$third-party` against the document that
issues a request; inside an iframe that is the frame's URL, while WebKit's `if-domain` / `load-type`
look at the top page. None of webview_check.py's cases shows this: there the source is the top page.

Run under Xvfb:
  xvfb-run -a .venv/bin/python scripts/webkit/frames_check.py SET... --abp LIST... \\
      [--requests dev-sample.jsonl] [--sample 300] [--json-out FILE]
SET is a converted set directory (manifest.json) or one rule-array file (`.json` / `.json.gz`, e.g.
SafariConverterLib's output); name it with NAME=PATH. Each set is installed in its own WebView.

Cases, from the request sample (http:// for both sides, as webview_check.py):
- top: the request is issued by a page on its source's host (the source is the top page), and
  ABP is given that page as the source; `document` requests are top-frame navigations.
- frame: the request is issued by an iframe on its source's host, embedded in a top page of another
  site: `top_site_for` picks it from the sample's other source sites by a hash of the request, so the
  choice is fixed. ABP is given the frame as the source. No `document` requests (a navigation is
  never made by a frame).
A request the loopback proxy saw was allowed by WebKit; requests whose issuing document was blocked
or did not report are left out and counted. Disagreements are over-blocks (WebKit blocks, ABP allows)
and under-blocks, each put down to the ABP rule that decides (`cause`).
Prints a table; `--json-out` writes the whole report. Exit 0 when it ran, 1 when a set does not
compile, 2 without a display.
"""
import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import load_set, normalize_url  # noqa: E402
from harness import ListCompileError, PageRunner, ProxyLog, make_proxy, open_webview, page_groups, to_http  # noqa: E402
from publicsuffix import PublicSuffixList  # noqa: E402
from semantic import DEFAULT_REQUESTS, abp_decision, abp_engine  # noqa: E402
from webview_check import TESTED_TYPES  # noqa: E402

PARTY_OPTIONS = {"third-party", "~third-party", "3p", "~3p", "first-party", "~first-party", "1p", "~1p"}


def filter_options(text):
    """The `$` options of an ABP network filter, as a list (none for a filter without options)."""
    if not text or "$" not in text:
        return []
    return [option.strip() for option in text.rsplit("$", 1)[1].split(",")]


def domain_matches(host, domains, psl):
    """Whether ABP's `domain=` list (`a.com|~b.com|name.*`) applies on a document at `host`."""
    included, excluded = [], []
    for value in domains.split("|"):
        (excluded if value.startswith("~") else included).append(value.lstrip("~"))

    def hit(value):
        if value.endswith(".*"):
            registrable = psl.registrable_domain(host)
            return registrable.split(".")[0] == value[:-2] or host == value[:-2]
        return host == value or host.endswith("." + value)

    if any(hit(value) for value in excluded):
        return False
    return not included or any(hit(value) for value in included)


def cause(filter_text, url_host, page_host, top_host, psl):
    """`$domain`, `$third-party` or `other`: which condition of the deciding ABP filter makes the
    difference. In a frame case, the condition whose answer differs between the frame (`page_host`)
    and the top page (`top_host`, what WebKit sees); in a top case, the condition the filter has."""
    options = filter_options(filter_text)
    domains = next((o.split("=", 1)[1] for o in options if o.startswith(("domain=", "from="))), None)
    party = any(o in PARTY_OPTIONS for o in options)
    if top_host is None:
        return "$domain" if domains else "$third-party" if party else "other"
    if domains and domain_matches(page_host, domains, psl) != domain_matches(top_host, domains, psl):
        return "$domain"
    site = psl.registrable_domain(url_host)
    if party and (site == psl.registrable_domain(page_host)) != (site == psl.registrable_domain(top_host)):
        return "$third-party"
    return "other"


def top_site_for(key, source_host, sites, psl):
    """The top-page host a frame case embeds a document on `source_host` in: one of `sites` (sorted)
    chosen by a hash of `key` (what the case is about), never the source's own site."""
    own = psl.registrable_domain(source_host)
    others = [site for site in sites if site != own]
    digest = hashlib.sha256(key.encode()).digest()
    return "www." + others[int.from_bytes(digest[:8], "big") % len(others)]


def choose_requests(requests, engine, size, seed):
    """Requests a page can issue: with `size` > 0, first those whose ABP decision a `$domain`,
    `$third-party` or exception decides (every one of the few), then random others up to `size`."""
    eligible = [r for r in requests if r["type"] in TESTED_TYPES and r["url"].startswith(("http://", "https://"))]
    if size == 0:
        return eligible
    conditioned, plain = [], []
    for request in eligible:
        url, source = to_http(request["url"]), to_http(request.get("source") or "")
        blocked, deciding = abp_decision(engine, url, source or url, request["type"])
        options = filter_options(deciding)
        decided_by_condition = (not blocked and deciding) or any(
            o.startswith(("domain=", "from=")) or o in PARTY_OPTIONS for o in options)
        (conditioned if decided_by_condition else plain).append(request)
    rng = random.Random(seed)
    rng.shuffle(conditioned)
    rng.shuffle(plain)
    return (conditioned + plain)[:size]


def plan_cases(sample, psl):
    """(top pages, frame pages, navigations): pages as (source host, top host or None, requests)."""
    sites = sorted({psl.registrable_domain(normalize_url(to_http(r["source"]))[1]) for r in sample if r.get("source")})
    top = [(host, None, items) for host, items in page_groups(sample)]
    by_top = {}
    for request in sample:
        if request["type"] != "document" and request.get("source") and len(sites) > 1:
            key = "%s %s %s" % (request["url"], request["source"], request["type"])
            top_host = top_site_for(key, normalize_url(to_http(request["source"]))[1], sites, psl)
            by_top.setdefault(top_host, []).append(request)
    frames = [(host, top_host, items) for top_host, requests in sorted(by_top.items())
              for host, items in page_groups(requests)]
    navigations = [to_http(r["url"]) for r in sample if r["type"] == "document"]
    return top, frames, navigations


def run_set(lists, cases, proxy_url, log, page_timeout, deadline):
    """WebKit's decisions for every case with `lists` installed: [(kind, url, type, issuing document URL,
    top host or None, webkit_blocked or None when the issuing document did not load or report)]."""
    pages, frames, navigations = cases
    store_dir = tempfile.mkdtemp(prefix="listserver-frames-")
    try:
        view, window = open_webview(lists, proxy_url, store_dir)
        runner = PageRunner(view, log)
        decisions = []
        for kind, groups in (("top", pages), ("frame", frames)):
            for host, top_host, items in groups:
                if time.monotonic() > deadline:
                    break
                document, seen, loaded, finished = runner.issue(host, items, page_timeout, top_host=top_host)
                for item in items:
                    blocked = normalize_url(item["http_url"])[0] not in seen if loaded and finished else None
                    decisions.append((kind, item["http_url"], item["type"], document, top_host, blocked))
        for url in navigations:
            if time.monotonic() > deadline:
                break
            decisions.append(("top", url, "document", url, None, normalize_url(url)[0] not in runner.navigate(url)))
        window.destroy()
        return decisions
    finally:
        shutil.rmtree(store_dir, ignore_errors=True)


def compare(decisions, engine, psl, examples):
    """Per case kind: agreement with ABP, over- and under-blocks by cause."""
    report = {}
    for kind in ("frame", "top"):
        rows = [d for d in decisions if d[0] == kind]
        checked = [d for d in rows if d[5] is not None]
        summary = {"requests": len(rows), "not_loaded": len(rows) - len(checked), "checked": len(checked), "agree": 0,
                   "over_blocks": 0, "under_blocks": 0, "webkit_blocked": 0, "abp_blocked": 0,
                   "over_by_cause": {}, "under_by_cause": {}, "examples": []}
        for _, url, abp_type, document, top_host, webkit_blocked in checked:
            abp_blocked, deciding = abp_decision(engine, url, document, abp_type)
            summary["webkit_blocked"] += webkit_blocked
            summary["abp_blocked"] += abp_blocked
            if abp_blocked == webkit_blocked:
                summary["agree"] += 1
                continue
            top_url = "http://%s/" % top_host if top_host else None
            if webkit_blocked and not deciding and top_url:
                # ABP matched nothing in the frame: the filter WebKit applied is the one ABP applies on the top page.
                deciding = abp_decision(engine, url, top_url, abp_type)[1]
            label = "over" if webkit_blocked else "under"
            why = cause(deciding, normalize_url(url)[1], normalize_url(document)[1], top_host, psl)
            summary["%s_blocks" % label] += 1
            summary["%s_by_cause" % label][why] = summary["%s_by_cause" % label].get(why, 0) + 1
            if len(summary["examples"]) < examples:
                summary["examples"].append({"kind": label, "cause": why, "url": url, "type": abp_type,
                                            "document": document, "top": top_url, "abp_rule": deciding})
        summary["agreement_percent"] = round(100.0 * summary["agree"] / max(1, len(checked)), 3)
        report[kind] = summary
    return report


def print_table(report):
    print("%-22s %-5s %8s %10s %5s %5s  %-40s %s" % ("set", "case", "checked", "agreement", "over", "under",
                                                     "over by cause", "under by cause"))
    for name, result in report["sets"].items():
        if "error" in result:
            print("%-22s %s" % (name, result["error"]))
            continue
        for kind in ("frame", "top"):
            row = result[kind]
            print("%-22s %-5s %8d %9.3f%% %5d %5d  %-40s %s" % (
                name, kind, row["checked"], row["agreement_percent"], row["over_blocks"], row["under_blocks"],
                json.dumps(row["over_by_cause"], sort_keys=True), json.dumps(row["under_by_cause"], sort_keys=True)))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+", help="[NAME=]PATH: a set directory or one rule-array file (.json, .json.gz)")
    parser.add_argument("--abp", nargs="+", required=True, help="the ABP filter lists the sets were converted from")
    parser.add_argument("--requests", default=DEFAULT_REQUESTS)
    parser.add_argument("--sample", type=int, default=300, help="requests to check (0: every one a page can issue)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--page-timeout", type=float, default=8.0)
    parser.add_argument("--time-limit", type=float, default=3600.0, help="seconds of page loads per set")
    parser.add_argument("--examples", type=int, default=40)
    parser.add_argument("--json-out", help="file to write the report to")
    args = parser.parse_args(argv)

    import gi
    gi.require_version("Gtk", "3.0")
    from gi.repository import Gtk
    if not Gtk.init_check(sys.argv)[0]:
        print("frames_check.py: no display; run under xvfb-run -a", file=sys.stderr)
        return 2

    psl = PublicSuffixList()
    engine = abp_engine(args.abp)
    with open(args.requests, encoding="utf-8") as handle:
        requests = [json.loads(line) for line in handle if line.strip()]
    sample = choose_requests(requests, engine, args.sample, args.seed)
    cases = plan_cases(sample, psl)
    report = {"requests": args.requests, "sample": len(sample), "seed": args.seed, "abp": args.abp, "sets": {}}

    log = ProxyLog()
    proxy = make_proxy(log)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    proxy_url = "http://127.0.0.1:%d" % proxy.server_address[1]
    status = 0
    try:
        for given in args.sets:
            name, _, path = given.rpartition("=")
            name = name or os.path.basename(os.path.normpath(path))
            started = time.monotonic()
            try:
                decisions = run_set(load_set(path), cases, proxy_url, log, args.page_timeout, started + args.time_limit)
            except ListCompileError as error:
                report["sets"][name] = {"path": path, "error": str(error)}
                status = 1
                continue
            result = compare(decisions, engine, psl, args.examples)
            result.update(path=path, seconds=round(time.monotonic() - started, 1))
            report["sets"][name] = result
            print("frames_check: %s done in %.0f s" % (name, result["seconds"]), file=sys.stderr, flush=True)
    finally:
        proxy.shutdown()
        proxy.server_close()
    report["unexpected_connects"] = sum(1 for url in log.snapshot() if url.startswith("CONNECT "))
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    print_table(report)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
