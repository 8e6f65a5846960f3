/// A url-filter in WebKit's regex subset, compiled to a small NFA and matched over URL bytes.
///
/// The subset is what WebKit's URLFilterParser accepts: literals and escapes, `.`, character classes
/// (ranges, `^` negation), groups `(...)` / `(?:...)`, the quantifiers `*`, `+`, `?`, a leading `^` and
/// a trailing `$`. A match may start anywhere unless the filter begins with `^` (WebKit compiles the
/// filters into one DFA, so only "is there a match" matters, never which one). Backreferences are
/// accepted by WebKit but match nothing (measured: docs/webkit-format.md), so a filter with one never
/// matches. Case-insensitive filters fold ASCII letters in the pattern; the URL is matched as is.
public struct URLFilterRegex: Sendable, Equatable {
    public let pattern: String
    public let caseSensitive: Bool
    /// Compact (12 bytes an instruction, against 40 for `Instruction`): an engine holds about a
    /// hundred thousand of these programs, and their byte sets were most of its memory.
    let program: [CompactInstruction]
    /// The byte sets of `.set` instructions (empty for most filters: single bytes and case pairs are inline).
    let sets: [ByteSet]
    let anchoredStart: Bool
    let anchoredEnd: Bool
    /// Literal runs (lowercased) that every matching URL contains; the engine indexes rules by them.
    /// Computed again from the pattern when asked (the engine's index takes them from the compiling
    /// parse instead): kept, the literal arrays cost a few allocations per rule for the engine's whole life.
    public var requiredLiterals: [[UInt8]] {
        guard let parsed = try? RegexTerms.parse(Array(pattern.utf8), caseSensitive: caseSensitive) else { return [] }
        return RegexTerms.requiredLiterals(parsed.terms)
    }

    public init(_ pattern: String, caseSensitive: Bool = false) throws(URLFilterError) {
        try self.init(
            pattern, caseSensitive: caseSensitive,
            parsed: RegexTerms.parse(Array(pattern.utf8), caseSensitive: caseSensitive))
    }

    /// Compiles the filter and gives its `requiredLiterals` from the same parse (the engine's index
    /// needs them once, while the rules are read).
    init(_ pattern: String, caseSensitive: Bool, requiredLiterals: inout [[UInt8]]) throws(URLFilterError) {
        let parsed = try RegexTerms.parse(Array(pattern.utf8), caseSensitive: caseSensitive)
        requiredLiterals = RegexTerms.requiredLiterals(parsed.terms)
        self.init(pattern, caseSensitive: caseSensitive, parsed: parsed)
    }

    private init(_ pattern: String, caseSensitive: Bool, parsed: RegexTerms.Parsed) {
        self.pattern = pattern
        self.caseSensitive = caseSensitive
        anchoredStart = parsed.anchoredStart
        anchoredEnd = parsed.anchoredEnd
        var builder = ProgramBuilder()
        builder.emit(parsed.terms)
        builder.program.append(.match)
        (program, sets) = CompactInstruction.compact(builder.program)
    }

    /// Whether the filter matches somewhere in `url` (the whole serialized URL, as bytes).
    public func matches(_ url: [UInt8]) -> Bool {
        url.withUnsafeBufferPointer { matches($0) }
    }

    /// A Pike-VM simulation: every thread advances in lock step, so time is linear in the URL length.
    public func matches(_ url: UnsafeBufferPointer<UInt8>) -> Bool {
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        var position = 0
        while true {
            if !anchoredStart || position == 0 {
                if add(0, to: &current, at: position, length: url.count) { return true }
            }
            if current.count == 0 && anchoredStart { return false }
            if position == url.count { return false }
            let byte = url[position]
            position += 1
            next.clear()
            for slot in 0..<current.count {
                let pc = current.pcs[slot]
                let accepts: Bool
                switch program[pc] {
                case .byte(let only): accepts = byte == only
                case .pair(let one, let other): accepts = byte == one || byte == other
                case .set(let index): accepts = sets[Int(index)].contains(byte)
                default: accepts = false
                }
                if accepts, add(pc + 1, to: &next, at: position, length: url.count) { return true }
            }
            swap(&current, &next)
        }
    }

    /// Adds the thread at `pc` and everything reachable from it without reading a byte; true on a match.
    private func add(_ pc: Int, to list: inout ThreadList, at position: Int, length: Int) -> Bool {
        if list.marked(pc) { return false }
        list.mark(pc)
        switch program[pc] {
        case .byte, .pair, .set:
            list.append(pc)
            return false
        case .match:
            return !anchoredEnd || position == length
        case .jump(let target):
            return add(Int(target), to: &list, at: position, length: length)
        case .split(let first, let second):
            return add(Int(first), to: &list, at: position, length: length)
                || add(Int(second), to: &list, at: position, length: length)
        case .fail:
            return false
        }
    }

    public static func == (lhs: URLFilterRegex, rhs: URLFilterRegex) -> Bool {
        lhs.pattern == rhs.pattern && lhs.caseSensitive == rhs.caseSensitive
    }
}

/// Why a url-filter is outside WebKit's subset (WebKit would refuse to compile the whole list).
public struct URLFilterError: Error, Equatable, CustomStringConvertible, Sendable {
    public var pattern: String
    public var reason: String
    public var description: String { "url-filter \(pattern): \(reason)" }
}

enum Instruction: Sendable, Equatable {
    case byte(ByteSet)
    case split(Int, Int)
    case jump(Int)
    case match
    case fail
}

/// `Instruction` as the matcher keeps it: a set of one byte or two (an ASCII letter in both cases)
/// inline, larger sets by index into the filter's `sets`, targets as 32-bit indexes.
enum CompactInstruction: Sendable, Equatable {
    case byte(UInt8)
    case pair(UInt8, UInt8)
    case set(Int32)
    case split(Int32, Int32)
    case jump(Int32)
    case match
    case fail

    static func compact(_ program: [Instruction]) -> ([CompactInstruction], [ByteSet]) {
        var sets: [ByteSet] = []
        let compacted = program.map { instruction -> CompactInstruction in
            switch instruction {
            case .byte(let set):
                if set.count == 1, let only = set.first { return .byte(only) }
                if set.count == 2, let one = set.first {
                    var rest = set
                    rest.remove(one)
                    if let other = rest.first { return .pair(one, other) }
                }
                if let index = sets.firstIndex(of: set) { return .set(Int32(index)) }
                sets.append(set)
                return .set(Int32(sets.count - 1))
            case .split(let first, let second): return .split(Int32(first), Int32(second))
            case .jump(let target): return .jump(Int32(target))
            case .match: return .match
            case .fail: return .fail
            }
        }
        return (compacted, sets)
    }
}

/// A set of bytes as a 256-bit map.
struct ByteSet: Sendable, Equatable {
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    static let all: ByteSet = {
        var set = ByteSet()
        set.words = (~0, ~0, ~0, ~0)
        return set
    }()

    func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    mutating func remove(_ byte: UInt8) {
        let bit = ~(UInt64(1) << UInt64(byte & 63))
        switch byte >> 6 {
        case 0: words.0 &= bit
        case 1: words.1 &= bit
        case 2: words.2 &= bit
        default: words.3 &= bit
        }
    }

    mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: words.0 |= bit
        case 1: words.1 |= bit
        case 2: words.2 |= bit
        default: words.3 |= bit
        }
    }

    func inverted() -> ByteSet {
        var set = ByteSet()
        set.words = (~words.0, ~words.1, ~words.2, ~words.3)
        return set
    }

    /// Adds the other case of every ASCII letter in the set.
    func caseFolded() -> ByteSet {
        var set = self
        for byte in UInt8(ascii: "A")...UInt8(ascii: "Z") where contains(byte) || contains(byte | 0x20) {
            set.insert(byte)
            set.insert(byte | 0x20)
        }
        return set
    }

    var count: Int {
        words.0.nonzeroBitCount + words.1.nonzeroBitCount + words.2.nonzeroBitCount + words.3.nonzeroBitCount
    }

    /// The lowest byte in the set, if any.
    var first: UInt8? {
        if words.0 != 0 { return UInt8(words.0.trailingZeroBitCount) }
        if words.1 != 0 { return UInt8(64 + words.1.trailingZeroBitCount) }
        if words.2 != 0 { return UInt8(128 + words.2.trailingZeroBitCount) }
        if words.3 != 0 { return UInt8(192 + words.3.trailingZeroBitCount) }
        return nil
    }

    static func == (lhs: ByteSet, rhs: ByteSet) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2
            && lhs.words.3 == rhs.words.3
    }
}

/// The threads of one step, with a mark per instruction so each is added once.
struct ThreadList {
    var pcs: [Int]
    var count = 0
    private var marks: [Bool]
    private var markedPCs: [Int] = []

    init(capacity: Int) {
        pcs = Array(repeating: 0, count: capacity)
        marks = Array(repeating: false, count: capacity)
        markedPCs.reserveCapacity(capacity)
    }

    func marked(_ pc: Int) -> Bool { marks[pc] }
    mutating func mark(_ pc: Int) {
        marks[pc] = true
        markedPCs.append(pc)
    }
    mutating func append(_ pc: Int) {
        pcs[count] = pc
        count += 1
    }
    mutating func clear() {
        count = 0
        for pc in markedPCs { marks[pc] = false }
        markedPCs.removeAll(keepingCapacity: true)
    }
}

/// Turns parsed terms into NFA instructions.
struct ProgramBuilder {
    var program: [Instruction] = []

    mutating func emit(_ terms: [RegexTerm]) {
        for term in terms { emit(term) }
    }

    private mutating func emitAtom(_ atom: RegexAtom) {
        switch atom {
        case .set(let set): program.append(.byte(set))
        case .group(let terms): emit(terms)
        case .never: program.append(.fail)
        }
    }

    private mutating func emit(_ term: RegexTerm) {
        switch term.quantifier {
        case .one:
            emitAtom(term.atom)
        case .optional:
            let split = program.count
            program.append(.fail)
            emitAtom(term.atom)
            program[split] = .split(split + 1, program.count)
        case .zeroOrMore:
            let split = program.count
            program.append(.fail)
            emitAtom(term.atom)
            program.append(.jump(split))
            program[split] = .split(split + 1, program.count)
        case .oneOrMore:
            let start = program.count
            emitAtom(term.atom)
            program.append(.split(start, program.count + 1))
        }
    }
}
