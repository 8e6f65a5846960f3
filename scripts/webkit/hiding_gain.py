#!/usr/bin/env python3
"""Elements one converted set hides that another does not, in a real WebView, for the hiding rules
that name entity domains (`name.*`) beside plain ones.

Why: such a rule used to be skipped whole; now its plain sites are converted. This counts what that
gains (and proves nothing is lost) with hiding_check.py, on pages of the rules' plain sites, of their
entity sites (`name.com` where no plain site of them covers it: nothing may be gained there) and of the request sample's source pages.

Run under Xvfb:
  xvfb-run -a .venv/bin/python scripts/webkit/hiding_gain.py BASE_SET NEW_SET --abp LIST... \\
      [--requests Tests/Fixtures/requests/dev-sample.jsonl] [--json]
BASE_SET and NEW_SET are set directories (manifest.json and the lists it names), e.g. the output of
`listserver convert` from two builds; only their `cosmetic-*` lists are installed (a network list could
block the page itself). Each page carries one element per selector of those rules
(built from the selector: tag, id, classes, attributes, descendant and child combinators; selectors
with pseudo-classes or sibling combinators are counted as not built). Prints a summary; exit 0, or
1 when hiding_check.py fails.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import load_set  # noqa: E402
from harness import to_http  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
COSMETIC = re.compile(r"^([^#\[\]!][^#]*)##(.+)$")
# Tags the HTML parser would drop or move when written in a <body>.
UNBUILDABLE_TAGS = {"html", "head", "body", "script", "style", "title", "meta", "link", "table", "tbody", "thead",
                    "tfoot", "tr", "td", "th", "caption", "colgroup", "col", "option", "optgroup", "template"}
VOID_TAGS = {"img", "input", "br", "hr", "embed", "source", "track", "wbr", "area", "base", "param"}


def mixed_entity_rules(paths):
    """[(plain sites, entity names, selector)] for `##` lines whose sites mix `name.*` and plain domains."""
    rules = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                match = COSMETIC.match(line.rstrip("\n"))
                if not match:
                    continue
                sites = [site.strip() for site in match.group(1).split(",")]
                included = [site for site in sites if not site.startswith("~")]
                entities = [site[:-2] for site in included if site.endswith(".*")]
                plain = [site for site in included if not site.endswith(".*")]
                if entities and plain and not match.group(2).startswith("+js("):
                    rules.append((plain, entities, match.group(2)))
    return rules


def top_level(text):
    """(index, char) of every character of `text` outside brackets, parentheses, quotes and escapes."""
    depth, quote, index = 0, None, 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 2
            continue
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0:
            yield index, char
        index += 1


def split_top_level(text, separator):
    cuts = [index for index, char in top_level(text) if char == separator]
    return [text[start + 1:end] for start, end in zip([-1] + cuts, cuts + [len(text)])]


def read_ident(text, index):
    out = []
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            hex_digits = re.match(r"[0-9a-fA-F]{1,6} ?", text[index + 1:])
            if hex_digits:
                out.append(chr(int(hex_digits.group(0).strip(), 16)))
                index += 1 + len(hex_digits.group(0))
            else:
                out.append(text[index + 1])
                index += 2
        elif char.isalnum() or char in "-_" or ord(char) > 127:
            out.append(char)
            index += 1
        else:
            break
    return "".join(out), index


def compound(text):
    """{"tag", "attrs"} for one compound selector, or None when it has a pseudo-class or is unknown."""
    tag, attrs, classes, index = None, {}, [], 0
    if text.startswith("*"):
        index = 1
    elif text and (text[0].isalpha()):
        tag, index = read_ident(text, 0)
        tag = tag.lower()
    while index < len(text):
        char = text[index]
        if char in "#.":
            name, index = read_ident(text, index + 1)
            if not name:
                return None
            if char == "#":
                attrs["id"] = name
            else:
                classes.append(name)
        elif char == "[":
            match = re.match(r"\[\s*([\w-]+)\s*(?:([~|^$*]?=)\s*(\"[^\"]*\"|'[^']*'|[^\]\s]+)\s*(?:[iIsS]\s*)?)?\]", text[index:])
            if not match:
                return None
            value = match.group(3) or "1"
            if value[0] in "\"'":
                value = value[1:-1]
            attrs[match.group(1).lower()] = value
            index += match.end()
        else:
            return None
    if classes:
        attrs["class"] = " ".join(classes + ([attrs["class"]] if "class" in attrs else []))
    if tag in UNBUILDABLE_TAGS:
        return None
    return {"tag": tag, "attrs": attrs}


def compounds(selector):
    """The compound selectors of a complex one, split at descendant and child combinators; None for a
    sibling combinator."""
    parts, start = [], 0
    for index, char in top_level(selector):
        if char in "+~":
            return None
        if char.isspace() or char == ">":
            parts.append(selector[start:index])
            start = index + 1
    parts.append(selector[start:])
    return [part for part in parts if part]


def split_has(part):
    """`x:has(y)` → ("x", "y"); anything else → (part, None)."""
    start = part.find(":has(")
    if start < 0:
        return part, None
    depth, index = 0, start + 4
    while index < len(part):
        depth += {"(": 1, ")": -1}.get(part[index], 0)
        if depth == 0:
            break
        index += 1
    if index != len(part) - 1:
        return part, ""  # something after `:has(...)`: not built
    return part[:start], part[start + 5:index]


def build(selector, number):
    """(markup, reported id) for an element `selector` matches, or None when it cannot be built.
    `x:has(y)` becomes an element for x holding one for y."""
    chain = []
    for part in compounds(selector.strip()) or []:
        base, inner = split_has(part)
        built = compound(base)
        if built is None or inner == "":
            return None
        if inner is not None:
            content = build(inner, number)
            if content is None:
                return None
            built["content"] = content[0].replace(' id="gain-%d"' % number, "", 1)
        chain.append(built)
    if not chain:
        return None
    target = chain[-1]
    target["attrs"].setdefault("id", "gain-%d" % number)
    markup, closing, parent = "", "", None
    for element in chain:
        tag = element["tag"] or ("span" if parent in ("p", "span", "a") else "div")
        attrs = "".join(' %s="%s"' % (name, value.replace("&", "&amp;").replace('"', "&quot;"))
                        for name, value in element["attrs"].items())
        markup += "<%s%s>%s" % (tag, attrs, element.get("content", ""))
        if element.get("content") and tag in VOID_TAGS:
            return None
        if tag not in VOID_TAGS:
            closing = "</%s>" % tag + closing
        elif element is not target:
            return None
        parent = tag
    return markup + closing, target["attrs"]["id"]


def hidden(lists, pages):
    plan = {"lists": lists, "pages": pages}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(plan, handle)
        plan_path = handle.name
    try:
        finished = subprocess.run([sys.executable, os.path.join(HERE, "hiding_check.py"), plan_path],
                                  capture_output=True, text=True)
    finally:
        os.unlink(plan_path)
    if finished.returncode != 0:
        raise RuntimeError("hiding_check.py: " + finished.stderr[-2000:])
    return json.loads(finished.stdout)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--abp", nargs="+", required=True)
    parser.add_argument("--requests")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pages", nargs="+", help="only these page URLs (as printed), e.g. to look at a difference again")
    args = parser.parse_args(argv)

    rules = mixed_entity_rules(args.abp)
    markup, targets, unbuilt = "", set(), 0
    number = 0
    for _, _, selector in rules:
        for alternative in split_top_level(selector, ","):
            number += 1
            element = build(alternative, number)
            if element is None:
                unbuilt += 1
                continue
            markup += element[0]
            targets.add(element[1])
    site_pages = sorted({"http://%s/" % site for plain, _, _ in rules for site in plain})
    plain_sites = {site for plain, _, _ in rules for site in plain}
    # `name.com` pages that no plain site of these rules covers: nothing may be gained there.
    entity_pages = sorted({"http://%s.com/" % name for _, names, _ in rules for name in names
                           if not any(("%s.com" % name).endswith("." + site) or "%s.com" % name == site for site in plain_sites)})
    sample_pages = []
    if args.requests:
        with open(args.requests, encoding="utf-8") as handle:
            sources = {json.loads(line).get("source") for line in handle if line.strip()}
        sample_pages = sorted({to_http(source).split("?")[0].rstrip("/") + "/" for source in sources if source})
    groups = {"plain sites": site_pages, "entity sites": entity_pages, "sample pages": sample_pages}
    if args.pages:
        groups = {name: [url for url in urls if url in args.pages] for name, urls in groups.items()}
    pages = [{"url": url, "elements": [], "frames": [], "markup": markup}
             for url in dict.fromkeys(url for urls in groups.values() for url in urls)]

    try:
        # Only the hiding lists (site exceptions included): a network list could block the page itself.
        base = hidden([rules for name, rules in load_set(args.base) if name.startswith("cosmetic")], pages)
        new = hidden([rules for name, rules in load_set(args.new) if name.startswith("cosmetic")], pages)
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    summary = {"rules": len(rules), "selectors_built": len(targets), "selectors_not_built": unbuilt, "groups": {}}
    examples, lost_examples = [], []
    for name, urls in groups.items():
        gained = lost = pages_gaining = 0
        for url in urls:
            if base[url][url] is None or new[url][url] is None:
                print("%s did not report" % url, file=sys.stderr)
                return 1
            before = set(base[url][url]) & targets
            after = set(new[url][url]) & targets
            gained += len(after - before)
            lost += len(before - after)
            pages_gaining += bool(after - before)
            if after - before and (len(examples) < 10 or name == "entity sites"):
                examples.append("%s: %s" % (url, " ".join(sorted(after - before))))
            if before - after:
                lost_examples.append("%s: %s" % (url, " ".join(sorted(before - after))))
        summary["groups"][name] = {"pages": len(urls), "pages_gaining": pages_gaining, "elements_gained": gained,
                                   "elements_lost": lost}
    summary["examples"] = examples
    summary["lost"] = lost_examples
    if args.json:
        print(json.dumps(summary))
    else:
        print("%d mixed name.* rules; %d selectors built, %d not" % (len(rules), len(targets), unbuilt))
        for name, group in summary["groups"].items():
            print("%-13s %4d pages, %4d gaining: %4d elements gained, %d lost" % (
                name, group["pages"], group["pages_gaining"], group["elements_gained"], group["elements_lost"]))
        for example in examples:
            print("  gained " + example)
        for example in lost_examples:
            print("  lost " + example)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
