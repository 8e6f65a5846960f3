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
import json
import os
import random
import sys
import tempfile
import shutil
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import Evaluator, load_set, normalize_url  # noqa: E402
from harness import (ListCompileError, PageRunner, ProxyLog, make_proxy, open_webview,  # noqa: E402
                     page_groups, to_http)

TESTED_TYPES = ("script", "image", "stylesheet", "xmlhttprequest", "subdocument", "ping", "font", "document")


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
    from gi.repository import Gtk

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

        runner = PageRunner(view, log)
        results, reported = [], 0
        for host, items in page_groups(sample):
            if time.monotonic() > deadline_total:
                break
            page_url, seen, page_loaded, page_finished = runner.issue(host, items, args.page_timeout)
            if runner.pages >= reported + 100:
                reported = runner.pages
                print("webview_check: %d pages, %d requests, %.0f s" % (runner.pages, len(results), time.monotonic() - started),
                      file=sys.stderr, flush=True)
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
            ours = evaluator.decide(url, "", "document")
            seen = runner.navigate(url)
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
        "pages": runner.pages,
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
            summary["checked"], runner.pages, summary["webkit_blocked"], summary["agreement_percent"], len(differences)))
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
