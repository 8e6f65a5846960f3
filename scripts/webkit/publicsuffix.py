"""Registrable domains from the Public Suffix List (Debian package `publicsuffix`).

Why: WebKit's `load-type` compares registrable domains (eTLD+1) of the request and the page, so
`www.news.example` loading `news.example` is first party. This follows the PSL algorithm
(https://publicsuffix.org/list/): longest matching rule, `*` wildcards, `!` exceptions.
"""
import ipaddress

DEFAULT_PATH = "/usr/share/publicsuffix/public_suffix_list.dat"


class PublicSuffixList:
    def __init__(self, path=DEFAULT_PATH):
        self.rules = set()
        self.exceptions = set()
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if not line or line.startswith("//"):
                    continue
                rule = line.split()[0].lower()
                try:
                    rule = rule.encode("idna").decode("ascii") if not rule.isascii() else rule
                except UnicodeError:
                    continue
                if rule.startswith("!"):
                    self.exceptions.add(rule[1:])
                else:
                    self.rules.add(rule)
        self._cache = {}

    def _suffix_length(self, labels):
        """Number of labels in the public suffix of `labels` (implicit rule `*` gives 1)."""
        for start in range(len(labels)):
            candidate = ".".join(labels[start:])
            if candidate in self.exceptions:
                return len(labels) - start - 1
            if candidate in self.rules:
                return len(labels) - start
            wildcard = ".".join(["*"] + labels[start + 1:])
            if start + 1 <= len(labels) - 1 and wildcard in self.rules:
                return len(labels) - start
        return 1

    def registrable_domain(self, host):
        """eTLD+1 of `host`; the host itself for IP addresses and hosts that are public suffixes."""
        host = (host or "").lower().rstrip(".")
        cached = self._cache.get(host)
        if cached is not None:
            return cached
        result = host
        try:
            ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            labels = host.split(".")
            suffix = self._suffix_length(labels)
            if len(labels) > suffix:
                result = ".".join(labels[-(suffix + 1):])
        self._cache[host] = result
        return result
