import URLFilterGrammar

/// Rewrites an ABP `/regex/` (JavaScript syntax) into WebKit's url-filter subset, exactly or not at all:
/// `URLFilterParser` reads it as JavaScript (refusing lookarounds, backreferences, `\b`, `\s` and anything
/// unusual, each with a reason this maps to a `SkipReason`), `RegexExpansion` spells out `|` and `{n,m}`
/// into one or more patterns, and each is printed in WebKit's syntax: `\d` → `[0-9]`, `\w` →
/// `[A-Za-z0-9_]`, `(?:` → `(`, `\/` → `/`, everything else as written.
struct RegexFilterRewriter {
    /// The url-filters whose union matches what the regex matches (one for a regex without `|`).
    static func rewrite(_ source: ArraySlice<UInt8>) -> Result<[[UInt8]], SkipReasonError> {
        let tree: URLFilterPattern
        do {
            tree = try URLFilterParser.parse(Array(source), mode: .javaScript)
        } catch {
            return .failure(SkipReasonError(reason: skipReason(error.reason)))
        }
        let patterns: [URLFilterPattern]
        switch RegexExpansion.patterns(tree.terms) {
        case .success(let expanded): patterns = expanded
        case .failure(let error): return .failure(error)
        }
        var filters: [[UInt8]] = []
        for pattern in patterns {
            // A lone anchor is no filter; `^$` (the empty URL) is one. A branch that matches everything
            // (`a|`, `a{0}`) would make the whole regex match every URL.
            if pattern.terms.isEmpty, pattern.anchoredStart != pattern.anchoredEnd {
                return .failure(SkipReasonError(reason: .invalidFilter))
            }
            if pattern.terms.isEmpty, !pattern.anchoredStart {
                let alternates = RegexExpansion.containsAlternation(tree.terms)
                return .failure(SkipReasonError(reason: alternates ? .regexAlternation : .regexRepetition))
            }
            var printer = WebKitRegexPrinter()
            printer.out.reserveCapacity(source.count + 16)
            if pattern.anchoredStart { printer.out.append(UInt8(ascii: "^")) }
            printer.print(pattern.terms)
            if pattern.anchoredEnd { printer.out.append(UInt8(ascii: "$")) }
            if !filters.contains(printer.out) { filters.append(printer.out) }
        }
        return .success(filters)
    }

    /// The report's name for each of the parser's refusals of a JavaScript regex.
    static func skipReason(_ reason: URLFilterSyntaxError.Reason) -> SkipReason {
        switch reason {
        case .refused(.emptyFilter): .invalidFilter
        case .refused(.nonASCII): .nonASCII
        case .refused(.misplacedStartOfLine), .refused(.misplacedEndOfLine): .regexAnchor
        case .refused(.disjunction): .regexAlternation
        case .refused(.arbitraryRepetition): .regexRepetition
        case .lookaround: .regexLookaround
        case .backreference: .regexBackreference
        case .refused(.builtinCharacterClass), .invalidCharacterClass: .regexCharacterClass
        case .refused(.wordBoundary): .regexWordBoundary
        case .refused(.group), .refused(.yarrError), .unopenedGroup, .unclosedGroup, .controlCharacter,
            .unsupportedEscape, .emptyGroup, .quantifierAfterQuantifier, .nothingToRepeat, .trailingBackslash,
            .unterminatedCharacterClass, .rangeOutOfOrder:
            .regexUnsupported
        }
    }
}

/// Prints a `URLFilterParser` tree in WebKit's url-filter syntax, keeping each byte's spelling except where
/// WebKit's differs from JavaScript's.
private struct WebKitRegexPrinter {
    var out: [UInt8] = []

    mutating func print(_ terms: [URLFilterTerm]) {
        for term in terms {
            print(term.atom)
            switch term.quantifier {
            case .one: break
            case .optional: out.append(UInt8(ascii: "?"))
            case .zeroOrMore: out.append(UInt8(ascii: "*"))
            case .oneOrMore: out.append(UInt8(ascii: "+"))
            case .counted: preconditionFailure("RegexExpansion spells counts out before printing")
            }
        }
    }

    private mutating func print(_ atom: URLFilterAtom) {
        switch atom {
        case .literal(let byte, let escaped):
            // `]` and `}` are literals outside a class in JavaScript (Annex B); escaped so no reader takes
            // them for the end of a class or a count.
            print(byte, escaped: escaped || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}"))
        case .any:
            out.append(UInt8(ascii: "."))
        case .characterClass(let characterClass):
            print(characterClass)
        case .group(let terms):
            out.append(UInt8(ascii: "("))
            print(terms)
            out.append(UInt8(ascii: ")"))
        case .backreference(let number):
            out.append(UInt8(ascii: "\\"))
            out.append(UInt8(ascii: "0") + number)
        case .alternation, .startOfLine, .endOfLine:
            preconditionFailure("RegexExpansion spells alternations and anchors out before printing")
        }
    }

    private mutating func print(_ characterClass: URLFilterCharacterClass) {
        out.append(UInt8(ascii: "["))
        if characterClass.negated { out.append(UInt8(ascii: "^")) }
        for member in characterClass.members {
            switch member {
            case .byte(let byte):
                print(byte.value, escaped: byte.escaped)
            case .range(let lower, let upper):
                print(lower.value, escaped: lower.escaped)
                out.append(UInt8(ascii: "-"))
                print(upper.value, escaped: upper.escaped)
            case .digits:
                out.append(contentsOf: "0-9".utf8)
            case .wordCharacters:
                out.append(contentsOf: "A-Za-z0-9_".utf8)
            }
        }
        out.append(UInt8(ascii: "]"))
    }

    /// JavaScript escapes `/` only because it ends the regex literal; WebKit needs no backslash there.
    private mutating func print(_ byte: UInt8, escaped: Bool) {
        if escaped, byte != UInt8(ascii: "/") { out.append(UInt8(ascii: "\\")) }
        out.append(byte)
    }
}
