/// Evaluates RFC 9110 §13 preconditions against one selected representation, on bytes.
///
/// Order per §13.2.2: If-Match, else If-Unmodified-Since (→ 412); then If-None-Match, else
/// If-Modified-Since for GET/HEAD (→ 304). If-None-Match uses weak comparison (§8.8.3.2),
/// If-Match strong comparison.
public enum ConditionalRequest {
    public enum Outcome: Equatable, Sendable {
        case proceed, notModified, preconditionFailed
    }

    public static func evaluate(
        _ bytes: UnsafeBufferPointer<UInt8>, head: HTTPRequestHead, etag: [UInt8], lastModified: Int
    ) -> Outcome {
        if head.ifMatch.isPresent {
            if !listMatches(bytes, head.ifMatch, etag: etag, weak: false) { return .preconditionFailed }
        } else if let range = head.ifUnmodifiedSince,
            let date = HTTPDate.parse(UnsafeBufferPointer(rebasing: bytes[range]))
        {
            if lastModified > date { return .preconditionFailed }
        }
        if head.ifNoneMatch.isPresent {
            if listMatches(bytes, head.ifNoneMatch, etag: etag, weak: true) {
                return head.method == .get || head.method == .head ? .notModified : .preconditionFailed
            }
        } else if head.method == .get || head.method == .head,
            let range = head.ifModifiedSince, let date = HTTPDate.parse(UnsafeBufferPointer(rebasing: bytes[range]))
        {
            if lastModified <= date { return .notModified }
        }
        return .proceed
    }

    /// `If-Range` (§13.1.5): true when the range should be honoured. An entity-tag must match
    /// strongly; a date must equal Last-Modified exactly.
    public static func ifRangeHolds(
        _ bytes: UnsafeBufferPointer<UInt8>, value: Range<Int>, etag: [UInt8], lastModified: Int
    ) -> Bool {
        let field = UnsafeBufferPointer(rebasing: bytes[value])
        guard let first = field.first else { return false }
        if first == 0x22 || first == 0x57 {
            // W/ tags never match strongly.
            return first == 0x22 && field.elementsEqual(etag)
        }
        return HTTPDate.parse(field) == lastModified
    }

    /// Whether a comma-separated list of entity-tags (or `*`) contains `etag`.
    /// `etag` is the quoted strong tag, e.g. `"0123456789abcdef"`.
    public static func listMatches(
        _ bytes: UnsafeBufferPointer<UInt8>, _ header: HTTPRequestHead.ListValue, etag: [UInt8], weak: Bool
    ) -> Bool {
        for line in header {
            var index = line.lowerBound
            while index < line.upperBound {
                let byte = bytes[index]
                if byte == 0x20 || byte == 0x09 || byte == 0x2C {
                    index += 1
                    continue
                }
                if byte == 0x2A { return true }
                var isWeak = false
                if byte == 0x57, index + 1 < line.upperBound, bytes[index + 1] == 0x2F {
                    isWeak = true
                    index += 2
                }
                guard index < line.upperBound, bytes[index] == 0x22 else {
                    // Not an entity-tag: skip to the next element.
                    while index < line.upperBound, bytes[index] != 0x2C { index += 1 }
                    continue
                }
                let tagStart = index
                index += 1
                while index < line.upperBound, bytes[index] != 0x22 { index += 1 }
                guard index < line.upperBound else { break }
                index += 1
                let tag = UnsafeBufferPointer(rebasing: bytes[tagStart..<index])
                if weak || !isWeak, tag.elementsEqual(etag) { return true }
            }
        }
        return false
    }
}
