#!/usr/bin/env python3
"""Element hiding judged in the frame's document, the way ABP judges it, in real WebKit.

ABP applies a site's `##` selectors (and its `#@#` exceptions) in every document of that site, iframes
included, and never a top page's selectors inside a foreign iframe. WebKit's `if-domain` looks at the
top page. This measures what that costs each converted set, beside the same pages loaded as the top.
ABP checks `$generichide` (and `$elemhide`) exceptions up the frame chain, so a top page's `$generichide`
also turns generic hiding off in its frames; adblock-rust, given one URL, cannot, so that part is
modelled here (the 2025-10 lists have no `$elemhide`).

Run under Xvfb:
  xvfb-run -a .venv/bin/python scripts/webkit/hiding_frames.py SET... --abp LIST... \\
      [--requests dev-sample.jsonl] [--pages 120] [--json-out FILE]
SET is [NAME=]PATH as for frames_check.py; only its hiding rules are installed (`cosmetic-*` lists of a
set directory; the css-display-none and ignore-previous-rules rules of a single list), so no block rule
can stop a harness page.

Pages: the request sample's source sites (a fixed hash-ordered subset of `--pages`). For a site S,
adblock-rust's selectors for S less those of a neutral page are S's own selectors; those of the neutral
page that S lacks are the generic ones S excepts. Each document carries one element per such selector of
S and of the foreign top site T that frames_check.top_site_for picks for S (hiding_gain.build makes
them). Cases: S's page as the top; S's page in an iframe under T's page. ABP hides an element in S's
document exactly when its selector is among adblock-rust's selectors for S. An element real WebKit hides
(or not) on a neutral page unlike adblock-rust there is matched by some other rule (a class or id
generic) and left out. Over-hides: WebKit hides, ABP does not; under-hides: the reverse.
Prints a table; exit 0 when it ran, 1 when hiding_check.py failed.
"""
import argparse
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import load_set, normalize_url  # noqa: E402
from frames_check import top_site_for  # noqa: E402
from harness import to_http  # noqa: E402
from hiding_gain import build, hidden  # noqa: E402
from publicsuffix import PublicSuffixList  # noqa: E402
from semantic import DEFAULT_REQUESTS, abp_engine  # noqa: E402

NEUTRAL = "http://neutral-page.example/"
HIDING_ACTIONS = ("css-display-none", "ignore-previous-rules")


def hiding_lists(path):
    """The rule arrays of a set that can hide elements or cancel hiding."""
    lists = load_set(path)
    if os.path.isfile(path):
        return [[rule for rule in array if rule.get("action", {}).get("type") in HIDING_ACTIONS] for _, array in lists]
    return [array for name, array in lists if name.startswith("cosmetic")]


class Selectors:
    """adblock-rust's hiding selectors per host, and one element per selector (ids fixed per selector)."""

    def __init__(self, engine):
        self.engine, self.cache = engine, {}
        self.neutral = self.of(NEUTRAL)
        self.elements = {}

    def of(self, url):
        if url not in self.cache:
            self.cache[url] = set(self.engine.url_cosmetic_resources(url).hide_selectors)
        return self.cache[url]

    def turned_off_by_top(self, top_url, selector):
        """Whether the top page's `$generichide` turns the generic `selector` off in the frames it embeds:
        ABP checks that exception up the frame chain (adblock-rust knows no frames)."""
        return selector in self.neutral and self.engine.url_cosmetic_resources(top_url).generichide

    def relevant(self, url):
        """The selectors whose hiding differs between a document at `url` and a neutral one."""
        return self.of(url) ^ self.neutral

    def element(self, selector):
        """(markup, id) for `selector`, or None when hiding_gain.build cannot make one."""
        if selector not in self.elements:
            self.elements[selector] = build(selector, len(self.elements) + 1)
        return self.elements[selector]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+")
    parser.add_argument("--abp", nargs="+", required=True)
    parser.add_argument("--requests", default=DEFAULT_REQUESTS)
    parser.add_argument("--pages", type=int, default=120, help="source sites to check (0: all)")
    parser.add_argument("--json-out")
    args = parser.parse_args(argv)

    psl = PublicSuffixList()
    selectors = Selectors(abp_engine(args.abp))
    with open(args.requests, encoding="utf-8") as handle:
        hosts = {normalize_url(to_http(json.loads(line).get("source") or ""))[1] for line in handle if line.strip()}
    hosts = sorted((h for h in hosts if h), key=lambda h: hashlib.sha256(h.encode()).hexdigest())
    sites = sorted({psl.registrable_domain(h) for h in hosts})
    hosts = hosts[: args.pages or None]

    cases, pages, union = [], [], {}
    for number, host in enumerate(hosts):
        top_host = top_site_for(host, host, sites, psl)
        wanted = sorted(selectors.relevant("http://%s/" % host) | selectors.relevant("http://%s/" % top_host))
        built = [(s, selectors.element(s)) for s in wanted]
        built = [(s, element) for s, element in built if element is not None]
        if not built:
            continue
        markup = "".join(element[0] for _, element in built)
        union.update((element[1], element[0]) for _, element in built)
        own = selectors.of("http://%s/" % host)
        expected = {element[1] for s, element in built if s in own}
        expected_framed = {element[1] for s, element in built
                           if s in own and not selectors.turned_off_by_top("http://%s/" % top_host, s)}
        # Distinct paths: hiding_check.py reports by page and document URL.
        url, framed, top = ("http://%s/top-%d" % (host, number), "http://%s/framed-%d" % (host, number),
                            "http://%s/embed-%d" % (top_host, number))
        cases.append((url, framed, top, {element[1] for _, element in built}, expected, expected_framed))
        pages.append({"url": url, "elements": [], "frames": [], "markup": markup})
        pages.append({"url": top, "elements": [], "frames": [{"url": framed, "elements": [], "markup": markup}]})
    neutral_expected = {element[1] for s, element in selectors.elements.items() if element and s in selectors.neutral}
    pages.append({"url": NEUTRAL, "elements": [], "frames": [], "markup": "".join(union.values())})

    report = {"sites": len(cases), "elements": len(union), "sets": {}}
    for given in args.sets:
        name, _, path = given.rpartition("=")
        name = name or os.path.basename(os.path.normpath(path))
        try:
            seen = hidden(hiding_lists(path), pages)
        except RuntimeError as error:
            print(error, file=sys.stderr)
            return 1
        confounded = set(seen[NEUTRAL][NEUTRAL] or []) ^ neutral_expected
        result = {}
        for kind in ("frame", "top"):
            row = {"documents": 0, "not_reported": 0, "elements": 0, "agree": 0, "over_hides": 0, "under_hides": 0,
                   "by_site": {}, "examples": []}
            for url, framed, top, ids, expected_top, expected_framed in cases:
                expected = expected_framed if kind == "frame" else expected_top
                document = seen.get(top, {}).get(framed) if kind == "frame" else seen.get(url, {}).get(url)
                if document is None:
                    row["not_reported"] += 1
                    continue
                row["documents"] += 1
                for element_id in ids - confounded:
                    webkit, abp = element_id in document, element_id in expected
                    row["elements"] += 1
                    row["agree"] += webkit == abp
                    if webkit != abp:
                        label = "over_hides" if webkit else "under_hides"
                        row[label] += 1
                        site = url.split("/")[2]
                        row["by_site"].setdefault(site, {}).setdefault(label, 0)
                        row["by_site"][site][label] += 1
                        if len(row["examples"]) < 20:
                            selector = next(s for s, e in selectors.elements.items() if e and e[1] == element_id)
                            row["examples"].append({"document": framed if kind == "frame" else url,
                                                    "top": top if kind == "frame" else url,
                                                    "selector": selector, "webkit": "hidden" if webkit else "shown"})
            row["agreement_percent"] = round(100.0 * row["agree"] / max(1, row["elements"]), 3)
            result[kind] = row
        result["left_out_elements"] = len(confounded)
        report["sets"][name] = result
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    print("hiding: %d sites, %d elements" % (report["sites"], report["elements"]))
    print("%-22s %-5s %9s %10s %6s %6s" % ("set", "case", "elements", "agreement", "over", "under"))
    for name, result in report["sets"].items():
        for kind in ("frame", "top"):
            row = result[kind]
            print("%-22s %-5s %9d %9.3f%% %6d %6d  %s" % (name, kind, row["elements"], row["agreement_percent"],
                                                          row["over_hides"], row["under_hides"],
                                                          json.dumps(row["by_site"], sort_keys=True)[:200]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
