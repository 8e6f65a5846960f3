import HTTPServerCore

/// One fuzz input through the request parser and the header interpreters. Traps (precondition)
/// on any broken invariant, so libFuzzer and the seed-corpus test both see a crash.
///
/// Invariants: ranges stay inside the input, a strict prefix of a complete head never completes,
/// `.incomplete` only within the limits (no unbounded buffering), failures map to known statuses,
/// and no unservable name passes target decoding.
public func fuzzHTTPRequest(_ raw: UnsafeRawBufferPointer) {
    let bytes = raw.assumingMemoryBound(to: UInt8.self)
    let size = bytes.count
    let parsers = [
        HTTPRequestParser(maxHeaderBytes: 16_384, maxURIBytes: 2_048),
        HTTPRequestParser(maxHeaderBytes: 512, maxURIBytes: 64),
    ]
    for parser in parsers {
        switch parser.parse(bytes) {
        case .complete(let head):
            precondition(head.length <= size, "head longer than input")
            precondition(!head.target.isEmpty && head.target.upperBound <= head.length, "target outside head")
            let single = [head.range, head.ifRange, head.authorization, head.ifModifiedSince, head.ifUnmodifiedSince].compactMap { $0 }
            for range in single + head.acceptEncoding.lines + head.ifNoneMatch.lines + head.ifMatch.lines {
                precondition(range.lowerBound >= 0 && range.upperBound <= head.length, "header value outside head")
            }
            _ = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: true)
            _ = ContentNegotiation.choose(bytes, header: head.acceptEncoding, gzipAvailable: false)
            _ = ConditionalRequest.evaluate(bytes, head: head, etag: Array("\"0123456789abcdef\"".utf8), lastModified: 1_603_101_600)
            if let range = head.range {
                for length in [0, 1, 1000] {
                    if case .partial(let part) = RangeRequest.evaluate(bytes, value: range, length: length) {
                        precondition(part.lowerBound >= 0 && part.upperBound <= length && !part.isEmpty, "range outside body")
                    }
                }
            }
            if let value = head.ifRange { _ = ConditionalRequest.ifRangeHolds(bytes, value: value, etag: Array("\"x\"".utf8), lastModified: 0) }
            if let value = head.ifModifiedSince { _ = HTTPDate.parse(UnsafeBufferPointer(rebasing: bytes[value])) }
            if case .name(let name) = RequestTarget.path(bytes, target: head.target) {
                precondition(name.first != 0x2E && !name.contains(0), "unservable name passed through")
            }
            // Incremental arrival: every strict prefix must not complete (no early answers).
            if head.length > 0 {
                let prefix = parser.parse(UnsafeBufferPointer(rebasing: bytes[0..<(head.length - 1)]))
                if case .complete = prefix { preconditionFailure("a prefix of a complete head completed") }
            }
        case .incomplete:
            // No unbounded buffering: the server only keeps waiting while the limits allow.
            precondition(size <= parser.maxHeaderBytes + parser.maxURIBytes + 128, "incomplete beyond the limits (\(size) bytes)")
        case .failure(let failure):
            precondition([400, 414, 431, 501, 505].contains(failure.statusCode))
        }
    }
}
