import URLFilterGrammar

/// Spells out what a JavaScript regex has and WebKit's url-filter grammar lacks, exactly or not at all:
/// `{n,m}` becomes copies of its atom (`x{2,4}` → `xxx?x?`, `x{2,}` → `xx+`), and `|` is distributed out
/// into several alternation-free patterns whose union matches exactly the URLs the regex matches (a
/// rule with a union url-filter is the same as one rule per pattern). `^`/`$` at the start/end of a
/// branch become the pattern's anchors when they end up first/last in it.
///
/// Refused, with the reason the report counts: an alternation under `*`, `+` or `{n,}` (no finite union),
/// more than `maxPatterns` patterns, a count above `maxCopies` (`maxWideCopies` for `.` and `[^…]`: what
/// WebKit can still compile), and an anchor that does not end up first or last (not provably the same
/// match).
struct RegexExpansion {
    /// Most url-filters, so most rules, one regex line becomes.
    static let maxPatterns = 16
    /// Most copies of its atom a count writes: bounds the url-filter's length and WebKit's automaton.
    static let maxCopies = 128
    /// Most copies of an atom that matches almost any byte (`.`, `[^…]`, a group holding one). Each copy
    /// can hold a match that started at another place, so WebKit's automaton grows exponentially with
    /// them: WebKitGTK 2.50 compiles `(https?://)104\.154\..{n,}` alone in 0.3 s at n = 32, 0.5 s at 48,
    /// 28 s at 64, and not within 30 s at 80 or 100.
    static let maxWideCopies = 16

    /// The alternation-free patterns whose union is `terms` (a JavaScript-mode tree), without repeats.
    static func patterns(_ terms: [URLFilterTerm]) -> Result<[URLFilterPattern], SkipReasonError> {
        Result { () throws(SkipReasonError) -> [URLFilterPattern] in
            try sequences(terms).map { sequence throws(SkipReasonError) in try anchored(sequence) }
        }
    }

    /// Every choice of one option per term, in order.
    private static func sequences(_ terms: [URLFilterTerm]) throws(SkipReasonError) -> [[URLFilterTerm]] {
        var results: [[URLFilterTerm]] = [[]]
        for term in terms {
            let options = try expand(term)
            var product: [[URLFilterTerm]] = []
            for prefix in results {
                for option in options { appendNew(prefix + option, to: &product) }
            }
            if product.count > maxPatterns { throw SkipReasonError(reason: .regexAlternation) }
            results = product
        }
        return results
    }

    /// The term sequences, each free of `|` and counts, whose union is `term`.
    private static func expand(_ term: URLFilterTerm) throws(SkipReasonError) -> [[URLFilterTerm]] {
        if case .counted(let min, let max) = term.quantifier {
            guard (max ?? min) <= (matchesAlmostAnyByte(term.atom) ? maxWideCopies : maxCopies) else {
                throw SkipReasonError(reason: .regexRepetition)
            }
            let once = URLFilterTerm(term.atom)
            if let max {
                let optional = URLFilterTerm(term.atom, .optional)
                return try sequences(Array(repeating: once, count: min) + Array(repeating: optional, count: max - min))
            }
            if min == 0 { return try sequences([URLFilterTerm(term.atom, .zeroOrMore)]) }
            return try sequences(Array(repeating: once, count: min - 1) + [URLFilterTerm(term.atom, .oneOrMore)])
        }
        // nil: a branch that matches only the empty string.
        let atoms: [URLFilterAtom?]
        switch term.atom {
        case .group(let inner):
            atoms = try sequences(inner).map { $0.isEmpty ? nil : .group($0) }
        case .alternation(let branches):
            var union: [[URLFilterTerm]] = []
            for branch in branches {
                for sequence in try sequences(branch) { appendNew(sequence, to: &union) }
            }
            // Unquantified, each branch takes the alternation's place as it is: `x(a|b)` is `xa` or `xb`.
            if term.quantifier == .one { return union }
            atoms = union.map { $0.isEmpty ? nil : .group($0) }
        default:
            atoms = [term.atom]
        }
        switch term.quantifier {
        case .one:
            return atoms.map { atom in atom.map { [URLFilterTerm($0)] } ?? [] }
        case .optional:
            // `(a|b)?` is `(a)?` or `(b)?`: each keeps the empty match, so an empty branch adds nothing.
            let present = atoms.compactMap { $0 }
            return present.isEmpty ? [[]] : present.map { [URLFilterTerm($0, .optional)] }
        case .zeroOrMore, .oneOrMore, .counted:
            guard atoms.count == 1 else { throw SkipReasonError(reason: .regexAlternation) }
            return [atoms[0].map { [URLFilterTerm($0, term.quantifier)] } ?? []]
        }
    }

    /// Moves a leading `^` and a trailing `$` (also from the first/last group) to the pattern's anchors.
    private static func anchored(_ sequence: [URLFilterTerm]) throws(SkipReasonError) -> URLFilterPattern {
        var terms = sequence
        let start = removeAnchor(.startOfLine, at: \.startIndex, from: &terms)
        let end = removeAnchor(.endOfLine, at: { $0.endIndex - 1 }, from: &terms)
        if containsAnchor(terms) { throw SkipReasonError(reason: .regexAnchor) }
        return URLFilterPattern(terms: terms, anchoredStart: start, anchoredEnd: end)
    }

    /// Whether `anchor` was the term at `index` of `terms`, or of the group unquantified there (a group
    /// left empty is dropped).
    private static func removeAnchor(
        _ anchor: URLFilterAtom, at index: ([URLFilterTerm]) -> Int, from terms: inout [URLFilterTerm]
    ) -> Bool {
        guard !terms.isEmpty, terms[index(terms)].quantifier == .one else { return false }
        let position = index(terms)
        if terms[position].atom == anchor {
            terms.remove(at: position)
            return true
        }
        guard case .group(var inner) = terms[position].atom, removeAnchor(anchor, at: index, from: &inner) else {
            return false
        }
        if inner.isEmpty { terms.remove(at: position) } else { terms[position].atom = .group(inner) }
        return true
    }

    /// Whether a `|` is anywhere in `terms`: what a refusal of the whole regex is counted under.
    static func containsAlternation(_ terms: [URLFilterTerm]) -> Bool {
        contains(terms) { if case .alternation = $0 { true } else { false } }
    }

    private static func matchesAlmostAnyByte(_ atom: URLFilterAtom) -> Bool {
        switch atom {
        case .any: true
        case .characterClass(let characterClass): characterClass.negated
        case .group(let terms): terms.contains { matchesAlmostAnyByte($0.atom) }
        case .alternation(let branches): branches.contains { $0.contains { matchesAlmostAnyByte($0.atom) } }
        default: false
        }
    }

    private static func containsAnchor(_ terms: [URLFilterTerm]) -> Bool {
        contains(terms) { $0 == .startOfLine || $0 == .endOfLine }
    }

    /// Whether an atom of `terms`, or of a group in them, is one `matches` picks.
    private static func contains(_ terms: [URLFilterTerm], where matches: (URLFilterAtom) -> Bool) -> Bool {
        terms.contains { term in
            if matches(term.atom) { return true }
            if case .group(let inner) = term.atom { return contains(inner, where: matches) }
            return false
        }
    }

    private static func appendNew<Element: Equatable>(_ element: Element, to list: inout [Element]) {
        if !list.contains(element) { list.append(element) }
    }
}
