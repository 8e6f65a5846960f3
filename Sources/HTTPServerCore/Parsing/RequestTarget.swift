/// Turns a request-target into the exact name looked up in the served table.
///
/// Accepts origin-form and absolute-form (RFC 9112 §3.2.1–§3.2.2), drops the query, and
/// percent-decodes once. The decoded path must be `/` followed by a name with no `/`, no NUL and
/// no leading dot; anything else cannot name a served file, so traversal in any encoding simply
/// finds nothing (lookups are by exact name, never a path join).
public enum RequestTarget {
    public enum Path: Equatable, Sendable {
        /// The decoded path without its leading slash, e.g. `manifest.json` or `admin/refresh`.
        case name([UInt8])
        /// Not something this server could serve (404).
        case unservable
        /// Broken percent-encoding or a target form that is not allowed (400).
        case malformed
    }

    /// The common case without copying: an origin-form target with no query, fragment or
    /// percent-encoding names exactly its bytes after the slash. nil when `path` must decide.
    public static func plainName(_ bytes: UnsafeBufferPointer<UInt8>, target: Range<Int>) -> Range<Int>? {
        guard target.count > 1, bytes[target.lowerBound] == 0x2F, bytes[target.lowerBound + 1] != 0x2E else {
            return nil
        }
        for index in (target.lowerBound + 1)..<target.upperBound {
            let byte = bytes[index]
            if byte == 0x25 || byte == 0x3F || byte == 0x23 || byte == 0 { return nil }
        }
        return (target.lowerBound + 1)..<target.upperBound
    }

    public static func path(_ bytes: UnsafeBufferPointer<UInt8>, target: Range<Int>) -> Path {
        var start = target.lowerBound
        let end = target.upperBound
        guard start < end else { return .malformed }
        if bytes[start] != 0x2F {
            // absolute-form: scheme "://" authority path
            guard let pathStart = absoluteFormPathStart(bytes, target) else { return .malformed }
            if pathStart == end { return .name([]) }
            start = pathStart
        }
        var stop = start
        while stop < end, bytes[stop] != 0x3F, bytes[stop] != 0x23 { stop += 1 }
        guard let name = PercentDecoding.decode(UnsafeBufferPointer(rebasing: bytes[(start + 1)..<stop])) else {
            return .malformed
        }
        if name.contains(0) || name.first == 0x2E { return .unservable }
        return .name(name)
    }

    private static func absoluteFormPathStart(_ bytes: UnsafeBufferPointer<UInt8>, _ target: Range<Int>) -> Int? {
        var index = target.lowerBound
        while index < target.upperBound, bytes[index] != 0x3A {
            let byte = HTTPBytes.lower(bytes[index])
            guard
                (byte >= 0x61 && byte <= 0x7A) || HTTPBytes.isDigit(byte) || byte == 0x2B || byte == 0x2D
                    || byte == 0x2E
            else { return nil }
            index += 1
        }
        guard index > target.lowerBound, index + 2 < target.upperBound, bytes[index + 1] == 0x2F,
            bytes[index + 2] == 0x2F
        else { return nil }
        index += 3
        while index < target.upperBound, bytes[index] != 0x2F, bytes[index] != 0x3F { index += 1 }
        if index < target.upperBound, bytes[index] == 0x3F { return target.upperBound }
        return index
    }
}
