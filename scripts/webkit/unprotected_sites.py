#!/usr/bin/env python3
"""The reference device's unprotected sites, in a real WebKitGTK WebView: before a main-frame
navigation (`decide-policy`), the web view's content controller gets its lists removed when the
target host is an unprotected site (or a subdomain of one) and put back otherwise, with a
generation counter so a late decision never undoes a newer one. No list is recompiled: the
compiled filters stay in the store and are only removed from and added to the controller.

Run under Xvfb:  xvfb-run -a .venv/bin/python scripts/webkit/unprotected_sites.py
    [--sync-dir DIR | --unprotected HOST ...] [--rounds N] [--json]
Give two unprotected sites of different domains for like-for-like timings (else www.<first> stands in).
With --sync-dir, the sites come from a ListSync store (state.json's manifest, as the app reads them).
Loads, through a loopback proxy that answers everything itself, a page on each host that shows an
image from `ads.example` (blocked by a one-rule list): the page's title says whether the ad loaded,
and the proxy log says whether the request left the WebView. Then times navigations that swap the
lists against navigations that do not, alternating, and prints the ratio. Exit 1 when a page on an
unprotected site did not load its ad or a page elsewhere did.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import shutil
import threading
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from webview_check import ProxyLog, make_proxy, open_webview  # noqa: E402

AD_RULES = [{"trigger": {"url-filter": "^https?://ads\\.example/"}, "action": {"type": "block"}}]
PAGE = ("<!doctype html><title>loading</title><img src='http://ads.example/banner.gif?{tag}' "
        "onload=\"document.title='ad-loaded {tag}'\" onerror=\"document.title='ad-blocked {tag}'\">")


def is_unprotected(host, sites):
    host = (host or "").lower().rstrip(".")
    return any(host == site or host.endswith("." + site) for site in sites)


class ProtectionSwitch:
    """Per web view: the lists installed on its content controller follow the main-frame target."""

    def __init__(self, manager, filters, sites):
        self.manager = manager
        self.filters = filters
        self.sites = sites
        self.protected = True
        self.generation = 0
        self.swaps = 0
        self.swap_seconds = 0.0

    def before_main_frame_navigation(self, host):
        want = not is_unprotected(host, self.sites)
        self.generation += 1
        if want == self.protected:
            return self.generation
        started = time.perf_counter()
        self.manager.remove_all_filters()
        if want:
            for content_filter in self.filters:
                self.manager.add_filter(content_filter)
        self.swap_seconds += time.perf_counter() - started
        self.protected = want
        self.swaps += 1
        return self.generation


def sites_from_sync_dir(directory):
    with open(os.path.join(directory, "state.json"), "rb") as handle:
        return json.load(handle)["manifest"].get("unprotectedSites", [])


def main(argv):
    parser = argparse.ArgumentParser(description="Unprotected sites in a real WebView: lists swapped before main-frame navigations.")
    parser.add_argument("--sync-dir", help="a ListSync store: take the unprotected sites from its manifest")
    parser.add_argument("--unprotected", action="append", default=[], help="an unprotected host (repeatable)")
    parser.add_argument("--protected-host", default="news.example", help="a host that is not unprotected")
    parser.add_argument("--other-protected-host", default="mail.example", help="a second protected site, for the no-swap timings")
    parser.add_argument("--rounds", type=int, default=10, help="timed navigation pairs (swap, no swap), alternating")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sites = sites_from_sync_dir(args.sync_dir) if args.sync_dir else [s.lower() for s in args.unprotected]
    if not sites:
        print("unprotected_sites.py: no unprotected site given (--sync-dir or --unprotected)", file=sys.stderr)
        return 2
    for host in (args.protected_host, args.other_protected_host):
        if is_unprotected(host, sites):
            print("unprotected_sites.py: %s is itself unprotected" % host, file=sys.stderr)
            return 2

    warnings.filterwarnings("ignore", category=DeprecationWarning)  # get_frame_name: the main-frame test WebKitGTK 4.1 has
    import gi
    gi.require_version("WebKit2", "4.1")
    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk, WebKit2

    if not Gtk.init_check(sys.argv)[0]:
        print("unprotected_sites.py: no display; run under xvfb-run -a", file=sys.stderr)
        return 2

    log = ProxyLog()
    log.pages = {}
    proxy = make_proxy(log)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    store_dir = tempfile.mkdtemp(prefix="listserver-unprotected-")
    try:
        view, _window = open_webview([("ads", AD_RULES)], "http://127.0.0.1:%d" % proxy.server_address[1], store_dir)
        manager = view.get_user_content_manager()
        store = WebKit2.UserContentFilterStore.new(store_dir)
        filters = []
        loop = GLib.MainLoop()

        def loaded(source, result, *_):
            filters.append(source.load_finish(result))
            loop.quit()

        store.load("l0", None, loaded)
        loop.run()
        switch = ProtectionSwitch(manager, filters, sites)

        def decide(_view, decision, kind):
            if kind == WebKit2.PolicyDecisionType.NAVIGATION_ACTION and decision.get_frame_name() is None:
                uri = decision.get_navigation_action().get_request().get_uri()
                switch.before_main_frame_navigation(GLib.Uri.parse(uri, GLib.UriFlags.NONE).get_host())
            decision.use()
            return True

        view.connect("decide-policy", decide)
        counter = [0]

        def visit(host):
            """Loads a fresh page on `host`; returns (ad loaded?, ad request seen by the proxy?, seconds)."""
            counter[0] += 1
            tag = "p%d" % counter[0]
            path = "/page-%s" % tag
            log.pages[path] = PAGE.format(tag=tag)
            before = len(log.snapshot())
            main = GLib.MainLoop()
            start = time.monotonic()

            def poll():
                if view.get_title() in ("ad-loaded " + tag, "ad-blocked " + tag) or time.monotonic() - start > 10:
                    main.quit()
                    return False
                return True

            view.load_uri("http://%s%s" % (host, path))
            GLib.timeout_add(2, poll)
            main.run()
            seconds = time.monotonic() - start
            seen = any(("banner.gif?" + tag) in url for url in log.snapshot()[before:])
            return view.get_title() == "ad-loaded " + tag, seen, seconds

        checks = []
        for host in [args.protected_host, "www." + sites[0], sites[0], args.protected_host]:
            ad, seen, _ = visit(host)
            expected = is_unprotected(host, sites)
            checks.append({"host": host, "unprotected": expected, "adLoaded": ad, "adRequestSeen": seen,
                           "ok": ad == expected and seen == expected})
        # Same page, same outcome, with and without a swap in front of it, alternating: "off" loads a
        # page on an unprotected site coming from a protected one (lists removed) or from another
        # unprotected one (nothing to do); "on" loads a protected page coming from an unprotected
        # one (lists added back) or from another protected one.
        times = {"offSwap": [], "offPlain": [], "onSwap": [], "onPlain": []}
        # The page before comes from another site in every case (a cross-site navigation either way).
        other_site = sites[1] if len(sites) > 1 else "www." + sites[0]
        other_protected = args.other_protected_host
        protected, unprotected = args.protected_host, sites[0]
        for _ in range(args.rounds):
            # Each timed load goes to the same host in both conditions; only the page before differs.
            for key, before, target in [("offSwap", protected, unprotected), ("offPlain", other_site, unprotected),
                                        ("onSwap", unprotected, protected), ("onPlain", other_protected, protected)]:
                visit(before)
                times[key].append(visit(target)[2])
        median = {key: statistics.median(values) for key, values in times.items()}
        report = {
            "sites": sites, "checks": checks, "ok": all(c["ok"] for c in checks),
            "generation": switch.generation, "swaps": switch.swaps, "compiledLists": 1, "rounds": args.rounds,
            "medianMs": {key: round(value * 1000, 2) for key, value in median.items()},
            "swapOffRatio": round(median["offSwap"] / median["offPlain"], 3),
            "swapOnRatio": round(median["onSwap"] / median["onPlain"], 3),
            "swapCallMeanUs": round(switch.swap_seconds / max(1, switch.swaps) * 1e6, 1),
        }
        if args.json:
            json.dump(report, sys.stdout)
            print()
        else:
            for check in checks:
                print("%-24s unprotected=%-5s ad loaded=%-5s ad request seen=%-5s %s" % (
                    check["host"], check["unprotected"], check["adLoaded"], check["adRequestSeen"], "ok" if check["ok"] else "WRONG"))
            m = report["medianMs"]
            print("lists removed before the navigation: median %.2f ms against %.2f ms without a swap (ratio %.3f)" % (
                m["offSwap"], m["offPlain"], report["swapOffRatio"]))
            print("lists added back before the navigation: median %.2f ms against %.2f ms without a swap (ratio %.3f)" % (
                m["onSwap"], m["onPlain"], report["swapOnRatio"]))
            print("the swap call itself (remove_all_filters, add_filter): mean %.1f us" % report["swapCallMeanUs"])
            print("%d rounds, %d swaps, generation %d, lists compiled: 1 (once, before any navigation)" % (
                args.rounds, switch.swaps, switch.generation))
        return 0 if report["ok"] else 1
    finally:
        proxy.shutdown()
        proxy.server_close()
        shutil.rmtree(store_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
