#!/usr/bin/env python3
"""Decide blocked/allowed for a request the way WebKit's content blocker does.

Semantics (WebKit ContentExtensions, confirmed end to end in a WebView by webview_check.py):
- every list is evaluated on its own; a request is blocked when any list blocks it;
- within a list the matching rules apply in order and `ignore-previous-rules` cancels every earlier
  match of that list only: the request is blocked when the last matching block/ignore rule is a block;
- url-filter is a regex over the whole normalized URL, case-insensitive unless
  `url-filter-is-case-sensitive`;
- `resource-type` / `load-context` come from the ABP type (see ABP_TO_WEBKIT);
- `load-type` compares registrable domains of the request and the main document;
- `if-domain` / `unless-domain` match the main document's host (`*` prefix: also subdomains);
  `if-top-url` / `unless-top-url` are regexes over the main document URL, and so are `if-frame-url` /
  `unless-frame-url` (every request here is made by its page, the top frame);
- actions other than block / ignore-previous-rules (css-display-none, block-cookies, ...) never block.

Rules are indexed by the rarest trigram of a literal the regex requires, so a request only runs the
regexes of rules that could match it.

CLI: evaluate.py DIR (with manifest.json) [--requests FILE.jsonl | --url U --source S --type T] [--json]
"""
import argparse
import gzip
import json
import os
import re
import sys
from urllib.parse import urlsplit, quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from publicsuffix import PublicSuffixList  # noqa: E402

# ABP request type -> (WebKit resource-type, load-context). Requests in the sample come from the
# top page, so everything but a subdocument loads in the top frame.
ABP_TO_WEBKIT = {
    "script": ("script", "top-frame"),
    "image": ("image", "top-frame"),
    "stylesheet": ("style-sheet", "top-frame"),
    "xmlhttprequest": ("fetch", "top-frame"),
    "subdocument": ("document", "child-frame"),
    "document": ("document", "top-frame"),
    "media": ("media", "top-frame"),
    "font": ("font", "top-frame"),
    # Measured in WebKitGTK 2.50.6 (webview_check.py): navigator.sendBeacon() is matched as `other`
    # (and `raw`), never as `ping`; ABP's $ping mostly means beacons, so a ping request is `other`.
    "ping": ("other", "top-frame"),
    "websocket": ("websocket", "top-frame"),
    "other": ("other", "top-frame"),
}

_PATH_UNSAFE = set(' "<>`{}')
_QUERY_UNSAFE = set(' "<>\'')


def _encode(text, unsafe):
    out = []
    for char in text:
        if ord(char) < 0x21 or ord(char) > 0x7E or char in unsafe:
            out.append(quote(char.encode("utf-8"), safe=""))
        else:
            out.append(char)
    return "".join(out)


def normalize_url(url):
    """The URL string WebKit matches url-filters against (WHATWG-style serialization, fragment dropped)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return url, ""
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if host and not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            pass
    host = host.lower()
    port = None
    try:
        port = parts.port
    except ValueError:
        port = None
    default_ports = {"http": 80, "https": 443, "ws": 80, "wss": 443}
    netloc = host
    if ":" in host and not host.startswith("["):
        netloc = "[%s]" % host
    if port is not None and port != default_ports.get(scheme):
        netloc += ":%d" % port
    if parts.username:
        userinfo = parts.username + ((":" + parts.password) if parts.password else "")
        netloc = userinfo + "@" + netloc
    path = _encode(parts.path or "/", _PATH_UNSAFE)
    if not path.startswith("/"):
        path = "/" + path
    serialized = "%s://%s%s" % (scheme, netloc, path)
    if parts.query or url.rstrip().endswith("?"):
        serialized += "?" + _encode(parts.query, _QUERY_UNSAFE)
    return serialized, host


def required_literals(pattern):
    """Literal runs (lowercased) that every match of `pattern` must contain, at top level only."""
    runs, current = [], []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        atom = None
        if char == "\\" and i + 1 < n:
            atom = pattern[i + 1]
            i += 2
        elif char == "[":
            end = i + 1
            if end < n and pattern[end] == "^":
                end += 1
            if end < n and pattern[end] == "]":
                end += 1
            while end < n and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            i = end + 1
        elif char == "(":
            depth, end = 0, i
            while end < n:
                if pattern[end] == "\\":
                    end += 2
                    continue
                if pattern[end] == "(":
                    depth += 1
                elif pattern[end] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                end += 1
            i = end + 1
        elif char in ".^$|":
            i += 1
            if char == "|":
                return []  # alternation: no literal is required
        elif char in "*+?":
            i += 1
            continue
        else:
            atom = char
            i += 1
        quantifier = pattern[i] if i < n and pattern[i] in "*?+" else None
        if atom is not None and quantifier not in ("*", "?"):
            current.append(atom)
        if atom is None or quantifier is not None:
            if current:
                runs.append("".join(current).lower())
            current = []
    if current:
        runs.append("".join(current).lower())
    return runs


class Rule:
    __slots__ = ("list_id", "index", "action", "pattern", "regex", "case_sensitive", "resource_types",
                 "load_types", "load_contexts", "if_domain", "unless_domain", "if_top_url", "unless_top_url",
                 "if_frame_url", "unless_frame_url",
                 "literal", "source")

    def __init__(self, list_id, index, rule):
        trigger, action = rule.get("trigger", {}), rule.get("action", {})
        self.list_id, self.index, self.source = list_id, index, rule
        self.action = action.get("type")
        self.pattern = trigger.get("url-filter", "")
        self.case_sensitive = trigger.get("url-filter-is-case-sensitive") is True
        self.regex = None
        self.resource_types = set(trigger["resource-type"]) if trigger.get("resource-type") else None
        self.load_types = set(trigger["load-type"]) if trigger.get("load-type") else None
        self.load_contexts = set(trigger["load-context"]) if trigger.get("load-context") else None
        self.if_domain = self._domains(trigger.get("if-domain"))
        self.unless_domain = self._domains(trigger.get("unless-domain"))
        self.if_top_url = [self._compile(p) for p in trigger.get("if-top-url", [])] or None
        self.unless_top_url = [self._compile(p) for p in trigger.get("unless-top-url", [])] or None
        # Frame conditions: a request here is made by its page, so the frame is the page.
        self.if_frame_url = [self._compile(p) for p in trigger.get("if-frame-url", [])] or None
        self.unless_frame_url = [self._compile(p) for p in trigger.get("unless-frame-url", [])] or None
        literals = required_literals(self.pattern)
        self.literal = max(literals, key=len) if literals else ""

    @staticmethod
    def _domains(values):
        if not values:
            return None
        return [(value[1:], True) if value.startswith("*") else (value, False) for value in values]

    def _compile(self, pattern):
        return re.compile(pattern, 0 if self.case_sensitive else re.IGNORECASE)

    @staticmethod
    def _host_matches(host, domains):
        for domain, subdomains in domains:
            if host == domain or (subdomains and host.endswith("." + domain)):
                return True
        return False

    def matches(self, request):
        if self.resource_types is not None and request.resource_type not in self.resource_types:
            return False
        if self.load_contexts is not None and request.load_context not in self.load_contexts:
            return False
        if self.load_types is not None and request.load_type not in self.load_types:
            return False
        if self.if_domain is not None and not self._host_matches(request.page_host, self.if_domain):
            return False
        if self.unless_domain is not None and self._host_matches(request.page_host, self.unless_domain):
            return False
        if self.if_top_url is not None and not any(r.search(request.page_url) for r in self.if_top_url):
            return False
        if self.unless_top_url is not None and any(r.search(request.page_url) for r in self.unless_top_url):
            return False
        if self.if_frame_url is not None and not any(r.search(request.page_url) for r in self.if_frame_url):
            return False
        if self.unless_frame_url is not None and any(r.search(request.page_url) for r in self.unless_frame_url):
            return False
        if self.literal and self.literal not in request.url_lower:
            return False
        if self.regex is None:
            self.regex = self._compile(self.pattern)
        return self.regex.search(request.url) is not None

    def describe(self):
        return json.dumps(self.source, separators=(",", ":"))


class Request:
    __slots__ = ("url", "url_lower", "host", "page_url", "page_host", "resource_type", "load_context",
                 "load_type", "abp_type")

    def __init__(self, url, source, abp_type, psl):
        self.abp_type = abp_type
        self.url, self.host = normalize_url(url)
        self.url_lower = self.url.lower()
        self.resource_type, self.load_context = ABP_TO_WEBKIT.get(abp_type, ("other", "top-frame"))
        if abp_type == "document" or not source:
            # A top-frame navigation is its own main document; with no known page, so is any request
            # (the WebKit harness loads source-less requests from a page on the request's own host).
            source = url
        self.page_url, self.page_host = normalize_url(source)
        same = psl.registrable_domain(self.host) == psl.registrable_domain(self.page_host)
        self.load_type = "first-party" if same else "third-party"


class Decision:
    __slots__ = ("blocked", "rule", "cancelled_by")

    def __init__(self, blocked, rule=None, cancelled_by=None):
        self.blocked, self.rule, self.cancelled_by = blocked, rule, cancelled_by

    def as_json(self):
        return {
            "blocked": self.blocked,
            "list": self.rule.list_id if self.rule else None,
            "rule": self.rule.describe() if self.rule else None,
            "cancelled_by": self.cancelled_by.describe() if self.cancelled_by else None,
        }


class Evaluator:
    """WebKit's decision over a set of lists; build once, then `decide` per request."""

    def __init__(self, lists, psl=None):
        """`lists`: [(list_id, parsed JSON array)] in manifest order."""
        self.psl = psl or PublicSuffixList()
        self.list_ids = [list_id for list_id, _ in lists]
        rules = []
        for list_number, (list_id, array) in enumerate(lists):
            for index, raw in enumerate(array):
                action = raw.get("action", {}).get("type")
                if action not in ("block", "ignore-previous-rules"):
                    continue
                rule = Rule(list_id, index, raw)
                rules.append((list_number, rule))
        self._build_index(rules)

    def _build_index(self, rules):
        counts = {}
        grams_of = []
        for _, rule in rules:
            grams = {rule.literal[i:i + 3] for i in range(len(rule.literal) - 2)}
            grams_of.append(grams)
            for gram in grams:
                counts[gram] = counts.get(gram, 0) + 1
        self.by_gram, self.unindexed = {}, []
        for (list_number, rule), grams in zip(rules, grams_of):
            entry = (list_number, rule.index, rule)
            if grams:
                rarest = min(grams, key=lambda gram: (counts[gram], gram))
                self.by_gram.setdefault(rarest, []).append(entry)
            else:
                self.unindexed.append(entry)
        self.rule_count = len(rules)

    def decide(self, url, source, abp_type):
        request = Request(url, source, abp_type, self.psl)
        text = request.url_lower
        candidates = list(self.unindexed)
        seen = set()
        for i in range(len(text) - 2):
            gram = text[i:i + 3]
            if gram in seen:
                continue
            seen.add(gram)
            bucket = self.by_gram.get(gram)
            if bucket:
                candidates.extend(bucket)
        per_list = {}
        for list_number, index, rule in candidates:
            per_list.setdefault(list_number, []).append((index, rule))
        first_cancel = None
        for list_number in sorted(per_list):
            entries = sorted(per_list[list_number], key=lambda entry: entry[0], reverse=True)
            for index, rule in entries:
                if not rule.matches(request):
                    continue
                if rule.action == "ignore-previous-rules":
                    if first_cancel is None:
                        first_cancel = rule
                    break
                return Decision(True, rule)
        return Decision(False, cancelled_by=first_cancel)


def load_set(directory):
    """[(list_id, parsed JSON array)] for every list the manifest in `directory` names; `directory` may
    also be one rule-array file (`.json`, or `.json.gz` as a peer converter's output is stored), one list."""
    if os.path.isfile(directory):
        opener = gzip.open if directory.endswith(".gz") else open
        with opener(directory, "rb") as handle:
            return [(os.path.basename(directory).split(".")[0], json.load(handle))]
    with open(os.path.join(directory, "manifest.json"), "rb") as handle:
        manifest = json.load(handle)
    lists = []
    for entry in manifest["lists"]:
        with open(os.path.join(directory, entry["file"]), "rb") as handle:
            lists.append((entry["id"], json.load(handle)))
    return lists


def main(argv):
    parser = argparse.ArgumentParser(description="WebKit content-blocker decisions for requests.")
    parser.add_argument("directory", help="converted set: a directory with manifest.json")
    parser.add_argument("--requests", help="JSON Lines file of {url, source, type}")
    parser.add_argument("--url")
    parser.add_argument("--source", default="")
    parser.add_argument("--type", default="other")
    args = parser.parse_args(argv)
    evaluator = Evaluator(load_set(args.directory))
    if args.requests:
        with open(args.requests, encoding="utf-8") as handle:
            requests = [json.loads(line) for line in handle if line.strip()]
    elif args.url:
        requests = [{"url": args.url, "source": args.source, "type": args.type}]
    else:
        parser.error("give --requests FILE or --url URL")
    for item in requests:
        decision = evaluator.decide(item["url"], item.get("source", ""), item.get("type", "other"))
        out = {"url": item["url"], "source": item.get("source", ""), "type": item.get("type")}
        out.update(decision.as_json())
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
