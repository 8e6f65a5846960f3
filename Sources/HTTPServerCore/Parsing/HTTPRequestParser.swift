/// Parses an HTTP/1.1 request head (RFC 9112 §2–§6) directly on bytes.
///
/// Strict where leniency enables request smuggling or cache poisoning: obs-fold, whitespace
/// before the colon, duplicate Host, conflicting Content-Length, Content-Length with
/// Transfer-Encoding and bare CR are all rejected. Lenient where RFC 9112 §2.2 allows it: bare LF
/// ends a line and empty lines before the request line are skipped.
///
/// Dependency-free (no Foundation): bytes in, a head or an error out, so the fuzz target drives it alone.
public struct HTTPRequestParser: Sendable {
    public var maxHeaderBytes: Int
    public var maxURIBytes: Int

    public init(maxHeaderBytes: Int, maxURIBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxURIBytes = maxURIBytes
    }

    /// Parses the head at the start of `bytes`. Never reads past `bytes`, never allocates for a
    /// typical request, and answers `.incomplete` only while the limits still allow completion.
    public func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPParseResult {
        // Skip leading empty lines (RFC 9112 §2.2).
        var start = 0
        while start < bytes.count, bytes[start] == 0x0D || bytes[start] == 0x0A {
            if bytes[start] == 0x0D, start + 1 < bytes.count, bytes[start + 1] != 0x0A {
                return .failure(.badRequest("bare CR before the request line"))
            }
            start += 1
            if start > 64 { return .failure(.badRequest("too many empty lines before the request line")) }
        }
        guard let end = findHeadEnd(bytes, from: start) else {
            return incompleteOrTooLarge(bytes, from: start)
        }
        if end - start > maxHeaderBytes { return .failure(.headerFieldsTooLarge) }
        var head = HTTPRequestHead()
        head.length = end
        var position = start
        guard let requestLineEnd = lineEnd(bytes, from: position, limit: end) else {
            return .failure(.badRequest("request line is not terminated"))
        }
        if let error = parseRequestLine(bytes, from: position, to: requestLineEnd.contentEnd, into: &head) {
            return .failure(error)
        }
        position = requestLineEnd.next
        var contentLengthSeen = false
        while position < end {
            guard let line = lineEnd(bytes, from: position, limit: end) else {
                return .failure(.badRequest("header line is not terminated"))
            }
            if line.contentEnd == position { break }  // the empty line that ends the head
            if let error = parseField(
                bytes, from: position, to: line.contentEnd, into: &head, contentLengthSeen: &contentLengthSeen)
            {
                return .failure(error)
            }
            position = line.next
        }
        return validateFraming(head)
    }

    // MARK: Head boundaries

    /// Index just past the empty line that ends the head (CRLFCRLF, or LF LF / mixed per §2.2).
    private func findHeadEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let limit = min(bytes.count, start + maxHeaderBytes + 4)
        var index = start
        while index < limit {
            if bytes[index] == 0x0A {
                // A line feed followed by an empty line (CRLF or LF) ends the head.
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    private func incompleteOrTooLarge(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> HTTPParseResult {
        let pending = bytes.count - start
        // Still inside the request line: judge it against the URI limit first (414 before 431).
        var index = start
        var lineDone = false
        while index < bytes.count {
            if bytes[index] == 0x0A {
                lineDone = true
                break
            }
            index += 1
        }
        if !lineDone, pending > maxURIBytes + 32 { return .failure(.uriTooLong) }
        if pending > maxHeaderBytes {
            return lineDone && index - start <= maxURIBytes + 32
                ? .failure(.headerFieldsTooLarge) : .failure(.uriTooLong)
        }
        return .incomplete
    }

    /// Where the line starting at `from` ends: the index of its CR or LF and the next line's start.
    private func lineEnd(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, limit: Int) -> (contentEnd: Int, next: Int)? {
        var index = from
        while index < limit {
            if bytes[index] == 0x0A {
                if index > from, bytes[index - 1] == 0x0D { return (index - 1, index + 1) }
                return (index, index + 1)
            }
            index += 1
        }
        return nil
    }

    // MARK: Request line (RFC 9112 §3)

    private func parseRequestLine(
        _ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, into head: inout HTTPRequestHead
    ) -> HTTPParseError? {
        var index = from
        while index < to, HTTPBytes.isTokenByte(bytes[index]) { index += 1 }
        let methodEnd = index
        guard methodEnd > from, index < to, bytes[index] == 0x20 else {
            return .badRequest("malformed request line (method)")
        }
        head.method = Self.method(bytes, from: from, to: methodEnd)
        index += 1
        let targetStart = index
        while index < to, bytes[index] > 0x20, bytes[index] < 0x7F { index += 1 }
        let targetEnd = index
        if targetEnd - targetStart > maxURIBytes { return .uriTooLong }
        guard targetEnd > targetStart, index < to, bytes[index] == 0x20 else {
            return .badRequest("malformed request line (target)")
        }
        head.target = targetStart..<targetEnd
        index += 1
        // HTTP-version = "HTTP/" DIGIT "." DIGIT, then the line ends.
        guard to - index == 8,
            bytes[index] == 0x48, bytes[index + 1] == 0x54, bytes[index + 2] == 0x54, bytes[index + 3] == 0x50,
            bytes[index + 4] == 0x2F, HTTPBytes.isDigit(bytes[index + 5]), bytes[index + 6] == 0x2E,
            HTTPBytes.isDigit(bytes[index + 7])
        else {
            return .badRequest("malformed request line (version)")
        }
        let major = bytes[index + 5] - 0x30
        let minor = bytes[index + 7] - 0x30
        guard major == 1 else { return .versionNotSupported }
        head.version = minor == 0 ? .http10 : .http11
        return nil
    }

    private static func method(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> HTTPRequestHead.Method {
        switch to - from {
        case 3 where bytes[from] == 0x47 && bytes[from + 1] == 0x45 && bytes[from + 2] == 0x54: return .get
        case 4
        where bytes[from] == 0x48 && bytes[from + 1] == 0x45 && bytes[from + 2] == 0x41 && bytes[from + 3] == 0x44:
            return .head
        case 4
        where bytes[from] == 0x50 && bytes[from + 1] == 0x4F && bytes[from + 2] == 0x53 && bytes[from + 3] == 0x54:
            return .post
        case 7
        where bytes[from] == 0x4F && bytes[from + 1] == 0x50 && bytes[from + 2] == 0x54 && bytes[from + 3] == 0x49
            && bytes[from + 4] == 0x4F && bytes[from + 5] == 0x4E && bytes[from + 6] == 0x53:
            return .options
        default: return .other
        }
    }

    // MARK: Header fields (RFC 9112 §5, RFC 9110 §5)

    private func parseField(
        _ bytes: UnsafeBufferPointer<UInt8>, from: Int, to: Int, into head: inout HTTPRequestHead,
        contentLengthSeen: inout Bool
    ) -> HTTPParseError? {
        if bytes[from] == 0x20 || bytes[from] == 0x09 { return .badRequest("obsolete line folding in header") }
        var index = from
        while index < to, HTTPBytes.isTokenByte(bytes[index]) { index += 1 }
        let nameEnd = index
        guard nameEnd > from else { return .badRequest("malformed header name") }
        guard index < to, bytes[index] == 0x3A else {
            if index < to, bytes[index] == 0x20 || bytes[index] == 0x09 {
                return .badRequest("whitespace between header name and colon")
            }
            return .badRequest("header line without a colon")
        }
        index += 1
        while index < to, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        var valueEnd = to
        while valueEnd > index, bytes[valueEnd - 1] == 0x20 || bytes[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        var check = index
        while check < valueEnd {
            let byte = bytes[check]
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return .badRequest("control character in header value") }
            check += 1
        }
        let value = index..<valueEnd
        let name = UnsafeBufferPointer(rebasing: bytes[from..<nameEnd])
        switch name.count {
        case 4 where HTTPBytes.equalsLowercase(name, "host"):
            head.hostCount += 1
        case 5 where HTTPBytes.equalsLowercase(name, "range"):
            if head.range != nil { return .badRequest("duplicate Range header") }
            head.range = value
        case 6 where HTTPBytes.equalsLowercase(name, "accept"):
            head.accept = value
        case 8 where HTTPBytes.equalsLowercase(name, "if-match"):
            head.ifMatch.append(value)
        case 8 where HTTPBytes.equalsLowercase(name, "if-range"):
            head.ifRange = value
        case 10 where HTTPBytes.equalsLowercase(name, "connection"):
            scanConnectionTokens(bytes, value, into: &head)
        case 13 where HTTPBytes.equalsLowercase(name, "if-none-match"):
            head.ifNoneMatch.append(value)
        case 13 where HTTPBytes.equalsLowercase(name, "authorization"):
            head.authorization = value
        case 14 where HTTPBytes.equalsLowercase(name, "content-length"):
            guard let length = parseContentLength(bytes, value) else { return .badRequest("invalid Content-Length") }
            if contentLengthSeen, head.contentLength != length {
                return .badRequest("conflicting Content-Length headers")
            }
            contentLengthSeen = true
            head.contentLength = length
        case 15 where HTTPBytes.equalsLowercase(name, "accept-encoding"):
            head.acceptEncoding.append(value)
        case 17 where HTTPBytes.equalsLowercase(name, "if-modified-since"):
            head.ifModifiedSince = value
        case 17 where HTTPBytes.equalsLowercase(name, "transfer-encoding"):
            // Only exactly `chunked` is understood; anything else is 501 (RFC 9112 §6.1).
            let coding = UnsafeBufferPointer(rebasing: bytes[value])
            if head.chunked || !(coding.count == 7 && HTTPBytes.equalsLowercase(coding, "chunked")) {
                return .notImplemented("unsupported Transfer-Encoding")
            }
            head.chunked = true
        case 19 where HTTPBytes.equalsLowercase(name, "if-unmodified-since"):
            head.ifUnmodifiedSince = value
        case 20 where HTTPBytes.equalsLowercase(name, "available-dictionary"):
            head.availableDictionary = value
        default:
            break
        }
        return nil
    }

    /// Content-Length = 1*DIGIT; a list of identical values is accepted (RFC 9112 §6.3 item 5).
    private func parseContentLength(_ bytes: UnsafeBufferPointer<UInt8>, _ value: Range<Int>) -> Int? {
        var result: Int?
        var current = 0
        var digits = 0
        var index = value.lowerBound
        while true {
            let atEnd = index == value.upperBound
            let byte: UInt8 = atEnd ? 0x2C : bytes[index]
            if HTTPBytes.isDigit(byte) {
                if digits >= 15 { return nil }
                current = current * 10 + Int(byte - 0x30)
                digits += 1
            } else if byte == 0x2C {
                guard digits > 0 else { return nil }
                if let previous = result, previous != current { return nil }
                result = current
                current = 0
                digits = 0
                if atEnd { break }
                // Skip OWS after the comma.
                while index + 1 < value.upperBound, bytes[index + 1] == 0x20 || bytes[index + 1] == 0x09 { index += 1 }
            } else if byte == 0x20 || byte == 0x09 {
                // OWS before a comma only.
                var look = index
                while look < value.upperBound, bytes[look] == 0x20 || bytes[look] == 0x09 { look += 1 }
                guard look < value.upperBound, bytes[look] == 0x2C else { return nil }
                index = look - 1
            } else {
                return nil
            }
            index += 1
        }
        return result
    }

    private func scanConnectionTokens(
        _ bytes: UnsafeBufferPointer<UInt8>, _ value: Range<Int>, into head: inout HTTPRequestHead
    ) {
        var index = value.lowerBound
        while index < value.upperBound {
            while index < value.upperBound, bytes[index] == 0x2C || bytes[index] == 0x20 || bytes[index] == 0x09 {
                index += 1
            }
            let tokenStart = index
            while index < value.upperBound, bytes[index] != 0x2C, bytes[index] != 0x20, bytes[index] != 0x09 {
                index += 1
            }
            let token = UnsafeBufferPointer(rebasing: bytes[tokenStart..<index])
            if token.count == 5, HTTPBytes.equalsLowercase(token, "close") { head.connectionClose = true }
            if token.count == 10, HTTPBytes.equalsLowercase(token, "keep-alive") { head.connectionKeepAlive = true }
        }
    }

    // MARK: Message framing (RFC 9112 §6.3)

    private func validateFraming(_ head: HTTPRequestHead) -> HTTPParseResult {
        if head.chunked, head.contentLength != nil {
            return .failure(.badRequest("both Transfer-Encoding and Content-Length"))
        }
        if head.chunked, head.version == .http10 {
            return .failure(.badRequest("Transfer-Encoding in an HTTP/1.0 request"))
        }
        switch head.version {
        case .http11 where head.hostCount != 1:
            return .failure(.badRequest(head.hostCount == 0 ? "missing Host header" : "duplicate Host header"))
        case .http10 where head.hostCount > 1:
            return .failure(.badRequest("duplicate Host header"))
        default:
            return .complete(head)
        }
    }
}

/// Byte classes and comparisons shared by the parser and the header interpreters.
public enum HTTPBytes {
    @inline(__always) public static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// tchar (RFC 9110 §5.6.2).
    @inline(__always) public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E: return true
        default: return false
        }
    }

    @inline(__always) public static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Case-insensitive ASCII comparison against a lowercase literal.
    public static func equalsLowercase(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        guard bytes.count == literal.utf8CodeUnitCount else { return false }
        let expected = literal.utf8Start
        for index in 0..<bytes.count where lower(bytes[index]) != expected[index] {
            return false
        }
        return true
    }
}
